import pino from 'pino';

/**
 * Where the server's log lines go: stdout, written synchronously. On a terminal (someone ran
 * `npm start` or the executable in a shell) one readable line per record: time, level, message
 * and the record's other fields (colours unless NO_COLOR is set). Anywhere else (a pipe, a file,
 * journald, a container runtime, a log collector) one JSON object per line, as before.
 *
 * pino's default destination writes asynchronously and, at exit, flushes what is left with a loop
 * that retries a failed write forever (sonic-boom's flushSync retries every error, not only
 * EAGAIN). With stdout gone (the process reading it exited), a SIGTERM shut the server down
 * cleanly, database closed, and then the process hung in that loop until it was SIGKILLed. A
 * synchronous destination leaves nothing to flush at exit, and its first broken-pipe error turns
 * logging off (pino's EPIPE handling) instead of stopping anything. One write per line is what a
 * log consumer (a terminal, journald, the container runtime) is built for.
 *
 * The readable form is pino-pretty used as a stream in this thread, not as a pino transport: a
 * transport runs in a worker thread that loads its module by file path, which the single
 * executable does not have. It is imported only on a terminal, so a service never loads it.
 */
export async function stdoutLogDestination(): Promise<pino.DestinationStream> {
  if (process.stdout.isTTY) {
    const { default: pretty } = await import('pino-pretty');
    return pretty({
      destination: 1,
      sync: true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
      singleLine: true,
    });
  }
  return pino.destination({ dest: 1, sync: true });
}
