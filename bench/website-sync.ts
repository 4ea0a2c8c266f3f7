// A website source's sync (issue 38): a 500-page site crawled once, then 5 of its pages edited
// and the source synced. The sync's work is the pages it read again and the passages it embedded
// again; the baseline is the first crawl's (every page). Half the pages carry an ETag (answered
// 304), half none (fetched, known by the hash of their bytes). Embeddings go to the tests' fake
// OpenAI server in this process, which counts the texts it was asked to embed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/index.js';
import { openDatabase } from '../src/platform/db/index.js';
import { startFakeLlm } from '../test/helpers/fake-llm.js';
import { startLocalSite, type Page } from '../test/helpers/local-site.js';
import { benchOwnerAgent, benchPlansFile, report, round, saveResults } from './lib.js';
import { generator, passage } from './seed.js';

// the home page and 499 more: 500 pages, the most one website source holds (max_pages)
const PAGES = Number(process.env.BENCH_SYNC_PAGES ?? 499);
const CHANGED = 5;
const random = generator(7);
const pageHtml = (i: number, text: string, links: string[]) =>
  `<html><head><title>Page ${i}</title></head><body><main><h1>Page ${i}</h1><p>${text}</p>${links
    .map((l) => `<a href="${l}">${l}</a>`)
    .join(' ')}</main></body></html>`;

// a home page linking 25 section pages, each linking 20 pages: every page is reached by links
const pages: Record<string, Page | string> = {};
const paths = Array.from({ length: PAGES }, (_, i) => `/p/${i}`);
pages['/'] = pageHtml(
  0,
  'Home.',
  paths.filter((_, i) => i % 20 === 0),
);
for (const [i, p] of paths.entries()) {
  const links = i % 20 === 0 ? paths.slice(i + 1, i + 20) : [];
  const body = pageHtml(i, passage(random, i), links);
  pages[p] = i % 2 === 0 ? { body, etag: `"v1-${i}"` } : body;
}
const site = await startLocalSite(pages);
const fake = await startFakeLlm('openai', { reply: 'ok' });
const embedded = () =>
  fake.requests.filter((r) => r.kind === 'embed').reduce((n, r) => n + (r.body.input as string[]).length, 0);

const dir = mkdtempSync(path.join(tmpdir(), 'bench-sync-'));
const config = loadConfig({
  DATA_DIR: dir,
  REGISTRATION: 'open',
  LOG_LEVEL: 'silent',
  PLANS_FILE: benchPlansFile(dir),
  DEFAULT_PLAN: 'bench',
  ALLOW_PRIVATE_URLS: 'true',
  EMBEDDINGS: 'openai',
  OPENAI_API_KEY: 'sk-bench',
  OPENAI_BASE_URL: fake.baseURL,
});
const database = openDatabase(config.databaseFile);
const app = await buildApp({ config, database, logger: false });
await app.ready();
try {
  const { headers, agent } = await benchOwnerAgent(app);
  const sourceOf = async (id: string) =>
    (await app.inject({ method: 'GET', url: `/api/sources/chatbot/${agent.id}`, headers }))
      .json()
      .find((s: { id: string }) => s.id === id);

  let t = performance.now();
  const created = await app.inject({
    method: 'POST',
    url: `/api/sources/chatbot/${agent.id}/website`,
    headers,
    payload: { url: `${site.url}/`, max_pages: PAGES + 1 },
  });
  if (created.statusCode !== 201) throw new Error(`${created.statusCode} ${created.body}`);
  await app.jobs.idle();
  const firstS = (performance.now() - t) / 1000;
  const first = await sourceOf(created.json().id);
  if (first.status !== 'completed') throw new Error(`crawl: ${first.error_message}`);
  const firstEmbedded = embedded();

  for (let k = 0; k < CHANGED; k++) {
    const i = 1 + k * 97; // odd and even pages, with and without an ETag
    const body = pageHtml(i, `${passage(random, i + 10_000)} Changed.`, []);
    pages[paths[i]!] = i % 2 === 0 ? { body, etag: `"v2-${i}"` } : body;
  }
  const requestsBefore = site.requests.length;
  const notModifiedBefore = site.notModified.length;
  t = performance.now();
  await app.inject({ method: 'POST', url: `/api/sources/${first.id}/recrawl`, headers });
  await app.jobs.idle();
  const syncS = (performance.now() - t) / 1000;
  const synced = await sourceOf(first.id);
  if (synced.last_sync?.status !== 'completed') throw new Error(`sync: ${JSON.stringify(synced.last_sync)}`);
  const { added, changed, unchanged } = synced.last_sync;

  report({
    figure: 'website_sync_pages_read_again',
    value: added + changed,
    unit: 'pages',
    baseline: first.pages_done,
    baseline_of: 'the first crawl of the same site (every page read)',
    changed_pages: CHANGED,
    unchanged,
    answered_304: site.notModified.length - notModifiedBefore,
    requests: site.requests.length - requestsBefore,
  });
  report({
    figure: 'website_sync_passages_embedded_again',
    value: embedded() - firstEmbedded,
    unit: 'passages',
    baseline: firstEmbedded,
    baseline_of: 'the first crawl of the same site',
  });
  report({
    figure: 'website_sync_s',
    value: round(syncS),
    unit: 's',
    baseline: round(firstS),
    baseline_of: 'the first crawl of the same site',
    pages: PAGES + 1,
  });
  saveResults('website-sync');
} finally {
  await app.close();
  database.close();
  await site.close();
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
}
