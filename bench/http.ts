// HTTP: requests/s and latency of GET /api/public/chatbot/{id} with 100 connections (autocannon),
// beside a bare Fastify route returning the same JSON, each server in its own node process.
// Goal: the app serves at least 0.7 of the bare route's requests/s.
// The two are measured in alternating rounds and each figure is the median over the rounds (the
// ratio: the median of the rounds' ratios): on a 2-core box shared with the load generator, one
// run of the bare route varied from 11k to 23k req/s.
import autocannon from 'autocannon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { benchPlansFile, json, ownerWithAgent, percentile, report, round, saveResults, spawnServer } from './lib.js';

const DURATION_S = Number(process.env.BENCH_HTTP_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_HTTP_ROUNDS ?? 5);

async function load(url: string) {
  const result = await autocannon({ url, connections: 100, duration: DURATION_S, pipelining: 1 });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(
      `${url}: ${result.non2xx} non-2xx, ${result.errors} errors (${result.timeouts} timeouts, ${result.resets} resets), ${result.requests.average} req/s, status ${JSON.stringify(result.statusCodeStats)}`,
    );
  return { rps: round(result.requests.average, 0), p50: result.latency.p50, p99: result.latency.p99 };
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-http-'));
try {
  const app = await spawnServer(['dist/main.js'], {
    DATA_DIR: dataDir,
    REGISTRATION: 'open',
    LOG_LEVEL: 'warn',
    PLANS_FILE: benchPlansFile(dataDir),
    DEFAULT_PLAN: 'bench',
  });
  const { agentId } = await ownerWithAgent(app.url);
  const publicUrl = `${app.url}/api/public/chatbot/${agentId}`;
  const body = await json(publicUrl);
  const bare = await spawnServer(['bench/bare-server.mjs'], { BARE_BODY: JSON.stringify(body) });

  // warm both up (JIT, connection setup) before measuring
  await autocannon({ url: publicUrl, connections: 10, duration: 2 });
  await autocannon({ url: `${bare.url}/api/public/chatbot/${agentId}`, connections: 10, duration: 2 });
  const rounds: Array<{ bare: Awaited<ReturnType<typeof load>>; app: Awaited<ReturnType<typeof load>> }> = [];
  for (let i = 0; i < ROUNDS; i++) {
    rounds.push({ bare: await load(`${bare.url}/api/public/chatbot/${agentId}`), app: await load(publicUrl) });
  }
  await bare.stop();
  await app.stop();

  const median = (f: (r: (typeof rounds)[number]) => number) => percentile(rounds.map(f), 50);
  const ratio = round(
    median((r) => r.app.rps / r.bare.rps),
    3,
  );
  const perRound = rounds.map((r) => `${r.app.rps}/${r.bare.rps}`).join(', ');
  report({
    figure: 'http_public_info_rps',
    value: median((r) => r.app.rps),
    unit: 'req/s',
    baseline: median((r) => r.bare.rps),
    baseline_of: `bare Fastify route, same JSON; median of ${ROUNDS} alternating rounds (app/bare: ${perRound})`,
    ratio,
    goal: 'ratio >= 0.7',
    met: ratio >= 0.7,
  });
  report({
    figure: 'http_public_info_p50_ms',
    value: median((r) => r.app.p50),
    unit: 'ms',
    baseline: median((r) => r.bare.p50),
    baseline_of: 'bare Fastify route',
  });
  report({
    figure: 'http_public_info_p99_ms',
    value: median((r) => r.app.p99),
    unit: 'ms',
    baseline: median((r) => r.bare.p99),
    baseline_of: 'bare Fastify route',
  });
  saveResults('http');
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
