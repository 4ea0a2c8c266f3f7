// How steady the machine itself is, beside the chat figures. On the bench's 2-core VM everything
// that runs slows down about tenfold for 30-100 ms, every second or two, with no process of ours
// involved: a fixed 1 ms piece of arithmetic, alone on the machine, took 6-12 ms in such
// stretches while the guest's scheduler saw it on its CPU throughout (the host had taken the
// CPU; the guest reports no steal time). A chat turn that falls in one of them is slow whatever
// the server does, which is what the floor's p99 (chat_floor_*) shows too.

let sink = 0;
function arithmetic(steps: number): void {
  let a = sink | 1;
  for (let i = 0; i < steps; i++) a = (Math.imul(a, 1103515245) + 12345) | 0;
  sink = a;
}

export interface MachineSteadiness {
  /** pieces of work run */
  units: number;
  /** the usual (median) ms of one */
  usualMs: number;
  /** how many took more than three times that */
  slowerThan3x: number;
  /** the slowest (ms) */
  worstMs: number;
}

/** Runs `units` pieces of ~1 ms of arithmetic back to back on this thread and counts the slow ones. */
export function machineSteadiness(units = 3000): MachineSteadiness {
  for (let i = 0; i < 200; i++) arithmetic(10_000); // compiled before it is timed
  let steps = 10_000;
  for (;;) {
    const t = performance.now();
    arithmetic(steps);
    if (performance.now() - t >= 1) break;
    steps = Math.round(steps * 1.3);
  }
  const times: number[] = [];
  for (let i = 0; i < units; i++) {
    const t = performance.now();
    arithmetic(steps);
    times.push(performance.now() - t);
  }
  const sorted = [...times].sort((a, b) => a - b);
  const usualMs = sorted[sorted.length >> 1]!;
  return {
    units,
    usualMs,
    slowerThan3x: times.filter((ms) => ms > 3 * usualMs).length,
    worstMs: sorted.at(-1)!,
  };
}
