import type { FastifyReply, FastifyRequest } from 'fastify';

/** True when the client asked for Server-Sent Events (docs/API.md "Streaming"). */
export function wantsEventStream(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').toLowerCase().includes('text/event-stream');
}

/**
 * A Server-Sent Events response opened lazily: nothing is written until the first event, so an
 * error before it can still be an ordinary JSON error response with its status code.
 */
export class EventStream {
  private opened = false;
  private readonly abortController = new AbortController();

  constructor(private readonly reply: FastifyReply) {
    // 'close' before the response finished means the client went away.
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) this.abortController.abort();
    });
  }

  /** Aborts when the client disconnects. */
  get signal(): AbortSignal {
    return this.abortController.signal;
  }

  get started(): boolean {
    return this.opened;
  }

  send(event: string, data: unknown): void {
    if (this.abortController.signal.aborted || this.reply.raw.destroyed) return;
    if (!this.opened) this.open();
    this.reply.raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** Opens the stream now (headers out), for a long-lived stream whose first event may come much later. */
  start(): void {
    if (!this.opened) this.open();
  }

  /** A comment line (ignored by clients): keeps an idle stream's connection and proxies alive. */
  comment(text = 'keep-alive'): void {
    if (this.abortController.signal.aborted || this.reply.raw.destroyed) return;
    if (!this.opened) this.open();
    this.reply.raw.write(`: ${text}\n\n`);
  }

  /** Ends the response; if nothing was sent (the client left first) Fastify is still told it is done. */
  end(): void {
    if (!this.opened) {
      this.opened = true;
      this.reply.hijack();
    }
    if (!this.reply.raw.destroyed) this.reply.raw.end();
  }

  private open(): void {
    this.opened = true;
    this.reply.hijack();
    const headers = {
      ...this.reply.getHeaders(),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no', // tell nginx-style proxies not to buffer the stream
      connection: 'keep-alive',
    };
    this.reply.raw.writeHead(200, headers as Record<string, string>);
    this.reply.raw.flushHeaders();
  }
}
