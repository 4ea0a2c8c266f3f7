import { describe, expect, it } from 'vitest';
import { ManualClock, registerUser, send, sendExpect, type TestApp, useTestApps } from '../helpers/app.js';
import type { FakeLlm } from '../helpers/fake-llm.js';
import { type LocalSite, type Page, startLocalSite } from '../helpers/local-site.js';
import { appWithFakeLlm, listSources, postSource } from '../helpers/sources.js';

// Website sources that stay fresh (issue 38): a re-crawl is an incremental sync, and a source can
// sync by itself daily or weekly. A local site changes between syncs; the embedding requests are
// counted at the fake provider.

type Json = Record<string, any>;
const KEY = 'sk-test-sync-key-0123456789';
const apps = useTestApps();

const html = (title: string, body: string, links: string[] = []) =>
  `<html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${body}</p>${links
    .map((l) => `<a href="${l}">${l}</a>`)
    .join(' ')}</main></body></html>`;

/** the shop's site: a home page linking four pages, each kind of validator once */
function shopSite(): Record<string, Page | string> {
  return {
    '/': html('Home', 'Welcome to the bakery.', ['/hours', '/prices', '/story', '/cakes']),
    // ETag: answered 304 while it is the same
    '/hours': { body: html('Hours', 'The bakery opens at seven.'), etag: '"h1"' },
    // Last-Modified: answered 304 when not modified since
    '/prices': { body: html('Prices', 'A loaf costs three euros.'), lastModified: 'Tue, 03 Nov 2026 10:00:00 GMT' },
    // no validator: the same bytes are recognised by their hash
    '/story': html('Story', 'The bakery was founded by two sisters in 1998.'),
    '/cakes': html('Cakes', 'Lemon cake on Fridays.'),
  };
}

const embeddedTexts = (f: FakeLlm) =>
  f.requests.filter((r) => r.kind === 'embed').flatMap((r) => r.body.input as string[]);

const passages = (t: TestApp, sourceId: string) =>
  (
    t.database.sqlite.prepare('SELECT content FROM chunks WHERE source_id = ? ORDER BY ordinal').all(sourceId) as {
      content: string;
    }[]
  )
    .map((r) => r.content)
    .join('\n');

async function withSite(pages: Record<string, Page | string>, clock?: ManualClock, maxPages = 20) {
  const site: LocalSite = apps.before(await startLocalSite(pages));
  const { f, t, token, agent } = await appWithFakeLlm(apps, KEY, {
    env: { ALLOW_PRIVATE_URLS: 'true', EMBEDDINGS: 'openai' },
    ...(clock ? { clock } : {}),
  });
  const created = await postSource(t, token, agent.id, 'website', { url: `${site.url}/`, max_pages: maxPages });
  expect(created.statusCode, created.body).toBe(201);
  await t.app.jobs.idle();
  const source = created.json() as Json;
  const recrawl = async () => {
    await sendExpect(t.app, token, 'POST', `/api/sources/${source.id}/recrawl`, undefined, 202);
    await t.app.jobs.idle();
    return (await listSources(t, token, agent.id)).find((s) => s.id === source.id)!;
  };
  return { site, f, t, token, agent, source, recrawl };
}

