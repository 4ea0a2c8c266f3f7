import { describe, expect, it } from 'vitest';
import { accountWithAgent, auth, registerUser, useTestApps, type TestApp } from '../helpers/app.js';
import type { FakeLlm } from '../helpers/fake-llm.js';
import { addText, appWithFakeLlm, listSources, postSource, postSourceForm } from '../helpers/sources.js';
import { startLocalSite, type LocalSite } from '../helpers/local-site.js';
import { keywordIndexRows } from '../helpers/seed.js';

/**
 * Website sources (docs/API.md "Source status": 400 for non-http(s) or internal
 * URLs unless ALLOW_PRIVATE_URLS) against a real web site on 127.0.0.1: links, sitemap.xml,
 * robots.txt, main content only, max_pages, include/exclude paths, progress, deletion mid-crawl.
 */

type Json = Record<string, any>;

const KEY = 'sk-test-website-key-0123456789';

const apps = useTestApps();
const setup = (env: Record<string, string> = { ALLOW_PRIVATE_URLS: 'true' }) => appWithFakeLlm(apps, KEY, { env });

const addWebsite = (t: TestApp, token: string, agentId: string, fields: Record<string, string>) =>
  postSourceForm(t, token, agentId, 'website', fields);

const addWebsiteJson = (t: TestApp, token: string, agentId: string, body: Record<string, unknown>) =>
  postSource(t, token, agentId, 'website', body);

function count(t: TestApp, sql: string, ...params: unknown[]): number {
  return (t.database.sqlite.prepare(sql).get(...params) as { n: number }).n;
}

function chunkTexts(t: TestApp, sourceId: string): string {
  return (
    t.database.sqlite
      .prepare('SELECT content FROM chunks WHERE source_id = ? ORDER BY ordinal')
      .all(sourceId) as Array<{ content: string }>
  )
    .map((r) => r.content)
    .join('\n');
}

