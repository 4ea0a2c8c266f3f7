import { beforeAll, describe, expect, it } from 'vitest';
import { withPageAs } from '../helpers/admin.js';
import { useE2eApp } from '../helpers/e2e.js';
import { type LocalSite, type Page as SitePage, startLocalSite } from '../helpers/local-site.js';

/**
 * A website source's freshness in the admin UI (issue 38), in real Chromium against the real app
 * and a local site (ALLOW_PRIVATE_URLS; no model key, keyword retrieval): the owner sets the
 * source to sync daily (the next run shows), edits a page of the site, crawls again, reads "1
 * changed" and what changed, and sees "Check this" on the Q&A answer the changed page answered.
 */

const page = (title: string, text: string, links = '') =>
  `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1><p>${text}</p>${links}</body></html>`;
const PAGES: Record<string, SitePage | string> = {
  '/': page('Bakery', 'Welcome to the corner bakery.', '<a href="/hours">Hours</a> <a href="/story">Story</a>'),
  '/hours': { body: page('Hours', 'The bakery opens at seven.'), etag: '"v1"' },
  '/story': page('Story', 'Founded in 1998.'),
};

const e2e = useE2eApp({ owner: true, env: { ALLOW_PRIVATE_URLS: 'true' } });
let site: LocalSite;
beforeAll(async () => {
  site = e2e.track(await startLocalSite(PAGES));
}, 60_000);

describe('website sync in the admin UI', () => {
  it('sets a daily sync, crawls again after a page changed, shows what changed and which answer to check', async () => {
    const agent = await e2e.newAgent();
    await e2e.api('POST', `/api/sources/chatbot/${agent.id}/website`, { url: `${site.url}/`, max_pages: 5 });
    await e2e.t.app.jobs.idle();
    await e2e.api('POST', `/api/sources/chatbot/${agent.id}/qa`, {
      question: 'When does the bakery open?',
      answer: 'At seven every morning.',
    });

    await withPageAs(
      e2e.browser.context,
      e2e.appUrl,
      e2e.token,
      `#/agents/${agent.id}/knowledge`,
      async (p, errors) => {
        const sync = p.getByLabel('Sync automatically');
        await sync.waitFor();
        expect(await sync.inputValue()).toBe('off');
        await sync.selectOption('daily');
        await p.getByText(/syncs daily$/).waitFor();
        await p.getByText(/^Next: /).waitFor();

        PAGES['/hours'] = { body: page('Hours', 'The bakery opens at six.'), etag: '"v2"' };
        await p.getByRole('button', { name: `Crawl again: ${site.url}/` }).click();
        // the list is read again while the source processes: the sync's outcome shows when it ends
        await e2e.t.app.jobs.idle();
        await p.getByText(/^Last synced .*: 1 changed, 0 added, 0 removed, 2 unchanged\./).waitFor();
        await p.getByRole('button', { name: 'What changed' }).click();
        const syncs = p.getByRole('list', { name: 'Syncs' });
        await syncs
          .getByText(/\+1 -1 lines: "The bakery opens at six\." \(was "The bakery opens at seven\."\)/)
          .waitFor();
        await p.getByText(/Check this answer: the page .*\/hours it answers from changed/).waitFor();
        expect(errors).toEqual([]);
      },
    );
  }, 90_000);
});
