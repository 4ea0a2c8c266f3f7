// Hostile inputs: how the real server (`node dist/main.js`, a separate process) behaves while it
// ingests inputs built to hurt it, one phase each: a PDF whose page inflates to 1024 MB of spaces,
// a 50 MB text file with no line break, and a 5 MB page of deeply nested <div>s crawled from a
// local site. For each phase: /api/health latency (one request at a time, every 50 ms, from just
// before the upload until the source leaves `processing`), the server's peak RSS beside its RSS
// just before the phase, the source's final status and error, and the phase's duration.
// Goal: /api/health answers within 200 ms throughout.
import { mkdtempSync, openAsBlob, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import { once } from 'node:events';
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
  type ServerProcess,
} from './lib.js';
import { pdfExpandingTo } from '../test/helpers/documents.js';

const MB = 1_000_000;
const HEALTH_EVERY_MS = 50;
const RSS_EVERY_MS = 100;
const STATUS_EVERY_MS = 250;
const GIVE_UP_MS = 10 * 60 * 1000;
const HEALTH_GOAL_MS = 200;

/** `bytes` of words separated by single spaces, without a line break anywhere. */
function oneLineText(bytes: number): Buffer {
  const words = Buffer.from(
    'the quick brown fox jumps over the lazy dog while support answers questions about opening hours prices and delivery ',
  );
  const out = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i += words.length) words.copy(out, i, 0, Math.min(words.length, bytes - i));
  out[bytes - 1] = 0x2e; // ends on a full stop, not a space
  return out;
}

/**
 * About `bytes` of HTML: `depth` <div>s each nested in the one before, each holding a few words
 * (padded so the page comes to the size asked for; the crawler takes pages up to 5 MiB).
 */
function nestedHtml(bytes: number, depth: number): Buffer {
  const head = '<!doctype html><html><head><title>Nested</title></head><body>';
  const foot = '</body></html>';
  const perLevel = Math.floor((bytes - head.length - foot.length) / depth) - '<div>'.length - '</div>'.length;
  const words = 'a few words at this level of the page about opening hours, prices and delivery times here and there';
  const level = (i: number) => {
    const text = `level ${i}: ${words}`;
    return `${text.length >= perLevel ? text.slice(0, perLevel - 1) : text.padEnd(perLevel - 1, '.')} `;
  };
  const parts: string[] = [head];
  for (let i = 0; i < depth; i++) parts.push('<div>', level(i));
  parts.push('</div>'.repeat(depth), foot);
  return Buffer.from(parts.join(''));
}

/** Serves `page` at / on 127.0.0.1 (everything else, robots.txt and sitemap.xml included, is a 404). */
async function localSite(page: Buffer): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': page.length });
      res.end(page);
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** Health requests one at a time, each started 50 ms after the one before (or at once when that one took longer). */
function watchHealth(base: string): { stop(): Promise<{ latencies: number[]; errors: number }> } {
  const latencies: number[] = [];
  let errors = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      try {
        const res = await fetch(`${base}/api/health`);
        await res.arrayBuffer();
        if (res.status !== 200) errors++;
      } catch {
        errors++;
      }
      const took = performance.now() - started;
      latencies.push(took);
      if (took < HEALTH_EVERY_MS) await new Promise((r) => setTimeout(r, HEALTH_EVERY_MS - took)); // the sampling interval
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { latencies, errors };
    },
  };
}

interface Outcome {
  status: string;
  error: string | null;
}

/** Starts the source with `add` (its 201 body), then polls the agent's sources until it is no longer processing. */
async function untilSettled(
  server: ServerProcess,
  token: string,
  agentId: string,
  add: () => Promise<Response>,
): Promise<Outcome> {
  const res = await add();
  const body = await res.text();
  if (res.status !== 201) return { status: 'rejected', error: `HTTP ${res.status}: ${body}` };
  const created = JSON.parse(body) as { id: string; status: string; error_message: string | null };
  let source = created;
  const deadline = performance.now() + GIVE_UP_MS;
  while (source.status === 'processing') {
    if (performance.now() > deadline) {
      // stop the work so the next phase starts on an idle server
      await fetch(`${server.url}/api/sources/${created.id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${token}` },
      }).catch(() => undefined);
      return { status: 'processing', error: `still processing after ${GIVE_UP_MS / 1000} s (deleted)` };
    }
    await new Promise((r) => setTimeout(r, STATUS_EVERY_MS)); // polling interval of a client watching the source
    const sources = (await json(`${server.url}/api/sources/chatbot/${agentId}`, { token })) as Array<typeof created>;
    source = sources.find((s) => s.id === created.id) ?? {
      ...created,
      status: 'missing',
      error_message: 'the source is gone from the list',
    };
  }
  return { status: source.status, error: source.error_message };
}

interface Phase {
  name: string;
  before: string;
  input: string;
  add: () => Promise<Response>;
}