describe('website sync', () => {
  it('a re-crawl reads only what changed: one page edited, one added, one removed, three unchanged', async () => {
    const pages = shopSite();
    const { site, f, t, token, source, recrawl } = await withSite(pages);
    expect(passages(t, source.id)).toContain('opens at seven');
    const firstEmbedded = embeddedTexts(f).length;
    expect(firstEmbedded).toBeGreaterThanOrEqual(5);

    pages['/hours'] = { body: html('Hours', 'The bakery opens at six.'), etag: '"h2"' };
    pages['/cakes'] = { body: 'gone', status: 404 };
    // a new page, found through the sitemap (the home page itself stays the same)
    pages['/sitemap.xml'] = {
      type: 'application/xml',
      // and a lastmod long past for the story: not even asked for
      body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${site.url}/news</loc></url><url><loc>${site.url}/story</loc><lastmod>2020-01-01</lastmod></url></urlset>`,
    };
    pages['/news'] = html('News', 'Sourdough workshop in December.');
    const before = site.requests.length;
    const synced = await recrawl();

    expect(synced).toMatchObject({
      status: 'completed',
      error_message: null,
      last_sync: { status: 'completed', added: 1, changed: 1, removed: 1, unchanged: 3 },
    });
    expect(synced.last_synced_at).toEqual(expect.any(String));
    // only the new and the changed page were embedded: their text and nothing else
    const embedded = embeddedTexts(f).slice(firstEmbedded);
    expect(embedded.length).toBeGreaterThan(0);
    expect(embedded.every((text) => /opens at six|Sourdough workshop/.test(text))).toBe(true);
    // the ETag and the Last-Modified page were answered 304; the home page (no validator) was fetched,
    // known by its bytes, not read again; the story, not modified since by the sitemap, not asked for
    expect(site.notModified).toEqual(['/prices']);
    const asked = site.requests.slice(before);
    expect(asked).toEqual(expect.arrayContaining(['/', '/hours', '/prices', '/cakes', '/news']));
    expect(asked).not.toContain('/story');
    const text = passages(t, source.id);
    expect(text).toContain('opens at six');
    expect(text).not.toContain('opens at seven');
    expect(text).not.toContain('Lemon cake');
    expect(text).toContain('Sourdough workshop');
    expect(text).toContain('founded by two sisters');

    const [record] = await sendExpect(t.app, token, 'GET', `/api/sources/${source.id}/syncs`);
    expect(record).toMatchObject({
      trigger: 'manual',
      status: 'completed',
      added: 1,
      changed: 1,
      removed: 1,
      unchanged: 3,
      details: {
        added: [`${site.url}/news`],
        changed: [{ url: `${site.url}/hours`, summary: expect.stringMatching(/opens at six.*was .*opens at seven/) }],
        removed: [`${site.url}/cakes`],
      },
    });

    // nothing changed since: nothing embedded, every page unchanged
    const embeddedSoFar = embeddedTexts(f).length;
    expect(await recrawl()).toMatchObject({ last_sync: { added: 0, changed: 0, removed: 0, unchanged: 5 } });
    expect(embeddedTexts(f).length).toBe(embeddedSoFar);
    // the ETag page is asked for with its ETag now and answered 304
    expect(site.notModified).toContain('/hours');
  });

  it('"check this": a Q&A answer and an answered gap whose question the changed page answered', async () => {
    const pages = shopSite();
    const { t, token, agent, source, recrawl } = await withSite(pages);
    const qa = await sendExpect(
      t.app,
      token,
      'POST',
      `/api/sources/chatbot/${agent.id}/qa`,
      {
        question: 'When does the bakery open?',
        answer: 'At seven every morning.',
      },
      201,
    );
    const story = await sendExpect(
      t.app,
      token,
      'POST',
      `/api/sources/chatbot/${agent.id}/qa`,
      {
        question: 'When was the shop founded?',
        answer: 'Two sisters.',
      },
      201,
    );
    // a visitor's question, thumbed down: a gap, answered by the owner in the words of the hours
    const session_id = 'sync-check-visitor';
    const reply = await sendExpect(
      t.app,
      null,
      'POST',
      `/api/public/chat/${agent.id}`,
      { message: 'Do you repair bicycles?', session_id },
      200,
    );
    // a thumbs-down makes it a gap whatever retrieval found
    await sendExpect(t.app, null, 'POST', `/api/public/chat/${agent.id}/feedback`, {
      session_id,
      message_id: reply.message_id,
      value: -1,
    });
    const [gap] = await sendExpect(t.app, token, 'GET', `/api/chatbots/${agent.id}/gaps`);
    await sendExpect(
      t.app,
      token,
      'POST',
      `/api/chatbots/${agent.id}/gaps/${gap.id}/answer`,
      {
        question: 'What time does the bakery open in the morning?',
        answer: 'At seven.',
      },
      201,
    );

    pages['/hours'] = { body: html('Hours', 'The bakery opens at six.'), etag: '"h2"' };
    await recrawl();
    const sources = await listSources(t, token, agent.id);
    const reasonOf = (id: string) => sources.find((s) => s.id === id)!.check_reason;
    expect(reasonOf(qa.id)).toMatch(
      /^Check this answer: the page http:\/\/127\.0\.0\.1:\d+\/hours it answers from changed \(\+1 -1 lines: "The bakery opens at six\."/,
    );
    // a page that did not change: nothing to check
    expect(reasonOf(story.id)).toBeNull();
    expect(reasonOf(source.id)).toBeNull();
    const [answered] = await sendExpect(t.app, token, 'GET', `/api/chatbots/${agent.id}/gaps?status=answered`);
    expect(answered.check_reason).toMatch(/^Check this answer: the page .*\/hours/);
    // the owner edits the answer: checked
    await sendExpect(t.app, token, 'PUT', `/api/sources/${qa.id}/qa`, { answer: 'At six every morning.' }, 200);
    expect((await listSources(t, token, agent.id)).find((s) => s.id === qa.id)!.check_reason).toBeNull();
  });

  it('a 100-page site with 5 pages changed costs 5 pages of work (bench/website-sync.ts: 500 pages)', async () => {
    const paths = Array.from({ length: 99 }, (_, i) => `/p/${i}`);
    const pages: Record<string, Page | string> = { '/': html('Home', 'Index.', paths) };
    for (const [i, p] of paths.entries())
      pages[p] =
        i % 2
          ? html(`Page ${i}`, `Fact number ${i}.`)
          : { body: html(`Page ${i}`, `Fact number ${i}.`), etag: `"${i}"` };
    const { site, f, recrawl } = await withSite(pages, undefined, 100);
    const firstEmbedded = embeddedTexts(f).length;
    expect(firstEmbedded).toBe(100);
    const changed = [3, 20, 41, 64, 97];
    for (const i of changed) pages[`/p/${i}`] = html(`Page ${i}`, `Fact number ${i}, revised.`);
    const notModified = site.notModified.length;
    const synced = await recrawl();
    expect(synced.last_sync).toMatchObject({ added: 0, changed: 5, removed: 0, unchanged: 95 });
    const embedded = embeddedTexts(f).slice(firstEmbedded);
    expect(embedded).toHaveLength(5);
    expect(embedded.every((text) => text.includes('revised'))).toBe(true);
    // the 48 unchanged pages with an ETag were answered 304 (the others were fetched and known by their hash)
    expect(site.notModified.length - notModified).toBe(48);
  });

  it('a site that is down, or mostly failing, changes nothing and says why', async () => {
    const pages = shopSite();
    const { t, source, recrawl } = await withSite(pages);
    const before = passages(t, source.id);

    for (const path of ['/hours', '/prices', '/story', '/cakes']) pages[path] = { body: 'oops', status: 500 };
    const failing = await recrawl();
    expect(failing).toMatchObject({
      status: 'completed',
      error_message: expect.stringMatching(
        /re-crawl failed \(4 of the 5 pages tried could not be read; nothing was changed\)/,
      ),
      last_sync: { status: 'failed', error: expect.stringMatching(/could not be read/) },
    });
    expect(passages(t, source.id)).toBe(before);

    pages['/'] = { body: 'down for maintenance', status: 503 };
    const down = await recrawl();
    expect(down.last_sync).toMatchObject({ status: 'failed', error: expect.stringMatching(/503/) });
    expect(passages(t, source.id)).toBe(before);
  });

  it('syncs by itself daily or weekly: the schedule is a durable job, spread within the hour', async () => {
    const clock = new ManualClock('2026-11-28T06:00:00.000Z');
    const pages = shopSite();
    const { t, token, agent, source } = await withSite(pages, clock);
    const url = `/api/sources/${source.id}/sync`;
    expect(source).toMatchObject({ sync_interval: 'off', next_sync_at: null, last_sync: null });

    const bad = await send(t.app, token, 'PUT', url, { interval: 'hourly' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().detail).toMatch(/^interval/);
    const text = await postSource(t, token, agent.id, 'text', { name: 'Note', content: 'Some words.' });
    const notWebsite = await send(t.app, token, 'PUT', `/api/sources/${text.json().id}/sync`, { interval: 'daily' });
    expect([notWebsite.statusCode, notWebsite.json().detail]).toEqual([
      400,
      'interval: only website sources are synced',
    ]);

    const weekly = await sendExpect(t.app, token, 'PUT', url, { interval: 'weekly' }, 200);
    expect(Date.parse(weekly.next_sync_at) - clock.now().getTime()).toBeGreaterThanOrEqual(7 * 86_400_000);
    expect(await sendExpect(t.app, token, 'PUT', url, { interval: 'off' }, 200)).toMatchObject({
      sync_interval: 'off',
      next_sync_at: null,
    });
    const daily = await sendExpect(t.app, token, 'PUT', url, { interval: 'daily' }, 200);
    expect(daily.sync_interval).toBe('daily');
    const due = Date.parse(daily.next_sync_at);
    const dayLater = Date.parse('2026-11-29T06:00:00.000Z');
    expect(due).toBeGreaterThanOrEqual(dayLater);
    expect(due).toBeLessThan(dayLater + 3_600_000);
    // another account's source answers like a missing one
    const { token: stranger } = await registerUser(t.app);
    const foreign = await send(t.app, stranger, 'PUT', url, { interval: 'daily' });
    const missing = await send(t.app, stranger, 'PUT', '/api/sources/no-such-source/sync', { interval: 'daily' });
    expect([foreign.statusCode, foreign.json()]).toEqual([missing.statusCode, missing.json()]);
    expect(foreign.statusCode).toBe(404);
    expect((await send(t.app, stranger, 'GET', `/api/sources/${source.id}/syncs`)).statusCode).toBe(404);

    // not due yet: nothing runs (the weekly and the cancelled jobs find the schedule moved on)
    const row = () =>
      t.database.sqlite.prepare('SELECT last_sync, next_sync_at FROM sources WHERE id = ?').get(source.id) as {
        last_sync: string | null;
        next_sync_at: string;
      };
    await t.app.syncJobs.idle();
    expect(row().last_sync).toBeNull();
    // its time comes (a day later: the owner's session has expired, the server syncs on its own)
    pages['/hours'] = { body: html('Hours', 'The bakery opens at six.'), etag: '"h2"' };
    clock.set(new Date(due + 1000).toISOString());
    await t.app.syncJobs.idle();
    await t.app.jobs.idle();
    expect(JSON.parse(row().last_sync!)).toMatchObject({ status: 'completed', changed: 1, unchanged: 4 });
    expect(Date.parse(row().next_sync_at)).toBeGreaterThan(due + 86_000_000);
    const syncs = t.database.sqlite.prepare('SELECT trigger FROM source_syncs WHERE source_id = ?').all(source.id);
    expect(syncs).toEqual([{ trigger: 'scheduled' }]);
  });
});
