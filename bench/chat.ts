// Chat: the product's own time in a visitor's turn, one visitor at a time, with a zero-latency
// fake LLM (its own process, on loopback) and knowledge bases of 1k, 10k and 100k chunks with
// 1536-dim vectors (the fake embeds the question). In BENCH_CHAT_ROUNDS rounds (default 5), each
// of BENCH_CHAT_TURNS turns (default 200) as a new visitor session:
// - overhead: the app's JSON round trip minus the same calls made directly to the fake (one
//   embedding + one completion), alternating, p50/p99 per round;
// - time to first token: from sending the question to the first `delta` event of the app's
//   stream, minus the fake's own (the embedding, then a streamed completion's first chunk).
// Requests are timed with node:http (bench/timed-post.ts says why not fetch). First, how steady
// the machine itself is (machine_units_3x_slower, bench/machine-stalls.ts).
// Then turns/s with 100 connections (autocannon), reported without a goal.
// Goals (the Retrieval and chat turn issue), at 10k chunks: overhead p99 <= 10 ms in every round;
// first-token overhead p50 <= 5 ms and p99 <= 10 ms.
// The floor beside them (chat_floor_*): the same rounds, alternating with the app's at 10k, against
// bench/floor-server.mjs, a Fastify server that only makes the two provider calls through the
// OpenAI SDK. What it shows is what this machine gives any Node.js server of that shape.
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { VectorIndex } from '../src/modules/knowledge/vector-index.js';
import { openDatabase } from '../src/platform/db/index.js';
import { serverNodeFlags } from '../scripts/node-flags.mjs';
import { benchPlansFile, percentile, report, round, saveResults, spawnFakeLlmServer, spawnServer } from './lib.js';
import { machineSteadiness } from './machine-stalls.js';
import { seedAgentChunks, subjectSampler } from './seed.js';
import { timedPost } from './timed-post.js';

const sizes = (process.env.BENCH_CHAT_SIZES ?? '1000,10000,100000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_CHAT_ROUNDS ?? 5);
const TURNS = Number(process.env.BENCH_CHAT_TURNS ?? 200);
const DURATION_S = Number(process.env.BENCH_CHAT_SECONDS ?? 10);
const QUESTION = 'What are your opening hours on the weekend?';

const steadiness = machineSteadiness();
report({
  figure: 'machine_units_3x_slower',
  value: steadiness.slowerThan3x,
  unit: `of ${steadiness.units} units of ~1 ms`,
  worst_ms: round(steadiness.worstMs),
  note: 'the machine alone, before the servers start (bench/machine-stalls.ts)',
});
const fake = await spawnFakeLlmServer();
const AUTH = { authorization: 'Bearer x' };
const embedUrl = new URL(`${fake.url}/v1/embeddings`);
const completeUrl = new URL(`${fake.url}/v1/chat/completions`);
const embedBody = JSON.stringify({
  model: 'text-embedding-3-small',
  input: [QUESTION],
  dimensions: 1536,
  encoding_format: 'base64',
});
const completeBody = (stream: boolean) =>
  JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: QUESTION }], stream });
const jsonCompletion = completeBody(false);
const streamedCompletion = completeBody(true);
/** ms of the two calls a turn makes, made directly to the fake: until the completion is read */
const directMs = async () =>
  (await timedPost(embedUrl, embedBody, AUTH)) + (await timedPost(completeUrl, jsonCompletion, AUTH));
/** the same, until the streamed completion's first content */
const directFirstTokenMs = async () => {
  const t = performance.now();
  await timedPost(embedUrl, embedBody, AUTH);
  return timedPost(completeUrl, streamedCompletion, AUTH, '"content"', t);
};

interface Round {
  overheadP50: number;
  overheadP99: number;
  ttftP50: number;
  ttftP99: number;
}

/**
 * A server's chat route, asked as a new visitor each turn: ms until the JSON answer is read, or
 * streamed when given the `marker` of its first piece of the answer, ms until that arrives.
 */
type Turn = (marker?: string) => Promise<number>;
function chatTurns(chatUrl: string): Turn {
  const url = new URL(chatUrl);
  return (marker) =>
    timedPost(
      url,
      JSON.stringify({ message: QUESTION, session_id: randomUUID() }),
      marker ? { accept: 'text/event-stream' } : {},
      marker,
    );
}

