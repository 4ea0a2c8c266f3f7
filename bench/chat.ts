// Chat: public chat round trips with a zero-latency fake LLM (its own process, on loopback) and
// knowledge bases of 1k, 10k and 100k chunks with 1536-dim vectors (the fake embeds the
// question). Two figures per size:
// - turns/s with 100 connections, each turn a new visitor session (autocannon);
// - the app's overhead: one connection, sequential turns, p50/p99 of the app's round trip beside
//   the same calls made directly to the fake (one embedding + one completion) in the same run.
// Goals: overhead p99 <= 10 ms at 10k chunks; >= 500 chat turns/s.
import autocannon from 'autocannon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { VectorIndex } from '../src/modules/knowledge/vector-index.js';
import { openDatabase } from '../src/platform/db/index.js';
import { benchPlansFile, percentile, report, round, saveResults, spawnServer, spawnFakeLlmServer } from './lib.js';
import { seedAgentChunks, subjectSampler } from './seed.js';

const sizes = (process.env.BENCH_CHAT_SIZES ?? '1000,10000,100000').split(',').map(Number);
const SEQUENTIAL_TURNS = Number(process.env.BENCH_CHAT_TURNS ?? 300);
const DURATION_S = Number(process.env.BENCH_CHAT_SECONDS ?? 10);
const QUESTION = 'What are your opening hours on the weekend?';

async function timed(fn: () => Promise<Response>): Promise<number> {
  const t = performance.now();
  const res = await fn();
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`status ${res.status}`);
  return performance.now() - t;
}

const fake = await spawnFakeLlmServer();
try {
  for (const size of sizes) {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-chat-'));
    try {
      const database = openDatabase(path.join(dataDir, 'chat-agent.db'));
      const index = new VectorIndex({
        sqlite: database.sqlite,
        embedderId: 'openai:text-embedding-3-small:1536',
        dimensions: 1536,
      });
      index.ensure();
      seedAgentChunks(
        database,
        index,
        'bench-agent',
        size,
        subjectSampler(1536, 11, Math.max(50, Math.round(size / 40))),
      );
      database.close();

      const app = await spawnServer(['dist/main.js'], {
        DATA_DIR: dataDir,
        REGISTRATION: 'open',
        LOG_LEVEL: 'warn',
        PLANS_FILE: benchPlansFile(dataDir),
        DEFAULT_PLAN: 'bench',
        OPENAI_API_KEY: 'bench-key',
        OPENAI_BASE_URL: `${fake.url}/v1`,
        EMBEDDINGS: 'openai',
      });
      const chatUrl = `${app.url}/api/public/chat/bench-agent`;
      const turn = (sessionId: string) =>
        fetch(chatUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ message: QUESTION, session_id: sessionId }),
        });
      const direct = async () => {
        const e = await timed(() =>
          fetch(`${fake.url}/v1/embeddings`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
            body: JSON.stringify({
              model: 'text-embedding-3-small',
              input: [QUESTION],
              dimensions: 1536,
              encoding_format: 'base64',
            }),
          }),
        );
        const c = await timed(() =>
          fetch(`${fake.url}/v1/chat/completions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
            body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: QUESTION }] }),
          }),
        );
        return e + c;
      };
      // warm-up: JIT, connections, page cache
      for (let i = 0; i < 30; i++) {
        await timed(() => turn(randomUUID()));
        await direct();
      }
      const appMs: number[] = [];
      const directMs: number[] = [];
      for (let i = 0; i < SEQUENTIAL_TURNS; i++) {
        appMs.push(await timed(() => turn(randomUUID())));
        directMs.push(await direct());
      }
      const load = await autocannon({
        url: chatUrl,
        connections: 100,
        duration: DURATION_S,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: QUESTION, session_id: '[<id>]' }),
        idReplacement: true,
      });
      await app.stop();
      if (load.non2xx > 0) throw new Error(`chat load: ${load.non2xx} non-2xx answers`);

      const label = `${size / 1000}k`;
      const overheadP50 = round(percentile(appMs, 50) - percentile(directMs, 50));
      const overheadP99 = round(percentile(appMs, 99) - percentile(directMs, 99));
      report({
        figure: `chat_roundtrip_p50_ms_${label}`,
        value: round(percentile(appMs, 50)),
        unit: 'ms',
        baseline: round(percentile(directMs, 50)),
        baseline_of: 'the fake called directly (embedding + completion)',
      });
      report({
        figure: `chat_roundtrip_p99_ms_${label}`,
        value: round(percentile(appMs, 99)),
        unit: 'ms',
        baseline: round(percentile(directMs, 99)),
        baseline_of: 'the fake called directly',
      });
      report({ figure: `chat_overhead_p50_ms_${label}`, value: overheadP50, unit: 'ms' });
      report({
        figure: `chat_overhead_p99_ms_${label}`,
        value: overheadP99,
        unit: 'ms',
        ...(size === 10000 ? { goal: '<= 10 ms', met: overheadP99 <= 10 } : {}),
      });
      const turns = round(load.requests.average, 0);
      // errors: requests autocannon gave up on after its 10 s timeout (the queue was longer than that)
      report({
        figure: `chat_turns_per_s_${label}`,
        value: turns,
        unit: 'turns/s',
        p99_ms: load.latency.p99,
        timeouts: load.timeouts,
        errors: load.errors,
        connections: 100,
        goal: '>= 500',
        met: turns >= 500 && load.errors === 0,
      });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
} finally {
  await fake.stop();
}
saveResults('chat');