async function runPhase(
  server: ServerProcess,
  token: string,
  agentId: string,
  phase: Phase,
  idleHealth: number[],
): Promise<void> {
  const pid = server.child.pid!;
  const baselineRss = rssMb(pid);
  let peak = baselineRss;
  const sampler = setInterval(() => {
    try {
      peak = Math.max(peak, rssMb(pid));
    } catch {
      // the process is gone; the health requests fail and the outcome says so
    }
  }, RSS_EVERY_MS);
  const health = watchHealth(server.url);
  const started = performance.now();
  let outcome: Outcome;
  try {
    outcome = await untilSettled(server, token, agentId, phase.add);
  } catch (err) {
    outcome = { status: 'error', error: err instanceof Error ? err.message : String(err) };
  }
  const seconds = round((performance.now() - started) / 1000, 1);
  const { latencies, errors } = await health.stop();
  clearInterval(sampler);
  try {
    peak = Math.max(peak, rssMb(pid));
  } catch {
    // gone
  }
  const name = `hostile_${phase.name}`;
  const common = { input: phase.input, before: phase.before };
  const idle = (p: number) => round(percentile(idleHealth, p));
  const max = round(Math.max(...latencies));
  report({
    figure: `${name}_health_p50_ms`,
    value: round(percentile(latencies, 50)),
    unit: 'ms',
    baseline: idle(50),
    baseline_of: 'the same server idle',
    requests: latencies.length,
    failed_requests: errors,
    ...common,
  });
  report({
    figure: `${name}_health_p99_ms`,
    value: round(percentile(latencies, 99)),
    unit: 'ms',
    baseline: idle(99),
    baseline_of: 'the same server idle',
    ...common,
  });
  report({
    figure: `${name}_health_max_ms`,
    value: max,
    unit: 'ms',
    baseline: idle(100),
    baseline_of: 'the same server idle',
    goal: `<= ${HEALTH_GOAL_MS} ms`,
    met: max <= HEALTH_GOAL_MS && errors === 0,
    ...common,
  });
  report({
    figure: `${name}_peak_rss_mb`,
    value: peak,
    unit: 'MB',
    baseline: baselineRss,
    baseline_of: 'the same server just before the phase',
    ...common,
  });
  report({ figure: `${name}_outcome`, value: outcome.status, detail: outcome.error, ...common });
  report({ figure: `${name}_seconds`, value: seconds, unit: 's', ...common });
}

const dir = mkdtempSync(path.join(tmpdir(), 'bench-hostile-'));
const running: Array<{ stop(): Promise<void> } | { close(): Promise<void> }> = [];
try {
  // the inputs are made before the server starts, so the bench process is idle while it measures
  const pdfFile = path.join(dir, 'bomb.pdf');
  writeFileSync(pdfFile, await pdfExpandingTo(1024));
  const textFile = path.join(dir, 'one-line.txt');
  writeFileSync(textFile, oneLineText(50 * MB));
  const page = nestedHtml(5 * MB, 50_000);
  const site = await localSite(page);
  running.push(site);

  const dataDir = path.join(dir, 'data');
  const server = await spawnServer(['dist/main.js'], {
    DATA_DIR: dataDir,
    REGISTRATION: 'open',
    LOG_LEVEL: 'silent',
    ALLOW_PRIVATE_URLS: 'true',
    PLANS_FILE: benchPlansFile(dir),
    DEFAULT_PLAN: 'bench',
  });
  running.push(server);
  const { token, agentId } = await ownerWithAgent(server.url);
  const auth = { authorization: `Bearer ${token}` };

  // baseline: health latency of the same server idle, sampled the same way
  const idleWatch = watchHealth(server.url);
  await new Promise((r) => setTimeout(r, 3000)); // a fixed sampling window, not synchronisation
  const idleHealth = (await idleWatch.stop()).latencies;

  const upload = (file: string, name: string, type: string) => async () => {
    const form = new FormData();
    form.append('file', await openAsBlob(file, { type }), name);
    return fetch(`${server.url}/api/sources/chatbot/${agentId}/file`, { method: 'POST', headers: auth, body: form });
  };
  const phases: Phase[] = [
    {
      name: 'pdf_bomb',
      before: 'RSS 170 MB -> 2.3 GB for 300 s',
      input: `${round(statSync(pdfFile).size / MB, 2)} MB PDF, one page inflating to 1024 MiB of spaces`,
      add: upload(pdfFile, 'bomb.pdf', 'application/pdf'),
    },
    {
      name: 'one_line_text',
      before: 'all requests stalled 11.5 s, 2.7 GB RSS',
      input: '50 MB .txt, words separated by single spaces, no line break',
      add: upload(textFile, 'one-line.txt', 'text/plain'),
    },
    {
      name: 'nested_html_page',
      before: 'a 5 MB page stalled the server 16 minutes (a 256 KB page 6.5 s)',
      input: `${round(page.length / MB, 2)} MB HTML page of 50000 nested <div>s, crawled with max_pages 1`,
      add: () =>
        fetch(`${server.url}/api/sources/chatbot/${agentId}/website`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ url: site.url, max_pages: 1 }),
        }),
    },
  ];
  for (const phase of phases) await runPhase(server, token, agentId, phase, idleHealth);
} finally {
  // the server stopped, then the local site closed; a failed run leaves neither behind
  for (const r of running.reverse()) await ('stop' in r ? r.stop() : r.close());
  rmSync(dir, { recursive: true, force: true });
}
saveResults('hostile-inputs');