/** warm-up: JIT, connections, page cache, the agent's vectors loaded */
async function warmUp(turn: Turn): Promise<void> {
  for (let i = 0; i < 30; i++) {
    await turn();
    await turn('event: delta');
    await directMs();
    await directFirstTokenMs();
  }
}

/** One round of TURNS turns of each kind, each beside the same calls made directly to the fake. */
async function measureRound(turn: Turn): Promise<Round> {
  const appMs: number[] = [];
  const direct: number[] = [];
  const appFirst: number[] = [];
  const directFirst: number[] = [];
  for (let i = 0; i < TURNS; i++) {
    appMs.push(await turn());
    direct.push(await directMs());
    appFirst.push(await turn('event: delta'));
    directFirst.push(await directFirstTokenMs());
  }
  return {
    overheadP50: round(percentile(appMs, 50) - percentile(direct, 50)),
    overheadP99: round(percentile(appMs, 99) - percentile(direct, 99)),
    ttftP50: round(percentile(appFirst, 50) - percentile(directFirst, 50)),
    ttftP99: round(percentile(appFirst, 99) - percentile(directFirst, 99)),
  };
}

const worstOf = (rounds: Round[], key: keyof Round) => Math.max(...rounds.map((x) => x[key]));
const medianOf = (rounds: Round[], key: keyof Round) =>
  percentile(
    rounds.map((x) => x[key]),
    50,
  );

/** What the floor is, in each of its figures. */
const FLOOR = 'Fastify and the OpenAI SDK alone (bench/floor-server.mjs), rounds alternating with the app at 10k';

/** A figure of a run of rounds: the worst round for the overhead p99 (its goal is every round), else the median round. */
const ROUND_FIGURES: Array<{ key: keyof Round; name: string; worst?: true; goal?: [string, number] }> = [
  { key: 'overheadP50', name: 'chat_overhead_p50_ms' },
  { key: 'overheadP99', name: 'chat_overhead_p99_ms', worst: true, goal: ['<= 10 ms in every round', 10] },
  { key: 'ttftP50', name: 'chat_first_token_overhead_p50_ms', goal: ['<= 5 ms', 5] },
  { key: 'ttftP99', name: 'chat_first_token_overhead_p99_ms', goal: ['<= 10 ms', 10] },
];

/** The four figures of `rounds`, named by `named`; with `goals`, judged against the issue's. */
function reportRounds(
  rounds: Round[],
  named: (name: string) => string,
  opts: { goals?: boolean; note?: string },
): void {
  for (const f of ROUND_FIGURES) {
    const value = f.worst ? worstOf(rounds, f.key) : medianOf(rounds, f.key);
    const note = [f.worst ? `the worst of ${ROUNDS} rounds` : '', opts.note ?? ''].filter(Boolean).join('; ');
    report({
      figure: named(f.name),
      value,
      unit: 'ms',
      ...(note ? { note } : {}),
      rounds: rounds.map((x) => x[f.key]),
      ...(opts.goals && f.goal ? { goal: f.goal[0], met: value <= f.goal[1] } : {}),
    });
  }
}

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
      const turn = chatTurns(chatUrl);
      const at10k = size === 10000;
      // the floor alternates with the app at 10k, where the goals are
      const floor = at10k
        ? await spawnServer([...serverNodeFlags(), 'bench/floor-server.mjs'], { OPENAI_BASE_URL: `${fake.url}/v1` })
        : null;
      const floorTurn = floor ? chatTurns(`${floor.url}/api/public/chat/bench-agent`) : null;
      await warmUp(turn);
      if (floorTurn) await warmUp(floorTurn);
      const label = `${size / 1000}k`;
      const rounds: Round[] = [];
      const floorRounds: Round[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        rounds.push(await measureRound(turn));
        if (floorTurn) floorRounds.push(await measureRound(floorTurn));
      }
      await floor?.stop();
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

      reportRounds(rounds, (name) => `${name}_${label}`, { goals: at10k });
      if (floorRounds.length > 0)
        reportRounds(floorRounds, (name) => name.replace('chat_', 'chat_floor_'), { note: FLOOR });
      // errors: requests autocannon gave up on after its 10 s timeout (the queue was longer than that)
      report({
        figure: `chat_turns_per_s_${label}`,
        value: round(load.requests.average, 0),
        unit: 'turns/s',
        p99_ms: load.latency.p99,
        timeouts: load.timeouts,
        errors: load.errors,
        connections: 100,
      });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
} finally {
  await fake.stop();
}
saveResults('chat');
