// Live handoff streams: every widget with a conversation holds one open Server-Sent Events stream
// (GET /api/public/chat/{id}/events), so a site's visitors cost the server open sockets all day.
// Figures, with BENCH_STREAMS (default 2000) visitor streams open at once:
// - memory: the server's RSS per open stream (RSS with them open minus before, over the count);
// - a person's reply: from POST .../reply to the visitor's stream receiving it, p50/p99, beside the
//   same with a single stream open;
// - GET /api/public/chatbot/{id} requests/s (autocannon, 50 connections) beside the same with no
//   stream open, so the streams' cost to everything else shows.
// Goals: at most 20 KB per stream; reply p99 under 50 ms; the info route keeps >= 0.9 of its rate.
import autocannon from 'autocannon';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  benchPlansFile,
  json,
  ownerWithAgent,
  percentile,
  report,
  round,
  rssMb,
  saveResults,
  spawnServer,
} from './lib.js';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 2000);
const REPLIES = Number(process.env.BENCH_STREAM_REPLIES ?? 100);
const DURATION_S = Number(process.env.BENCH_STREAM_SECONDS ?? 4);

interface OpenStream {
  /** resolves with the next `message` event's id */
  nextMessage(): Promise<string>;
  close(): void;
}

const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

/** Opens a visitor stream and resolves once its `ready` event came. */
function openStream(url: string): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers: { accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`${url}: ${res.statusCode}`));
      res.setEncoding('utf8');
      let buffer = '';
      let ready = false;
      const waiting: Array<(id: string) => void> = [];
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event === 'ready' && !ready) {
            ready = true;
            resolve({ nextMessage: () => new Promise((r) => waiting.push(r)), close: () => req.destroy() });
          } else if (event === 'message' && data) waiting.shift()?.(JSON.parse(data).id);
        }
      });
    });
    req.on('error', (err) => {
      if ((err as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(err);
    });
  });
}

async function infoRps(url: string): Promise<number> {
  const result = await autocannon({ url, connections: 50, duration: DURATION_S });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return round(result.requests.average, 0);
}

/** Replies into `conversationIds` in turn, timing each until the visitor's stream has it. */
async function replyLatencies(
  base: string,
  token: string,
  agentId: string,
  targets: Array<{ conversationId: string; stream: OpenStream }>,
): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < REPLIES; i++) {
    const { conversationId, stream } = targets[i % targets.length]!;
    const received = stream.nextMessage();
    const started = performance.now();
    const sent = await json(`${base}/api/chat/conversations/${agentId}/${conversationId}/reply`, {
      method: 'POST',
      token,
      body: JSON.stringify({ message: `Reply ${i}` }),
    });
    if ((await received) !== sent.id) throw new Error('the stream got another message');
    times.push(performance.now() - started);
  }
  return times;
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-streams-'));
try {
  const app = await spawnServer(['dist/main.js'], {
    DATA_DIR: dataDir,
    REGISTRATION: 'open',
    LOG_LEVEL: 'warn',
    PLANS_FILE: benchPlansFile(dataDir),
    DEFAULT_PLAN: 'bench',
    EMBEDDINGS: 'none',
  });
  const { token, agentId } = await ownerWithAgent(app.url);
  const infoUrl = `${app.url}/api/public/chatbot/${agentId}`;

  // one conversation per visitor (the agent has no provider: its canned answer is enough here)
  const sessions: Array<{ session: string; conversationId: string }> = [];
  for (let i = 0; i < STREAMS; i++) {
    const session = `bench-visitor-${i}`;
    const answer = await json(`${app.url}/api/public/chat/${agentId}`, {
      method: 'POST',
      body: JSON.stringify({ session_id: session, message: 'Hello' }),
    });
    sessions.push({ session, conversationId: answer.conversation_id });
  }
  // the reply targets are taken over once, before any figure
  const targets = sessions.slice(0, 10);
  for (const t of targets)
    await json(`${app.url}/api/chat/conversations/${agentId}/${t.conversationId}/take`, { method: 'POST', token });
  const streamUrl = (session: string) => `${app.url}/api/public/chat/${agentId}/events?session_id=${session}`;

  await autocannon({ url: infoUrl, connections: 10, duration: 2 }); // warm-up
  const single = await openStream(streamUrl(targets[0]!.session));
  const oneStream = await replyLatencies(app.url, token, agentId, [
    { conversationId: targets[0]!.conversationId, stream: single },
  ]);
  single.close();
  const rpsWithout = await infoRps(infoUrl);
  const rssBefore = rssMb(app.child.pid!);

  const opening = performance.now();
  const streams: OpenStream[] = [];
  for (let i = 0; i < sessions.length; i += 100) {
    streams.push(...(await Promise.all(sessions.slice(i, i + 100).map((s) => openStream(streamUrl(s.session))))));
  }
  const openMs = performance.now() - opening;
  const rssWith = rssMb(app.child.pid!);
  const manyStreams = await replyLatencies(
    app.url,
    token,
    agentId,
    targets.map((t, i) => ({ conversationId: t.conversationId, stream: streams[i]! })),
  );
  const rpsWith = await infoRps(infoUrl);
  for (const s of streams) s.close();
  await app.stop();

  const perStreamKb = round(((rssWith - rssBefore) * 1e6) / STREAMS / 1e3, 1);
  report({
    figure: 'live_streams_open',
    value: STREAMS,
    unit: 'streams',
    opened_in_ms: round(openMs, 0),
    rss_before_mb: rssBefore,
    rss_with_mb: rssWith,
  });
  report({
    figure: 'live_stream_memory_kb',
    value: perStreamKb,
    unit: 'KB per open stream',
    goal: '<= 20',
    met: perStreamKb <= 20,
  });
  const p99 = round(percentile(manyStreams, 99), 2);
  report({
    figure: 'live_reply_p50_ms',
    value: round(percentile(manyStreams, 50), 2),
    unit: 'ms',
    baseline: round(percentile(oneStream, 50), 2),
    baseline_of: 'one stream open',
  });
  report({
    figure: 'live_reply_p99_ms',
    value: p99,
    unit: 'ms',
    baseline: round(percentile(oneStream, 99), 2),
    baseline_of: 'one stream open',
    goal: '< 50',
    met: p99 < 50,
  });
  const ratio = round(rpsWith / rpsWithout, 3);
  report({
    figure: 'live_streams_info_rps',
    value: rpsWith,
    unit: 'req/s',
    baseline: rpsWithout,
    baseline_of: 'no stream open',
    ratio,
    goal: 'ratio >= 0.9',
    met: ratio >= 0.9,
  });
  saveResults('live-streams');
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
