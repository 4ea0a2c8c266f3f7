// Analytics bench: one account with 1,000,000 messages (3 agents, 100,000 conversations spread
// over the last 365 days), then the latency of dashboard, per-agent (30 and 365 days) and trends.
// Rows are seeded with SQL straight into the real SQLite file; the queries go through HTTP (inject).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/index.js';
import { openDatabase } from '../src/platform/db/index.js';
import { newId } from '../src/platform/ids.js';
import { benchPlansFile, percentile, report, round, saveResults } from './lib.js';

const MESSAGES = Number(process.env.BENCH_ANALYTICS_MESSAGES ?? 1_000_000);
const AGENTS = 3; // the free plan's limit
const PER_CONVERSATION = 10;

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-analytics-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    REGISTRATION: 'open',
    LOG_LEVEL: 'silent',
    PLANS_FILE: benchPlansFile(dataDir),
    DEFAULT_PLAN: 'bench',
  });
  const database = openDatabase(config.databaseFile);
  const app = await buildApp({ config, database, logger: false });
  await app.ready();
  const token = (
    await app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { name: 'b', email: 'b@example.com', password: 'benchmark-pass' },
    })
  ).json().access_token as string;
  const headers = { authorization: `Bearer ${token}` };
  const agentIds: string[] = [];
  for (let i = 0; i < AGENTS; i++)
    agentIds.push(
      (await app.inject({ method: 'POST', url: '/api/chatbots', headers, payload: { name: `agent ${i}` } })).json().id,
    );

  const seedStart = performance.now();
  const now = Date.now();
  const insertConversation = database.sqlite.prepare(
    "INSERT INTO conversations (id, chatbot_id, session_id, status, message_count, created_at, updated_at) VALUES (?, ?, ?, 'active', ?, ?, ?)",
  );
  const insertMessage = database.sqlite.prepare(
    'INSERT INTO messages (id, conversation_id, chatbot_id, role, content, timestamp, response_time_ms) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  database.sqlite.transaction(() => {
    for (let c = 0; c < MESSAGES / PER_CONVERSATION; c++) {
      const chatbotId = agentIds[c % AGENTS]!;
      const start = now - Math.floor(Math.random() * 365 * 86400_000);
      const conversationId = newId();
      const created = new Date(start).toISOString();
      insertConversation.run(conversationId, chatbotId, `s${c}`, PER_CONVERSATION, created, created);
      for (let m = 0; m < PER_CONVERSATION; m++) {
        const t = new Date(start + m * 30_000).toISOString();
        const role = m % 2 === 0 ? 'user' : 'assistant';
        insertMessage.run(
          newId(),
          conversationId,
          chatbotId,
          role,
          'hello',
          t,
          role === 'assistant' ? 400 + ((m * 37) % 2000) : null,
        );
      }
    }
  })();
  database.sqlite.pragma('optimize');
  report({
    figure: 'analytics_seed_seconds',
    value: round((performance.now() - seedStart) / 1000, 1),
    unit: 's',
    messages: MESSAGES,
  });

  const samplesOf = async (url: string) => {
    const samples: number[] = [];
    for (let i = 0; i < 15; i++) {
      const t0 = performance.now();
      const res = await app.inject({ method: 'GET', url, headers });
      samples.push(performance.now() - t0);
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
    }
    return samples;
  };
  // baseline: the cheapest authenticated read, GET /api/auth/me, in the same process and run
  const baseline = await samplesOf('/api/auth/me');
  const time = async (figure: string, url: string) => {
    const samples = await samplesOf(url);
    const p50 = round(percentile(samples, 50), 1);
    const max = round(Math.max(...samples), 1);
    report({
      figure,
      value: p50,
      unit: 'ms (median of 15)',
      max_ms: max,
      baseline: round(percentile(baseline, 50), 1),
      baseline_of: 'GET /api/auth/me',
      goal: '< 200 ms',
      met: max < 200,
    });
  };
  await time('analytics_dashboard_1m_messages', '/api/analytics/dashboard');
  await time('analytics_trends_30d_1m_messages', '/api/analytics/trends?days=30');
  await time('analytics_trends_365d_1m_messages', '/api/analytics/trends?days=365');
  await time('analytics_agent_365d_1m_messages', `/api/analytics/chatbot/${agentIds[0]}?days=365`);

  await app.close();
  database.close();
  rmSync(dataDir, { recursive: true, force: true });
  saveResults('analytics');
}

await main();
