// Hostile (and heavy) inputs: how the real server (`node dist/main.js` with the flags of `npm
// start`, a separate process) behaves while it ingests inputs built to hurt it, one phase each, each
// on a freshly started server with the defaults: a PDF whose page inflates to 1024 MB of spaces, a
// 50 MB text file with no line break, a 5 MB page of deeply nested <div>s and a ~3.5 MB shop page
// (product cards, tables, links, an inline data script) crawled from a local site, a site of five
// such pages, and a 311-page PDF manual. For each phase: /api/health latency (one request at a time, every 50 ms, from just
// before the upload until the source leaves `processing`), the server's peak RSS (the process: its
// worker threads included; it starts no child process) beside its RSS just before the phase, its
// RSS once the phase is over, the source's final status and error, and the phase's duration.
// Goals: /api/health answers within 200 ms throughout; peak RSS <= 512 MB (issue 31).
// BENCH_HOSTILE=pdf_bomb,big_page runs a subset of the phases.
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
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { pdfExpandingTo } from '../test/helpers/documents.js';
import { generator, passage } from './seed.js';

const MB = 1_000_000;
const HEALTH_EVERY_MS = 50;
const RSS_EVERY_MS = 100;
const STATUS_EVERY_MS = 250;
const GIVE_UP_MS = 10 * 60 * 1000;
const HEALTH_GOAL_MS = 200;
const RSS_GOAL_MB = 512;

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

/**
 * A large page as shops and documentation sites really serve them (about `bytes`): a header menu,
 * product cards with class-heavy markup and links, specification tables, FAQ paragraphs under
 * headings, a footer of links, and an inline JSON data script (a framework's page state).
 */
function shopPage(bytes: number, seed = 7): Buffer {
  const random = generator(seed);
  const words = (n: number) =>
    passage(random, 0)
      .split(' ')
      .slice(2, 2 + n)
      .join(' ');
  const parts: string[] = ['<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop catalogue</title>'];
  parts.push('<link rel="stylesheet" href="/assets/site.css"></head><body>');
  parts.push('<header class="site-header sticky top-0 flex items-center"><nav class="main-nav"><ul>');
  for (let i = 0; i < 300; i++)
    parts.push(`<li class="nav-item"><a class="nav-link" href="/category/${i}">Category ${i}</a></li>`);
  parts.push('</ul></nav></header><main class="container mx-auto px-4">');
  const state: unknown[] = [];
  let size = parts.join('').length;
  const footer = '</main></body></html>';
  for (let section = 0; size < bytes * 0.7; section++) {
    const chunk: string[] = [
      `<section class="catalogue-section"><h2 id="s${section}">Range ${section}: ${words(4)}</h2>`,
    ];
    chunk.push(`<p class="lead text-lg">${words(60)}</p><div class="grid grid-cols-4 gap-4">`);
    for (let card = 0; card < 24; card++) {
      const id = section * 100 + card;
      state.push({ id, name: `Product ${id}`, price: (id % 300) + 0.99, tags: words(5).split(' '), stock: id % 17 });
      chunk.push(
        `<div class="product-card rounded-lg shadow hover:shadow-lg p-4 flex flex-col" data-product-id="${id}">`,
        `<a class="product-link block" href="/product/${id}"><img class="product-image w-full" src="/img/${id}.jpg" alt="Product ${id}" loading="lazy"></a>`,
        `<h3 class="product-title font-semibold"><a href="/product/${id}">Product ${id} ${words(3)}</a></h3>`,
        `<p class="product-description text-sm text-gray-600">${words(30)}</p>`,
        `<span class="price font-bold">${(id % 300) + 0.99} EUR</span> <span class="stock">${id % 17} in stock</span></div>`,
      );
    }
    chunk.push(
      '</div><h3>Specifications</h3><table class="spec-table"><thead><tr><th>Model</th><th>Size</th><th>Weight</th><th>Notes</th></tr></thead><tbody>',
    );
    for (let row = 0; row < 20; row++)
      chunk.push(
        `<tr><td>M-${section}-${row}</td><td>${row * 3} cm</td><td>${row * 0.4} kg</td><td>${words(8)}</td></tr>`,
      );
    chunk.push('</tbody></table><h3>Questions</h3>');
    for (let q = 0; q < 6; q++) chunk.push(`<h4>${words(6)}?</h4><p>${words(80)}</p>`);
    chunk.push('</section>');
    const html = chunk.join('');
    parts.push(html);
    size += html.length;
  }
  parts.push('<footer class="site-footer"><ul>');
  for (let i = 0; i < 300; i++) parts.push(`<li><a href="/info/${i}">Information page ${i}</a></li>`);
  parts.push('</ul></footer>');
  const json = JSON.stringify({ props: { pageProps: { products: state } } });
  parts.push(
    `<script id="__NEXT_DATA__" type="application/json">${json.slice(0, Math.max(0, bytes - size - footer.length - 200))}</script>`,
  );
  parts.push(footer);
  return Buffer.from(parts.join(''));
}