async function systemPromptFor(t: TestApp, f: FakeLlm, agentId: string, message: string): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/public/chat/${agentId}`,
    payload: { message, session_id: `s-${Math.random()}` },
  });
  expect(res.statusCode, res.body).toBe(200);
  const messages: Json[] = f.requests.filter((r) => r.kind === 'chat').at(-1)!.body.messages;
  return messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n');
}

// ---- the site ----------------------------------------------------------------------------------

/** Each page's main content carries its own phrase; noise carries phrases that must never be stored. */
const MAIN = {
  '/': 'Harbourview Bakery sells rye loaves baked in a stone oven.',
  '/about': 'The bakery was founded by Ottilie Brask in a converted boathouse.',
  '/pricing': 'A Harbourview rye loaf costs four euros and twenty cents.',
  '/docs/intro': 'Wholesale customers order through the trade counter before noon.',
  '/docs/advanced': 'Pallet deliveries of flour arrive on alternate Thursdays.',
  '/blog/news': 'Our cardamom buns won the regional pastry medal this spring.',
  '/from-sitemap': 'Gluten-free spelt crackers are sold only on Saturdays.',
  '/private/secret': 'PRIVATEPHRASE staff door code.',
  '/private/listed': 'PRIVATEPHRASE listed in the sitemap.',
} as const;
const NOISE_WORDS = ['navzebraword', 'scriptwalrusword', 'stylenarwhalword', 'footerlemurword'];

/**
 * A page with navigation, scripts, styles and a footer around its content. With `bare`, there is
 * no <main>: the content sits in the body beside the noise (which must still be dropped); without,
 * a breadcrumb <nav> and a <script> sit inside <main> too.
 */
function html(title: string, main: string, links: string[], extra = '', bare = false): string {
  const nav = `<nav><a href="/">Home</a> navzebraword menu ${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</nav>`;
  const content = `<h1>${title}</h1><p>${main}</p>${extra}`;
  return `<!doctype html><html><head><title>${title}</title>
<style>body::after { content: "stylenarwhalword"; } .x { color: red }</style>
<script>window.tracking = "scriptwalrusword"; document.title = "scriptwalrusword";</script>
</head><body>
${nav}
${
  bare
    ? `<div class="content">${content}<script>var inline = "scriptwalrusword";</script><style>.y{content:"stylenarwhalword"}</style></div>`
    : `<main><nav aria-label="breadcrumb">navzebraword crumbs</nav>${content}<script>var inline = "scriptwalrusword";</script></main>`
}
<footer>footerlemurword copyright</footer>
<script src="/app.js"></script>
</body></html>`;
}

async function bakerySite(): Promise<LocalSite> {
  const pages: Record<string, { body: string; type?: string }> = {};
  const site = await startLocalSite(pages); // pages filled in below, once the port is known
  apps.before(site);
  Object.assign(pages, {
    '/robots.txt': { body: 'User-agent: *\nDisallow: /private\n', type: 'text/plain' },
    '/sitemap.xml': {
      type: 'application/xml',
      body: `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>${site.url}/from-sitemap</loc></url><url><loc>${site.url}/private/listed</loc></url></urlset>`,
    },
    '/': {
      body: html(
        'Home',
        MAIN['/'],
        ['/about', '/pricing', '/private/secret', '/blog/news'],
        '<p><a href="/docs/intro">Trade documentation</a></p>',
      ),
    },
    '/about': { body: html('About', MAIN['/about'], ['/pricing'], '', true) },
    '/pricing': { body: html('Pricing', MAIN['/pricing'], ['/about']) },
    '/docs/intro': { body: html('Intro', MAIN['/docs/intro'], [], '<a href="/docs/advanced">Next</a>') },
    '/docs/advanced': { body: html('Advanced', MAIN['/docs/advanced'], ['/docs/intro']) },
    '/blog/news': { body: html('News', MAIN['/blog/news'], [], '', true) },
    '/from-sitemap': { body: html('Crackers', MAIN['/from-sitemap'], []) },
    '/private/secret': { body: html('Secret', MAIN['/private/secret'], []) },
    '/private/listed': { body: html('Listed', MAIN['/private/listed'], []) },
  });
  return site;
}

const ALL_PAGES = ['/', '/about', '/pricing', '/docs/intro', '/docs/advanced', '/blog/news', '/from-sitemap'];

function pathsOf(site: LocalSite): string[] {
  return site.pageRequests().map((r) => new URL(r, site.url).pathname);
}

/**
 * A website source added by `add` (must be 201) with the site's request log cleared first; once
 * its crawl is done, the answer and the paths the crawl fetched, sorted.
 */
async function crawl(t: TestApp, site: LocalSite, add: () => ReturnType<typeof addWebsite>) {
  site.requests.length = 0;
  const res = await add();
  expect(res.statusCode, res.body).toBe(201);
  await t.app.jobs.idle();
  return { res, paths: [...pathsOf(site)].sort() };
}

/** The bakery site, an app and agent, and a crawl of the site (up to 20 pages) added (201) and held at /pricing. */
async function bakeryCrawlHeldAtPricing() {
  const site = await bakerySite();
  const { t, token, agent } = await setup();
  const hold = site.hold('/pricing');
  const res = await addWebsite(t, token, agent.id, { url: `${site.url}/`, max_pages: '20' });
  expect(res.statusCode, res.body).toBe(201);
  await hold.reached;
  return { site, t, token, agent, hold, res };
}

// ---------------------------------------------------------------------------------------------

describe('POST /api/sources/chatbot/{id}/website (ALLOW_PRIVATE_URLS=true, local site)', () => {
  it('crawls linked and sitemap pages, honours robots.txt, stores main content only, reports pages and completes', async () => {
    const site = await bakerySite();
    const { f, t, token, agent } = await setup();
    const res = await addWebsite(t, token, agent.id, { url: `${site.url}/`, max_pages: '20' });
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json();
    expect(created).toMatchObject({
      chatbot_id: agent.id,
      type: 'website',
      name: `${site.url}/`,
      url: `${site.url}/`,
      file_type: null,
      file_size: null,
      status: 'processing',
      error_message: null,
    });

    await t.app.jobs.idle();

    const [source] = await listSources(t, token, agent.id);
    expect(source).toMatchObject({
      id: created.id,
      status: 'completed',
      error_message: null,
      progress: 1,
      pages_done: ALL_PAGES.length,
      pages_found: ALL_PAGES.length,
    });

    // every allowed page once; robots.txt read; nothing under /private ever requested
    expect(site.requests).toContain('/robots.txt');
    expect([...pathsOf(site)].sort()).toEqual([...ALL_PAGES].sort());
    expect(site.requests.filter((r) => r.startsWith('/private'))).toEqual([]);
    expect(site.requests).not.toContain('/app.js');

    const stored = chunkTexts(t, created.id);
    for (const page of ALL_PAGES) expect(stored, page).toContain(MAIN[page as keyof typeof MAIN]);
    expect(stored).not.toContain('PRIVATEPHRASE');
    for (const word of NOISE_WORDS) expect(stored, word).not.toContain(word);
    expect(
      keywordIndexRows(
        t.database.sqlite,
        agent.id,
        'navzebraword',
        'scriptwalrusword',
        'stylenarwhalword',
        'footerlemurword',
      ),
    ).toBe(0);

    // what was crawled reaches the model, the sitemap-only page included
    const system = await systemPromptFor(t, f, agent.id, 'Do you sell spelt crackers?');
    expect(system).toContain(MAIN['/from-sitemap']);
    // each passage names its own page (title and URL), not the crawl's start page
    expect(system).toContain(`(source: ${site.url}/; page: `);
    expect(system).toContain(`(${site.url}/from-sitemap)`);
  });

  it('max_pages limits the pages fetched (default 1)', async () => {
    const site = await bakerySite();
    const { t, token, agent } = await setup();

    const two = await addWebsite(t, token, agent.id, { url: `${site.url}/`, max_pages: '2' });
    expect(two.statusCode, two.body).toBe(201);
    await t.app.jobs.idle();
    expect(pathsOf(site)).toHaveLength(2);
    expect(pathsOf(site)[0]).toBe('/');
    const [s2] = await listSources(t, token, agent.id);
    // found: / and /from-sitemap (read), /about, /pricing, /blog/news and /docs/intro (left at the cap)
    expect(s2).toMatchObject({ status: 'completed', pages_done: 2, pages_found: 6, progress: 1, page_cap_hit: true });

    site.requests.length = 0;
    const one = await addWebsite(t, token, agent.id, { url: `${site.url}/about` });
    expect(one.statusCode, one.body).toBe(201);
    await t.app.jobs.idle();
    expect(pathsOf(site)).toEqual(['/about']);
    const s1 = (await listSources(t, token, agent.id)).find((s) => s.id === one.json().id);
    // /about links to / and /pricing: found, not read
    expect(s1).toMatchObject({ status: 'completed', pages_done: 1, pages_found: 3, progress: 1, page_cap_hit: true });
    expect(chunkTexts(t, one.json().id)).toContain(MAIN['/about']);
    expect(chunkTexts(t, one.json().id)).not.toContain(MAIN['/pricing']);
  });

  it('include_paths keeps the crawl under those prefixes (besides the start page); exclude_paths are never fetched', async () => {
    const site = await bakerySite();
    const { t, token, agent } = await setup();

    /** A crawl from the site's start page, `fields` on top. */
    const crawlHome = (fields: Record<string, string>) =>
      crawl(t, site, () => addWebsite(t, token, agent.id, { url: `${site.url}/`, ...fields }));

    const inc = await crawlHome({ max_pages: '20', include_paths: '/docs' });
    expect(inc.paths).toEqual(['/', '/docs/advanced', '/docs/intro']);
    expect((await listSources(t, token, agent.id))[0]).toMatchObject({
      status: 'completed',
      pages_done: 3,
      pages_found: 3,
      progress: 1,
    });

    const exc = await crawlHome({ max_pages: '20', exclude_paths: '/docs/advanced, /pricing' });
    expect(exc.paths).toEqual(['/', '/about', '/blog/news', '/docs/intro', '/from-sitemap']);
    const stored = chunkTexts(t, exc.res.json().id);
    expect(stored).not.toContain(MAIN['/pricing']);
    expect(stored).not.toContain(MAIN['/docs/advanced']);

    // a JSON array works too
    const json = await crawlHome({ max_pages: '20', include_paths: '["/about", "/blog"]', exclude_paths: '["/blog"]' });
    expect(json.paths).toEqual(['/', '/about']);
  });

  it('refuses bad max_pages, include_paths and exclude_paths with 400 naming the field', async () => {
    const site = await bakerySite();
    const { t, token, agent } = await setup();
    const cases: Array<[Record<string, string>, string]> = [
      [{ max_pages: '0' }, 'max_pages'],
      [{ max_pages: '501' }, 'max_pages'],
      [{ max_pages: 'ten' }, 'max_pages'],
      [{ max_pages: '2.5' }, 'max_pages'],
      [{ include_paths: 'docs' }, 'include_paths'],
      [{ exclude_paths: '[1, 2]' }, 'exclude_paths'],
      [{ url: '' }, 'url'],
    ];
    for (const [fields, field] of cases) {
      const res = await addWebsite(t, token, agent.id, { url: `${site.url}/`, ...fields });
      expect(res.statusCode, `${JSON.stringify(fields)}: ${res.body}`).toBe(400);
      expect(res.json().detail).toMatch(new RegExp(`^${field}\\b`));
    }
    const missing = await addWebsite(t, token, agent.id, { max_pages: '3' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().detail).toMatch(/^url\b/);
    expect(await listSources(t, token, agent.id)).toEqual([]);
    expect(site.connections()).toBe(0);
  });

  it('reports progress while crawling: pages_done below pages_found mid-crawl, equal at the end', async () => {
    const { t, token, agent, hold } = await bakeryCrawlHeldAtPricing();

    const mid = (await listSources(t, token, agent.id))[0]!;
    expect(mid.status).toBe('processing');
    expect(mid.pages_done).toBeGreaterThanOrEqual(1);
    expect(mid.pages_found).toBeGreaterThan(mid.pages_done);
    expect(mid.pages_found).toBeLessThanOrEqual(ALL_PAGES.length);
    expect(mid.progress).toBeGreaterThan(0);
    expect(mid.progress).toBeLessThan(1);
    expect(mid.progress).toBeCloseTo(mid.pages_done / mid.pages_found, 5);

    hold.release();
    await t.app.jobs.idle();
    const [end] = await listSources(t, token, agent.id);
    expect(end).toMatchObject({
      status: 'completed',
      progress: 1,
      pages_done: ALL_PAGES.length,
      pages_found: ALL_PAGES.length,
    });
  });

  it('a start page that cannot be fetched, or that robots.txt disallows, ends as failed with a clear message', async () => {
    const site = await bakerySite();
    const { t, token, agent } = await setup();
    const missing = await addWebsite(t, token, agent.id, { url: `${site.url}/no-such-page` });
    const disallowed = await addWebsite(t, token, agent.id, { url: `${site.url}/private/secret`, max_pages: '5' });
    expect([missing.statusCode, disallowed.statusCode]).toEqual([201, 201]);
    await t.app.jobs.idle();
    const list = await listSources(t, token, agent.id);
    const m = list.find((s) => s.id === missing.json().id)!;
    const d = list.find((s) => s.id === disallowed.json().id)!;
    expect(m.status).toBe('failed');
    expect(m.error_message).toMatch(/404/);
    expect(d.status).toBe('failed');
    expect(d.error_message).toMatch(/robots/i);
    expect(site.requests.filter((r) => r.startsWith('/private'))).toEqual([]);
    expect(count(t, 'SELECT count(*) AS n FROM chunks')).toBe(0);
    expect(count(t, `SELECT count(*) AS n FROM jobs WHERE status IN ('queued', 'running')`)).toBe(0);
  });
});

describe('POST /api/sources/chatbot/{id}/website with a JSON body', () => {
  it('takes max_pages as a number and include_paths / exclude_paths as arrays of paths', async () => {
    const site = await bakerySite();
    const { t, token, agent } = await setup();

    /** A crawl from the site's start page, `fields` on top. */
    const crawlHome = (fields: Record<string, unknown>) =>
      crawl(t, site, () => addWebsiteJson(t, token, agent.id, { url: `${site.url}/`, ...fields }));

    const inc = await crawlHome({ max_pages: 5, include_paths: ['/docs', '/blog'] });
    expect(inc.paths).toEqual(['/', '/blog/news', '/docs/advanced', '/docs/intro']);
    expect(inc.res.json()).toMatchObject({ max_pages: 5 });
    expect((await listSources(t, token, agent.id))[0]).toMatchObject({
      id: inc.res.json().id,
      status: 'completed',
      pages_done: 4,
      pages_found: 4,
      max_pages: 5,
    });

    const exc = await crawlHome({ max_pages: 20, exclude_paths: ['/docs/advanced', ' /pricing '] });
    expect(exc.paths).toEqual(['/', '/about', '/blog/news', '/docs/intro', '/from-sitemap']);

    // a numeric string and the comma-separated form work in JSON as in a form; an empty array is no filter
    const str = await crawlHome({ max_pages: '3', include_paths: '/docs, /about', exclude_paths: [] });
    expect(str.paths).toEqual(['/', '/about', '/docs/intro']);

    // absent (or null) max_pages is the default, 1
    site.requests.length = 0;
    const dflt = await addWebsiteJson(t, token, agent.id, { url: `${site.url}/about`, max_pages: null });
    expect(dflt.statusCode, dflt.body).toBe(201);
    expect(dflt.json()).toMatchObject({ max_pages: 1 });
    await t.app.jobs.idle();
    expect(pathsOf(site)).toEqual(['/about']);
  });

  it('refuses wrong types and out-of-range values with 400 naming the field; nothing is stored', async () => {
    const site = await bakerySite();
    const { t, token, agent } = await setup();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ max_pages: 'abc' }, 'max_pages'],
      [{ max_pages: 0 }, 'max_pages'],
      [{ max_pages: 501 }, 'max_pages'],
      [{ max_pages: -3 }, 'max_pages'],
      [{ max_pages: 2.5 }, 'max_pages'],
      [{ max_pages: true }, 'max_pages'],
      [{ max_pages: [5] }, 'max_pages'],
      [{ max_pages: { n: 5 } }, 'max_pages'],
      [{ max_pages: '501' }, 'max_pages'],
      [{ include_paths: [1] }, 'include_paths'],
      [{ include_paths: {} }, 'include_paths'],
      [{ include_paths: 5 }, 'include_paths'],
      [{ include_paths: true }, 'include_paths'],
      [{ include_paths: ['docs'] }, 'include_paths'],
      [{ include_paths: ['/docs', null] }, 'include_paths'],
      [{ include_paths: Array.from({ length: 51 }, (_, i) => `/p${i}`) }, 'include_paths'],
      [{ include_paths: [`/${'a'.repeat(300)}`] }, 'include_paths'],
      [{ include_paths: 'docs' }, 'include_paths'],
      [{ exclude_paths: [1, 2] }, 'exclude_paths'],
      [{ exclude_paths: { '/docs': true } }, 'exclude_paths'],
      [{ exclude_paths: [['/docs']] }, 'exclude_paths'],
      [{ url: 5 }, 'url'],
      [{ url: ['http://x/'] }, 'url'],
    ];
    for (const [fields, field] of cases) {
      const res = await addWebsiteJson(t, token, agent.id, { url: `${site.url}/`, max_pages: 3, ...fields });
      expect(res.statusCode, `${JSON.stringify(fields)}: ${res.body}`).toBe(400);
      expect(res.json().detail, JSON.stringify(fields)).toMatch(new RegExp(`^${field}\\b`));
    }
    const notObject = await t.app.inject({
      method: 'POST',
      url: `/api/sources/chatbot/${agent.id}/website`,
      headers: auth(token),
      payload: [`${site.url}/`],
    });
    expect(notObject.statusCode).toBe(400);
    expect(notObject.json().detail).toMatch(/^body\b/);
    await t.app.jobs.idle();
    expect(await listSources(t, token, agent.id)).toEqual([]);
    expect(count(t, 'SELECT count(*) AS n FROM jobs')).toBe(0);
    expect(site.connections()).toBe(0);
  });
});

describe('the crawl report of a website source', () => {
  it('/index.html and /index.htm are the page / (and /docs/index.html is /docs/): each fetched once (issue 31 owner 9)', async () => {
    const pages: Record<string, { body: string }> = {
      '/': { body: html('Home', MAIN['/'], ['/index.html', '/index.htm', '/docs/', '/docs/index.html#top']) },
      '/index.html': { body: html('Home', MAIN['/'], ['/', '/index.htm', '/docs/', '/docs/index.html#top']) },
      '/index.htm': { body: html('Home', MAIN['/'], ['/']) },
      '/docs/': { body: html('Docs', MAIN['/docs/intro'], ['/docs/index.html', '/']) },
      '/docs/index.html': { body: html('Docs', MAIN['/docs/intro'], ['/docs/']) },
    };
    const site = await startLocalSite(pages);
    apps.before(site);
    const { t, token, agent } = await setup();
    const res = await addWebsiteJson(t, token, agent.id, { url: `${site.url}/index.html`, max_pages: 10 });
    expect(res.statusCode, res.body).toBe(201);
    await t.app.jobs.idle();
    // the start page as given, then /docs/; neither / nor another index file of a page already read
    expect(pathsOf(site)).toEqual(['/index.html', '/docs/']);
    const [source] = await listSources(t, token, agent.id);
    expect(source).toMatchObject({ status: 'completed', pages_done: 2, pages_found: 2, page_cap_hit: false });
  });

  it('a site with more pages than max_pages reports page_cap_hit and the counts; a crawl within the cap does not', async () => {
    const site = await bakerySite();
    const { t, token, agent } = await setup();

    const capped = await addWebsiteJson(t, token, agent.id, { url: `${site.url}/`, max_pages: 3 });
    expect(capped.statusCode, capped.body).toBe(201);
    // while processing nothing is known about the cap yet
    expect(capped.json()).toMatchObject({ max_pages: 3, pages_skipped: 0, page_cap_hit: null });
    await t.app.jobs.idle();
    expect(pathsOf(site)).toHaveLength(3);
    const [c] = await listSources(t, token, agent.id);
    expect(c).toMatchObject({
      id: capped.json().id,
      status: 'completed',
      pages_done: 3,
      // the pages found, not the pages done (issue 31 owner 9): /, /from-sitemap and /about were
      // read; /pricing, /blog/news and /docs/intro were found on them and left at the cap
      pages_found: 6,
      max_pages: 3,
      page_cap_hit: true,
      // /private/listed (sitemap) and /private/secret (link) are disallowed by robots.txt
      pages_skipped: 2,
      pages_skipped_by: { robots: 2, excluded: 0, not_html: 0, too_large: 0, failed: 0 },
    });

    const all = await addWebsite(t, token, agent.id, { url: `${site.url}/`, max_pages: '20' });
    expect(all.statusCode, all.body).toBe(201);
    await t.app.jobs.idle();
    const a = (await listSources(t, token, agent.id)).find((s) => s.id === all.json().id);
    expect(a).toMatchObject({
      status: 'completed',
      pages_done: ALL_PAGES.length,
      max_pages: 20,
      page_cap_hit: false,
      pages_skipped: 2,
    });

    // exactly as many pages as the cap: nothing was left, so the cap was not hit
    const exact = await addWebsite(t, token, agent.id, { url: `${site.url}/`, max_pages: String(ALL_PAGES.length) });
    await t.app.jobs.idle();
    const e = (await listSources(t, token, agent.id)).find((s) => s.id === exact.json().id);
    expect(e).toMatchObject({ status: 'completed', pages_done: ALL_PAGES.length, page_cap_hit: false });
  });

  it('pages disallowed by robots.txt, outside include_paths, excluded, not HTML, too large or failing are counted as skipped', async () => {
    const site = await startLocalSite({
      '/robots.txt': { body: 'User-agent: *\nDisallow: /docs/private\n', type: 'text/plain' },
      '/': html('Home', MAIN['/'], [
        '/docs/a',
        '/blog/x',
        '/docs/old/y',
        '/docs/private/z',
        '/docs/data',
        '/docs/gone',
        '/docs/big',
        '/docs/manual.pdf',
        'https://elsewhere.example/docs/q',
      ]),
      '/docs/a': html('A', MAIN['/docs/intro'], ['/docs/b', '/docs/private/z', '/blog/x']),
      '/docs/b': html('B', MAIN['/docs/advanced'], []),
      '/blog/x': html('X', MAIN['/blog/news'], []),
      '/docs/old/y': html('Y', MAIN['/about'], []),
      '/docs/private/z': html('Z', MAIN['/private/secret'], []),
      '/docs/data': { body: '{"not":"html"}', type: 'application/json' },
      '/docs/gone': { body: 'gone', status: 500 },
      '/docs/big': html('Big', 'x '.repeat(3 * 1024 * 1024), []),
      '/docs/manual.pdf': { body: '%PDF-1.4', type: 'application/pdf' },
    });
    apps.before(site);
    const { t, token, agent } = await setup();
    const res = await addWebsiteJson(t, token, agent.id, {
      url: `${site.url}/`,
      max_pages: 50,
      include_paths: ['/docs'],
      exclude_paths: ['/docs/old'],
    });
    expect(res.statusCode, res.body).toBe(201);
    await t.app.jobs.idle();
    expect([...pathsOf(site)].sort()).toEqual(['/', '/docs/a', '/docs/b', '/docs/big', '/docs/data', '/docs/gone']);
    const [s] = await listSources(t, token, agent.id);
    expect(s).toMatchObject({
      status: 'completed',
      pages_done: 3,
      pages_found: 3,
      max_pages: 50,
      page_cap_hit: false,
      pages_skipped: 7,
      pages_skipped_by: { robots: 1, excluded: 2, not_html: 2, too_large: 1, failed: 1 },
    });
  });

  it('file and text sources carry null crawl report fields', async () => {
    const { t, token, agent } = await setup();
    const added = await addText(t, token, agent.id, 'Hours', 'Open from nine to five.');
    expect(added).toMatchObject({
      max_pages: null,
      pages_skipped: null,
      pages_skipped_by: null,
      page_cap_hit: null,
    });
    expect((await listSources(t, token, agent.id))[0]).toMatchObject({
      max_pages: null,
      pages_skipped: null,
      pages_skipped_by: null,
      page_cap_hit: null,
    });
  });
});

describe('DELETE /api/sources/{id} of a website source mid-crawl', () => {
  it('answers 204, cancels the fetch, removes the source, its passages and its job; nothing reappears after the page answers', async () => {
    const { site, t, token, agent, hold, res } = await bakeryCrawlHeldAtPricing();
    const id = res.json().id;
    // pages before the held one are already stored
    expect(count(t, 'SELECT count(*) AS n FROM chunks WHERE source_id = ?', id)).toBeGreaterThan(0);
    expect(count(t, 'SELECT count(*) AS n FROM jobs WHERE subject_id = ?', id)).toBe(1);

    const del = await t.app.inject({ method: 'DELETE', url: `/api/sources/${id}`, headers: auth(token) });
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    // the job stopped before the answer: its request to the site was abandoned
    await hold.clientGone;
    expect(await listSources(t, token, agent.id)).toEqual([]);
    expect(count(t, 'SELECT count(*) AS n FROM sources WHERE id = ?', id)).toBe(0);
    expect(count(t, 'SELECT count(*) AS n FROM chunks WHERE source_id = ?', id)).toBe(0);
    expect(count(t, 'SELECT count(*) AS n FROM chunks')).toBe(0);
    expect(count(t, 'SELECT count(*) AS n FROM jobs WHERE subject_id = ?', id)).toBe(0);
    const requestsAtDelete = site.requests.length;

    hold.release();
    await t.app.jobs.idle();
    expect(await listSources(t, token, agent.id)).toEqual([]);
    expect(count(t, 'SELECT count(*) AS n FROM chunks')).toBe(0);
    expect(count(t, 'SELECT count(*) AS n FROM jobs')).toBe(0);
    expect(site.requests.length).toBe(requestsAtDelete); // the crawl did not go on
    expect((await t.app.inject({ method: 'DELETE', url: `/api/sources/${id}`, headers: auth(token) })).statusCode).toBe(
      404,
    );
  });
});

describe('POST /api/sources/chatbot/{id}/website with ALLOW_PRIVATE_URLS unset', () => {
  it('refuses non-http(s) and internal URLs with 400 naming url; nothing is stored and the site sees no connection', async () => {
    const site = await bakerySite();
    const { t, token, agent } = await setup({});
    expect(t.config.allowPrivateUrls).toBe(false);
    const port = site.port;
    const urls = [
      `${site.url}/`,
      `http://localhost:${port}/`,
      `http://LOCALHOST.:${port}/`,
      `http://[::1]:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      `http://127.1:${port}/`,
      `http://0.0.0.0:${port}/`,
      `http://2130706433:${port}/`,
      `http://0x7f000001:${port}/`,
      'http://10.0.0.1/',
      'http://192.168.1.1/',
      'http://172.16.0.1/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[fe80::1]/',
      'http://[fd00::1]/',
      'ftp://x',
      `ftp://127.0.0.1:${port}/`,
      'file:///etc/passwd',
      'javascript:alert(1)',
      'not-a-url',
      `//127.0.0.1:${port}/`,
      `127.0.0.1:${port}`,
      `http://user:pass@127.0.0.1:${port}/`,
    ];
    for (const url of urls) {
      const res = await addWebsite(t, token, agent.id, { url, max_pages: '5' });
      expect(res.statusCode, `${url}: ${res.body}`).toBe(400);
      expect(res.json().detail, url).toMatch(/^url\b/);
    }
    // JSON bodies are checked the same way
    const json = await t.app.inject({
      method: 'POST',
      url: `/api/sources/chatbot/${agent.id}/website`,
      headers: auth(token),
      payload: { url: `${site.url}/` },
    });
    expect(json.statusCode).toBe(400);

    await t.app.jobs.idle();
    expect(await listSources(t, token, agent.id)).toEqual([]);
    expect(count(t, 'SELECT count(*) AS n FROM sources')).toBe(0);
    expect(count(t, 'SELECT count(*) AS n FROM jobs')).toBe(0);
    expect(site.connections()).toBe(0);
    expect(site.requests).toEqual([]);
  });
});

