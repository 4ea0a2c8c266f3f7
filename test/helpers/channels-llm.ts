import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type FakeBehaviour, startFakeLlm } from './fake-llm.js';

/**
 * An OpenAI-compatible provider for the channel crash tests, in front of fake-llm.ts's openai
 * server: every request is forwarded to it and answered as it answers, except, with `holdFirst`,
 * the first chat request, which is accepted and never answered (the answer is in progress for as
 * long as the test wants: until the server asking is killed). `waitForChat(n)` resolves once `n`
 * chat requests arrived, held or not.
 */

export interface ChannelsLlm {
  /** OPENAI_BASE_URL */
  baseURL: string;
  /** the body of every chat request, in order of arrival */
  chats: Array<{ messages?: Array<{ role: string; content: unknown }> }>;
  waitForChat(count: number, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

/** the text of the last user message of a chat request's body */
export function lastUserText(body: ChannelsLlm['chats'][number]): string {
  const users = (body.messages ?? []).filter((m) => m.role === 'user');
  const content = users.at(-1)?.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p: { text?: string }) => p.text ?? '').join('');
  return '';
}

export async function startChannelsLlm(opts: {
  reply: FakeBehaviour['reply'];
  holdFirst: boolean;
}): Promise<ChannelsLlm> {
  const backend = await startFakeLlm('openai', { reply: opts.reply });
  const chats: ChannelsLlm['chats'] = [];
  const waiters = new Set<() => void>();
  const held = new Set<http.ServerResponse>();

  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => {
      const raw = Buffer.concat(parts).toString('utf8');
      if (req.url === '/v1/chat/completions') {
        chats.push(raw ? JSON.parse(raw) : {});
        for (const check of [...waiters]) check();
        if (opts.holdFirst && chats.length === 1) {
          held.add(res);
          return; // never answered
        }
      }
      void forward(req, raw, res).catch(() => res.destroy());
    });
  });

  async function forward(req: http.IncomingMessage, raw: string, res: http.ServerResponse): Promise<void> {
    const headers: Record<string, string> = {};
    for (const name of ['content-type', 'authorization', 'accept']) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const answer = await fetch(`${backend.url}${req.url}`, {
      method: req.method,
      headers,
      body: raw === '' ? undefined : raw,
    });
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    if (answer.body) for await (const chunk of answer.body) res.write(chunk);
    res.end();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    chats,
    waitForChat(count, timeoutMs) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (chats.length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`channels llm: waited ${timeoutMs} ms for ${count} chat request(s), got ${chats.length}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await backend.close();
    },
  };
}