/**
 * A manual of `pages` pages as a word processor exports it: a heading and numbered subheadings in
 * bold, body paragraphs, a specification table every few pages, a running header and page numbers.
 */
async function manualPdf(pages: number): Promise<Buffer> {
  const random = generator(311);
  const doc = await PDFDocument.create();
  doc.setTitle('Appliance user manual');
  const body = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const mono = await doc.embedFont(StandardFonts.Courier);
  for (let p = 1; p <= pages; p++) {
    const page = doc.addPage([595, 842]);
    page.drawText('Appliance user manual', { x: 40, y: 815, size: 8, font: body });
    let y = 780;
    page.drawText(`${p}. ${passage(random, p).split(' ').slice(2, 7).join(' ')}`, { x: 40, y, size: 14, font: bold });
    y -= 26;
    for (let para = 0; y > 90 && para < 8; para++) {
      if (para % 3 === 1) {
        page.drawText(`${p}.${para} ${passage(random, para).split(' ').slice(2, 6).join(' ')}`, {
          x: 40,
          y,
          size: 11,
          font: bold,
        });
        y -= 18;
      }
      if (p % 4 === 0 && para === 2) {
        for (let row = 0; row < 8 && y > 90; row++) {
          const cells = [`Model ${row}`, `${row * 5} W`, `${row * 2 + 1} kg`, `IP${row}4`];
          cells.forEach((c, i) => page.drawText(c, { x: 40 + i * 120, y, size: 9, font: mono }));
          y -= 13;
        }
        y -= 8;
        continue;
      }
      const text = passage(random, para);
      for (let i = 0; i < text.length && y > 90; i += 100) {
        page.drawText(text.slice(i, i + 100), { x: 40, y, size: 9.5, font: body });
        y -= 12.5;
      }
      y -= 8;
    }
    page.drawText(String(p), { x: 290, y: 30, size: 9, font: body });
  }
  return Buffer.from(await doc.save());
}