describe('a website source crawled again, and its passages read back', () => {
  const page = (title: string, body: string) =>
    `<html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${body}</p></main></body></html>`;

  it('keeps answering from the last crawl until the new one completes; a failed re-crawl keeps it; the owner reads the passages with their page', async () => {
    const pages: Record<string, string> = { '/': page('Opening hours', 'The bakery opens at seven on weekdays.') };
    const site = await startLocalSite(pages);
    apps.before(site);
    const { t, token, agent } = await setup();
    const created = (await addWebsiteJson(t, token, agent.id, { url: `${site.url}/` })).json();
    await t.app.jobs.idle();

    const read = async (id: string, query = '') =>
      t.app.inject({ method: 'GET', url: `/api/sources/${id}/passages${query}`, headers: auth(token) });
    const first = (await read(created.id)).json();
    expect(first).toMatchObject({ total: 1, offset: 0, source: { id: created.id, status: 'completed' } });
    expect(first.passages).toEqual([
      {
        id: expect.any(Number),
        ordinal: 0,
        content: 'Opening hours\n\nThe bakery opens at seven on weekdays.',
        token_count: expect.any(Number),
        title: 'Opening hours',
        page_url: `${site.url}/`,
        page: null,
        heading: 'Opening hours',
      },
    ]);

    // the new crawl is held on its page: the old passage still answers meanwhile
    pages['/'] = page('Opening hours', 'The bakery now opens at six on weekdays.');
    const hold = site.hold('/');
    const again = await t.app.inject({
      method: 'POST',
      url: `/api/sources/${created.id}/recrawl`,
      headers: auth(token),
    });
    expect(again.statusCode, again.body).toBe(202);
    expect(again.json()).toMatchObject({ id: created.id, status: 'processing', progress: 0 });
    await hold.reached;
    const busy = await t.app.inject({
      method: 'POST',
      url: `/api/sources/${created.id}/recrawl`,
      headers: auth(token),
    });
    expect(busy.statusCode).toBe(409);
    expect(busy.json().detail).toMatch(/being crawled/);
    expect(chunkTexts(t, created.id)).toContain('seven');
    expect((await read(created.id)).json()).toMatchObject({
      total: 1,
      passages: [{ content: expect.stringContaining('seven') }],
    });
    hold.release();
    await t.app.jobs.idle();
    expect(chunkTexts(t, created.id)).toBe('Opening hours\n\nThe bakery now opens at six on weekdays.');
    expect((await listSources(t, token, agent.id))[0]).toMatchObject({
      status: 'completed',
      error_message: null,
      pages_done: 1,
    });

    // the site is down: the re-crawl fails, the passages of the crawl before stay and say so
    pages['/'] = page('x', 'x');
    await site.close();
    const down = await t.app.inject({
      method: 'POST',
      url: `/api/sources/${created.id}/recrawl`,
      headers: auth(token),
    });
    expect(down.statusCode).toBe(202);
    await t.app.jobs.idle();
    const [after] = await listSources(t, token, agent.id);
    // the report is the one of the crawl whose pages are still used
    expect(after).toMatchObject({
      status: 'completed',
      error_message: expect.stringMatching(/re-crawl failed.*still used/),
      pages_done: 1,
      pages_found: 1,
      page_cap_hit: false,
    });
    expect(chunkTexts(t, created.id)).toBe('Opening hours\n\nThe bakery now opens at six on weekdays.');

    // bad paging is a 400; other sources: text sources cannot be crawled, another account's is 404
    expect((await read(created.id, '?limit=0')).statusCode).toBe(400);
    expect((await read(created.id, '?offset=-1')).statusCode).toBe(400);
    const text = await postSource(t, token, agent.id, 'text', { name: 'Note', content: 'Some words.' });
    const notWebsite = await t.app.inject({
      method: 'POST',
      url: `/api/sources/${text.json().id}/recrawl`,
      headers: auth(token),
    });
    expect(notWebsite.statusCode).toBe(400);
    const { token: stranger } = await registerUser(t.app);
    for (const [method, url] of [
      ['GET', `/api/sources/${created.id}/passages`],
      ['POST', `/api/sources/${created.id}/recrawl`],
    ] as const) {
      const foreign = await t.app.inject({ method, url, headers: auth(stranger) });
      const missing = await t.app.inject({
        method,
        url: url.replace(created.id, 'no-such-source'),
        headers: auth(stranger),
      });
      expect(foreign.statusCode).toBe(404);
      expect(foreign.json()).toEqual(missing.json());
    }
  });
});

