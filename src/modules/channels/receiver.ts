import type { FastifyBaseLogger } from 'fastify';
import { ChannelError, type ChannelClient, type UpdateBatch } from '../../providers/channels/index.js';
import type { ChannelConnectionRow } from './tables.js';

export interface ReceiverDeps {
  client: (row: ChannelConnectionRow) => ChannelClient;
  /** the latest row (offset, state), or undefined once deleted */
  reload: (id: string) => ChannelConnectionRow | undefined;
  /** stores the batch and its offset in one transaction, then queues the answers */
  store: (row: ChannelConnectionRow, batch: UpdateBatch) => void;
  fail: (row: ChannelConnectionRow, reason: string) => void;
  log: FastifyBaseLogger;
  /** how long one long poll waits for a message (s) */
  waitS: number;
}

/** after this many conflicts in a row another program holds the bot: the channel stops */
const CONFLICTS_BEFORE_ERROR = 3;
const MAX_BACKOFF_MS = 60_000;

/**
 * Long polling, one loop per connected account: poll with the stored offset, store what came and
 * the next offset together, poll again (which confirms it to the network). A crash between the two
 * polls loses nothing: the network sends the unconfirmed updates again, and the stored ones are
 * kept once. Network failures back off (1 s doubling to 60 s); a refused credential stops the loop.
 */
export class PollingReceivers {
  private readonly loops = new Map<string, { controller: AbortController; done: Promise<void> }>();

  constructor(private readonly deps: ReceiverDeps) {}

  start(row: ChannelConnectionRow): void {
    if (this.loops.has(row.id) || row.mode !== 'polling' || row.state !== 'connected') return;
    const controller = new AbortController();
    const done = this.loop(row.id, controller.signal).finally(() => {
      if (this.loops.get(row.id)?.controller === controller) this.loops.delete(row.id);
    });
    this.loops.set(row.id, { controller, done });
  }

  /** Ends the connection's loop (its current poll is aborted) and waits for it. */
  async stop(id: string): Promise<void> {
    const loop = this.loops.get(id);
    if (!loop) return;
    this.loops.delete(id);
    loop.controller.abort();
    await loop.done;
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.loops.keys()].map((id) => this.stop(id)));
  }

  private async loop(id: string, signal: AbortSignal): Promise<void> {
    let backoffMs = 1000;
    let conflicts = 0;
    while (!signal.aborted) {
      const row = this.deps.reload(id);
      if (row?.state !== 'connected' || row.mode !== 'polling') return;
      try {
        const batch = await this.deps.client(row).poll(row.update_offset, this.deps.waitS, signal);
        if (signal.aborted) return;
        this.deps.store(row, batch);
        backoffMs = 1000;
        conflicts = 0;
      } catch (err) {
        if (signal.aborted) return;
        const e = err instanceof ChannelError ? err : undefined;
        if (e?.kind === 'unauthorized') return this.deps.fail(row, e.message);
        if (e?.kind === 'conflict' && ++conflicts >= CONFLICTS_BEFORE_ERROR)
          return this.deps.fail(row, `${e.message} (another program receives this bot's messages)`);
        this.deps.log.warn({ connectionId: id, reason: e?.message ?? 'receiving failed' }, 'channel poll failed');
        await pause(e?.retryAfterS ? e.retryAfterS * 1000 : backoffMs, signal);
        backoffMs = Math.min(MAX_BACKOFF_MS, backoffMs * 2);
      }
    }
  }
}

/** waits `ms`, or less when `signal` aborts */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
