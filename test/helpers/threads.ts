import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** Whether this system shows threads' scheduling state (Linux /proc). */
export const threadsVisible = existsSync('/proc/thread-self');

/** The nice value of each thread of this process (Linux: field 19 of /proc/self/task/<tid>/stat). */
export function threadNiceness(): Array<{ tid: number; nice: number }> {
  return readdirSync('/proc/self/task').map((tid) => ({
    tid: Number(tid),
    nice: Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]),
  }));
}
