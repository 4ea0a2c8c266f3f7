// Chat soak: the server (`node dist/main.js` with the flags of `npm start`) answers public chat
// turns without pause for BENCH_SOAK_S seconds (default 600) from 20 connections, each turn a new
// visitor session, against a zero-latency fake LLM (its own process) and an agent of 10k chunks
// with 1536-dim vectors. The server's RSS is read every 500 ms: its peak, and its size 5 s after
// the load stops. Goals (issue 31): peak <= 512 MB, after the soak <= 300 MB.
import autocannon from 'autocannon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { VectorIndex } from '../src/modules/knowledge/vector-index.js';
import { openDatabase } from '../src/platform/db/index.js';
import {
  benchPlansFile,
  percentile,
  report,
  round,
  rssMb,
  saveResults,
  spawnServer,
  spawnFakeLlmServer,
} from './lib.js';
import { seedAgentChunks, subjectSampler } from './seed.js';

const SOAK_S = Number(process.env.BENCH_SOAK_S ?? 600);
const CHUNKS = 10_000;
const CONNECTIONS = 20;
const QUESTION = 'What are your opening hours on the weekend?';

const fake = await spawnFakeLlmServer();
const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-soak-'));
try {
  const database = openDatabase(path.join(dataDir, 'chat-agent.db'));
  const index = new VectorIndex({
    sqlite: database.sqlite,
    embedderId: 'openai:text-embedding-3-small:1536',
    dimensions: 1536,
  });
  index.ensure();
  seedAgentChunks(database, index, 'bench-agent', CHUNKS, subjectSampler(1536, 11, 250));
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
  try {
    const pid = app.child.pid!;
    await new Promise((r) => setTimeout(r, 2000)); // settling time for the reading, not synchronisation
    const idle = rssMb(pid);
    const samples: number[] = [];
    const sampler = setInterval(() => samples.push(rssMb(pid)), 500);
    const load = await autocannon({
      url: `${app.url}/api/public/chat/bench-agent`,
      connections: CONNECTIONS,
      duration: SOAK_S,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: QUESTION, session_id: '[<id>]' }),
      idReplacement: true,
    });
    clearInterval(sampler);
    samples.push(rssMb(pid));
    const peak = Math.max(...samples);
    await new Promise((r) => setTimeout(r, 5000)); // settling time for the reading, not synchronisation
    const end = rssMb(pid);
    const common = {
      seconds: SOAK_S,
      connections: CONNECTIONS,
      chunks: CHUNKS,
      turns: load.requests.total,
      non_2xx: load.non2xx,
      errors: load.errors,
    };
    report({
      figure: 'soak_chat_peak_rss_mb',
      value: peak,
      unit: 'MB',
      baseline: idle,
      baseline_of: 'the same server idle before the soak',
      p50_during_mb: round(percentile(samples, 50), 1),
      goal: '<= 512 MB',
      met: peak <= 512 && load.non2xx === 0 && load.errors === 0,
      ...common,
    });
    report({
      figure: 'soak_chat_end_rss_mb',
      value: end,
      unit: 'MB',
      baseline: idle,
      baseline_of: 'the same server idle before the soak',
      note: '5 s after the load stopped',
      goal: '<= 300 MB',
      met: end <= 300,
      ...common,
    });
    report({ figure: 'soak_chat_turns_per_s', value: round(load.requests.average, 0), unit: 'turns/s', ...common });
  } finally {
    await app.stop();
  }
} finally {
  await fake.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
saveResults('soak');
