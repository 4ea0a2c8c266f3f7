import pino from 'pino';

/**
 * Where the server's log lines go: stdout, written synchronously.
 *
 * pino's default destination writes asynchronously and, at exit, flushes what is left with a loop
 * that retries a failed write forever (sonic-boom's flushSync retries every error, not only
 * EAGAIN). With stdout gone (the process reading it exited), a SIGTERM shut the server down
 * cleanly, database closed, and then the process hung in that loop until it was SIGKILLed. A
 * synchronous destination leaves nothing to flush at exit, and its first broken-pipe error turns
 * logging off (pino's EPIPE handling) instead of stopping anything. One write per line is what a
 * log consumer (a terminal, journald, the container runtime) is built for.
 */
export function stdoutLogDestination(): pino.DestinationStream {
  return pino.destination({ dest: 1, sync: true });
}
