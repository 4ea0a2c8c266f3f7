// Shared by the widget (the visitor's chat) and the admin UI (the owner's test chat and live
// view), so both read the server's event streams the same way.

/** Incremental text/event-stream parser (event + data lines, blank line ends an event; \n, \r\n or \r). */
export class SseParser {
  private buffer = '';
  private event = 'message';
  private data: string[] = [];

  constructor(private readonly onEvent: (event: string, data: string) => void) {}

  push(chunk: string): void {
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.search(/\r\n|\r|\n/)) >= 0) {
      if (nl === this.buffer.length - 1 && this.buffer.endsWith('\r')) break; // a \n may follow in the next chunk
      const line = this.buffer.slice(0, nl);
      const sepLength = this.buffer.startsWith('\r\n', nl) ? 2 : 1;
      this.buffer = this.buffer.slice(nl + sepLength);
      this.line(line);
    }
  }

  flush(): void {
    if (this.buffer) this.line(this.buffer);
    this.buffer = '';
    this.line('');
  }

  private line(line: string): void {
    if (line === '') {
      if (this.data.length) this.onEvent(this.event, this.data.join('\n'));
      this.event = 'message';
      this.data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
  }
}

/**
 * Reads the event stream of `res`, calling `onEvent` with each event's name and data (events
 * without data, such as heartbeats, are skipped) until the stream ends or `onEvent` returns true.
 * An exception thrown by `onEvent` ends the reading and is passed on. A browser without streaming
 * bodies gets the whole stream at once.
 */
export async function readEventStream(
  res: Response,
  onEvent: (event: string, data: string) => boolean | void,
): Promise<void> {
  let stopped = false;
  const parser = new SseParser((event, data) => {
    if (!stopped && onEvent(event, data) === true) stopped = true;
  });
  if (!res.body || typeof res.body.getReader !== 'function') {
    parser.push(await res.text());
    parser.flush();
    return;
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.push(decoder.decode(value, { stream: true }));
      if (stopped) return;
    }
    parser.push(decoder.decode());
    parser.flush();
  } finally {
    reader.releaseLock();
  }
}