describe('ingestion is shared fairly between accounts', () => {
  /** the source's row once `done` says so; checks between turns of the event loop (the job runs meanwhile) */
  async function until(
    t: TestApp,
    token: string,
    agentId: string,
    sourceId: string,
    done: (s: Json) => boolean,
  ): Promise<Json> {
    for (let i = 0; i < 2000; i++) {
      const s = (await listSources(t, token, agentId)).find((x) => x.id === sourceId)!;
      if (done(s)) return s;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`source ${sourceId} never reached the state waited for`);
  }

  /** An app with an account and agent, and a one-page site (`text`) whose crawl was added and is held on that page. */
  async function heldCrawl(text: string) {
    const site = apps.before(await startLocalSite({ '/': `<html><body><main><p>${text}</p></main></body></html>` }));
    const { t, token, agent } = await setup();
    const hold = site.hold('/');
    const first = await addWebsiteJson(t, token, agent.id, { url: `${site.url}/` });
    await hold.reached;
    return { site, t, token, agent, hold, first };
  }

  it("one account's slow crawl does not hold up another account's source", async () => {
    // account A: a crawl held on its first page, then more sources queued behind it
    const { t, token, agent, hold, first } = await heldCrawl('Slow site text.');
    const slow = first.json();
    await addText(t, token, agent.id, 'n', 'Instant text.');
    // account B adds a website while A's crawl is still running: it is crawled meanwhile
    const { agent: otherAgent, ...other } = await accountWithAgent(t.app);
    const quickSite = await startLocalSite({ '/': '<html><body><main><p>Quick site text.</p></main></body></html>' });
    apps.before(quickSite);
    const quick = (await addWebsiteJson(t, other.token, otherAgent.id, { url: `${quickSite.url}/` })).json();
    const done = await until(t, other.token, otherAgent.id, quick.id, (s) => s.status !== 'processing');
    expect(done.status).toBe('completed');
    expect((await listSources(t, token, agent.id)).find((s) => s.id === slow.id)!.status).toBe('processing');
    hold.release();
    await t.app.jobs.idle();
    expect((await listSources(t, token, agent.id)).find((s) => s.id === slow.id)!.status).toBe('completed');
  });

  it('an account has at most 20 sources waiting to be processed; the next is 429 with a clear detail, and nothing is stored', async () => {
    const { site, t, token, agent, hold } = await heldCrawl('Held.');
    for (let i = 1; i < 20; i++)
      expect((await addWebsiteJson(t, token, agent.id, { url: `${site.url}/?p=${i}` })).statusCode, `source ${i}`).toBe(
        201,
      );
    const refused = await addWebsiteJson(t, token, agent.id, { url: `${site.url}/?p=20` });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().detail).toMatch(/20 sources are waiting/);
    expect(refused.headers['retry-after']).toBeDefined();
    expect(await listSources(t, token, agent.id)).toHaveLength(20);
    // another account is not affected
    const { agent: otherAgent, ...other } = await accountWithAgent(t.app);
    expect((await addWebsiteJson(t, other.token, otherAgent.id, { url: `${site.url}/?other=1` })).statusCode).toBe(201);
    hold.release();
    await t.app.jobs.idle();
  });
});