/** Serves `pages` (by path; a Buffer alone is `/`) on 127.0.0.1; everything else, robots.txt and sitemap.xml included, is a 404. */
async function localSite(pages: Buffer | Map<string, Buffer>): Promise<{ url: string; close(): Promise<void> }> {
  const byPath = Buffer.isBuffer(pages) ? new Map([['/', pages]]) : pages;
  const server = http.createServer((req, res) => {
    const page = byPath.get(req.url ?? '');
    if (page) {
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
  add: (server: ServerProcess, auth: Record<string, string>, agentId: string) => Promise<Response>;
}

/** Peak RSS of `pid` sampled every 100 ms until stopped. */
function watchRss(pid: number): { stop(): number } {
  let peak = rssMb(pid);
  const sampler = setInterval(() => {
    try {
      peak = Math.max(peak, rssMb(pid));
    } catch {
      // the process is gone; the health requests fail and the outcome says so
    }
  }, RSS_EVERY_MS);
  return {
    stop: () => {
      clearInterval(sampler);
      try {
        peak = Math.max(peak, rssMb(pid));
      } catch {
        // gone
      }
      return peak;
    },
  };
}

/** One phase on a server of its own, started with the defaults and the flags of `npm start`. */
async function runPhase(phase: Phase, dir: string): Promise<void> {
  const dataDir = path.join(dir, `data-${phase.name}`);
  const server = await spawnServer(['dist/main.js'], {
    DATA_DIR: dataDir,
    REGISTRATION: 'open',
    LOG_LEVEL: 'silent',
    ALLOW_PRIVATE_URLS: 'true',
    PLANS_FILE: benchPlansFile(dir),
    DEFAULT_PLAN: 'bench',
  });
  try {
    const { token, agentId } = await ownerWithAgent(server.url);
    const auth = { authorization: `Bearer ${token}` };
    // baseline: health latency of the same server idle, sampled the same way
    const idleWatch = watchHealth(server.url);
    await new Promise((r) => setTimeout(r, 3000)); // a fixed sampling window, not synchronisation
    const idleHealth = (await idleWatch.stop()).latencies;

    const pid = server.child.pid!;
    const baselineRss = rssMb(pid);
    const rss = watchRss(pid);
    const health = watchHealth(server.url);
    const started = performance.now();
    let outcome: Outcome;
    try {
      outcome = await untilSettled(server, token, agentId, () => phase.add(server, auth, agentId));
    } catch (err) {
      outcome = { status: 'error', error: err instanceof Error ? err.message : String(err) };
    }
    const seconds = round((performance.now() - started) / 1000, 1);
    const { latencies, errors } = await health.stop();
    const peak = rss.stop();
    await new Promise((r) => setTimeout(r, 3000)); // settling time for the reading, not synchronisation
    const after = rssMb(pid);
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
      goal: `<= ${RSS_GOAL_MB} MB`,
      met: peak <= RSS_GOAL_MB,
      ...common,
    });
    report({
      figure: `${name}_rss_after_mb`,
      value: after,
      unit: 'MB',
      baseline: baselineRss,
      baseline_of: 'the same server just before the phase',
      note: '3 s after the source settled',
      ...common,
    });
    report({ figure: `${name}_outcome`, value: outcome.status, detail: outcome.error, ...common });
    report({ figure: `${name}_seconds`, value: seconds, unit: 's', ...common });
  } finally {
    await server.stop();
  }
}

const only = process.env.BENCH_HOSTILE?.split(',');
const dir = mkdtempSync(path.join(tmpdir(), 'bench-hostile-'));
const sites: Array<{ close(): Promise<void> }> = [];
try {
  // the inputs are made before any server starts, so the bench process is idle while it measures
  const pdfFile = path.join(dir, 'bomb.pdf');
  writeFileSync(pdfFile, await pdfExpandingTo(1024));
  const textFile = path.join(dir, 'one-line.txt');
  writeFileSync(textFile, oneLineText(50 * MB));
  const manualFile = path.join(dir, 'manual.pdf');
  writeFileSync(manualFile, await manualPdf(311));
  const nested = nestedHtml(5 * MB, 50_000);
  const nestedSite = await localSite(nested);
  sites.push(nestedSite);
  const shop = shopPage(4.5 * MB);
  const shopSite = await localSite(shop);
  sites.push(shopSite);
  // five such pages, each linking to the others through its menu (/category/0...)
  const shopPages = new Map([['/', shopPage(4.5 * MB, 11)]]);
  for (let i = 0; i < 4; i++) shopPages.set(`/category/${i}`, shopPage(4.5 * MB, 12 + i));
  const shopSiteOf5 = await localSite(shopPages);
  sites.push(shopSiteOf5);

  const upload =
    (file: string, name: string, type: string) =>
    async (server: ServerProcess, auth: Record<string, string>, agentId: string) => {
      const form = new FormData();
      form.append('file', await openAsBlob(file, { type }), name);
      return fetch(`${server.url}/api/sources/chatbot/${agentId}/file`, { method: 'POST', headers: auth, body: form });
    };
  const crawl = (url: string) => (server: ServerProcess, auth: Record<string, string>, agentId: string) =>
    fetch(`${server.url}/api/sources/chatbot/${agentId}/website`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ url, max_pages: 1 }),
    });
  const phases: Phase[] = [
    {
      name: 'pdf_bomb',
      before: 'RSS 170 MB -> 2.3 GB for 300 s; issue 31: peak 1.34 GB',
      input: `${round(statSync(pdfFile).size / MB, 2)} MB PDF, one page inflating to 1024 MiB of spaces`,
      add: upload(pdfFile, 'bomb.pdf', 'application/pdf'),
    },
    {
      name: 'one_line_text',
      before: 'all requests stalled 11.5 s, 2.7 GB RSS; issue 31: peak 554 MB',
      input: '50 MB .txt, words separated by single spaces, no line break',
      add: upload(textFile, 'one-line.txt', 'text/plain'),
    },
    {
      name: 'nested_html_page',
      before: 'a 5 MB page stalled the server 16 minutes (a 256 KB page 6.5 s)',
      input: `${round(nested.length / MB, 2)} MB HTML page of 50000 nested <div>s, crawled with max_pages 1`,
      add: crawl(nestedSite.url),
    },
    {
      name: 'big_page',
      before: 'issue 31: a 2.5-5 MB crawled page: about 1.1 GB, every request paused 1.6-4.3 s',
      input: `${round(shop.length / MB, 2)} MB shop page (product cards, tables, 600 menu links, inline JSON), crawled with max_pages 1`,
      add: crawl(shopSite.url),
    },
    {
      name: 'big_site',
      before: 'issue 31: every request paused 1.6-4.3 s once per page of 2.5-5 MB',
      input: `5 shop pages of ${round(shop.length / MB, 2)} MB each, linked by their menus, crawled with max_pages 5`,
      add: (server, auth, agentId) =>
        fetch(`${server.url}/api/sources/chatbot/${agentId}/website`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ url: shopSiteOf5.url, max_pages: 5 }),
        }),
    },
    {
      name: 'manual_pdf',
      before: 'issue 31: a real 311-page PDF manual: 321 MB',
      input: `${round(statSync(manualFile).size / MB, 2)} MB PDF manual of 311 pages (headings, tables, running header)`,
      add: upload(manualFile, 'manual.pdf', 'application/pdf'),
    },
  ];
  for (const phase of phases) if (!only || only.includes(phase.name)) await runPhase(phase, dir);
} finally {
  // the servers are stopped by their phases; then the local sites close
  for (const site of sites) await site.close();
  rmSync(dir, { recursive: true, force: true });
}
saveResults('hostile-inputs');
