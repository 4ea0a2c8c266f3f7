import { readdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { auth, ManualClock, startTestApp, useTestApps, send, accountWithAgent } from '../helpers/app.js';
import { startLocalSite } from '../helpers/local-site.js';
import { uploadFile } from '../helpers/sources.js';

/**
 * A source must never stay `processing` forever: a website whose server never answers is failed
 * by the watchdog once its time cap (60 minutes for websites) has passed, here seen at the next
 * start of the app on the same data, with the clock moved past the cap.
 */
describe('ingestion watchdog', () => {
  const apps = useTestApps();

  it('fails a source still processing after its cap, with a message, and stops its job', async () => {
    const site = apps.before(
      await startLocalSite({ '/': '<html><body><main><p>Never served in time.</p></main></body></html>' }),
    );
    const hold = site.hold('/');
    const clock = new ManualClock('2026-05-01T08:00:00.000Z');
    const env = { ALLOW_PRIVATE_URLS: 'true' };
    const first = await startTestApp({ env, clock });
    const { token, agent } = await accountWithAgent(first.app);
    const created = await send(first.app, token, 'POST', `/api/sources/chatbot/${agent.id}/website`, {
      url: `${site.url}/`,
    });
    expect(created.statusCode, created.body).toBe(201);
    await hold.reached; // the crawl is waiting on the page
    await first.close(); // shutdown: the job stops at a safe point and stays for the next start

    // 59 minutes later the source is still within its cap: the restarted job just runs again
    clock.advance(59 * 60_000);
    const second = await startTestApp({ env, clock, dataDir: first.dataDir });
    let list = await send(second.app, token, 'GET', `/api/sources/chatbot/${agent.id}`);
    expect(list.json()[0].status).toBe('processing');
    await second.close();

    // past 60 minutes the watchdog (run at start) fails it with a message
    clock.advance(2 * 60_000);
    const third = await apps.start({ env, clock, dataDir: first.dataDir });
    list = await third.app.inject({ method: 'GET', url: `/api/sources/chatbot/${agent.id}`, headers: auth(token) });
    const [source] = list.json();
    expect(source.status).toBe('failed');
    expect(source.error_message).toMatch(/did not finish within 60 minutes/);
    const jobsLeft = third.database.sqlite
      .prepare("SELECT count(*) AS n FROM jobs WHERE status IN ('queued', 'running')")
      .get() as { n: number };
    expect(jobsLeft.n).toBe(0);
    hold.release();
    await third.app.jobs.idle();
    list = await third.app.inject({ method: 'GET', url: `/api/sources/chatbot/${agent.id}`, headers: auth(token) });
    expect(list.json()[0].status).toBe('failed'); // a late answer does not bring it back
  });
});

/**
 * A job that keeps failing on an error that is not about the file (here the database refusing the
 * passages, as a disk fault would) is retried with backoff; after its last attempt the source is
 * `failed` with a message the owner can read, never left `processing` (it was, before: the queue
 * gave the job up but nothing told the source).
 */
describe('a source whose job fails for good', () => {
  const apps = useTestApps();

  it('ends failed with a readable message after the last attempt', async () => {
    const clock = new ManualClock('2026-05-01T08:00:00.000Z');
    const t = await apps.start({ env: { EMBEDDINGS: 'none' }, clock });
    // a fault on this connection only (a TEMP trigger), for this file's passages only
    t.database.sqlite.exec(
      "CREATE TEMP TRIGGER refuse_unlucky BEFORE INSERT ON main.chunks WHEN NEW.content LIKE '%unlucky%' BEGIN SELECT RAISE(ABORT, 'simulated write fault'); END",
    );
    const { token, agent } = await accountWithAgent(t.app);
    const unlucky = new TextEncoder().encode('An unlucky file whose passages the database refuses.');
    const created = await uploadFile(t, token, agent.id, 'unlucky.txt', unlucky);
    expect(created.statusCode, created.body).toBe(201);

    const statusNow = async () =>
      (await t.app.inject({ method: 'GET', url: `/api/sources/chatbot/${agent.id}`, headers: auth(token) })).json()[0];
    const seen: string[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      await t.app.jobs.idle(); // this attempt has run; the next waits for its backoff
      seen.push((await statusNow()).status);
      clock.advance(5 * 60_000);
    }
    expect(seen).toEqual(['processing', 'processing', 'failed']);
    const source = await statusNow();
    expect(source.error_message).toBe(
      'Processing failed 3 times because of an internal error. Try adding it again; if it keeps failing, the server log has the details.',
    );
    const job = t.database.sqlite
      .prepare('SELECT status, attempts, last_error FROM jobs WHERE subject_id = ?')
      .get(source.id);
    expect(job).toEqual({ status: 'failed', attempts: 3, last_error: 'simulated write fault' });
  });
});

describe('graceful stops during an ingestion', () => {
  const apps = useTestApps();

  /**
   * Issue 21.5: a graceful stop (SIGTERM) during an ingestion is no failure of the job. Three
   * restarts used to use up its three attempts: the source ended failed and its file was deleted.
   */
  it('restarts during an ingestion use up none of its attempts: after five, the source completes', async () => {
    const site = apps.before(
      await startLocalSite({
        '/': '<html><body><main><p>Parcels leave the depot every morning at eight.</p></main></body></html>',
      }),
    );
    const env = { ALLOW_PRIVATE_URLS: 'true' };
    let hold = site.hold('/');
    let t = await apps.start({ env });
    const { token, agent } = await accountWithAgent(t.app);
    const created = await send(t.app, token, 'POST', `/api/sources/chatbot/${agent.id}/website`, {
      url: `${site.url}/`,
    });
    expect(created.statusCode, created.body).toBe(201);
    for (let restart = 1; restart <= 5; restart++) {
      await hold.reached; // the job is running, waiting on the page
      await t.close(); // a graceful stop, as at SIGTERM
      const db = new Database(path.join(t.dataDir, 'chat-agent.db'), { readonly: true });
      const job = db.prepare('SELECT status, attempts FROM jobs WHERE subject_id = ?').get(created.json().id);
      db.close();
      expect(job, `after stop ${restart}`).toEqual({ status: 'queued', attempts: 0 });
      hold = site.hold('/');
      t = await apps.start({ env, dataDir: t.dataDir });
    }
    await hold.reached;
    hold.release();
    await t.app.jobs.idle();
    const list = await t.app.inject({ method: 'GET', url: `/api/sources/chatbot/${agent.id}`, headers: auth(token) });
    expect(list.json()[0]).toMatchObject({ status: 'completed', error_message: null });
  });
});

/** Issue 21.8: upload files of sources that ended, or of none, were never removed. */
describe('upload sweep', () => {
  it('at start (and every minute) removes upload files no source refers to, once an hour old', async () => {
    const first = await startTestApp();
    const { token, agent } = await accountWithAgent(first.app);
    const text = await send(first.app, token, 'POST', `/api/sources/chatbot/${agent.id}/text`, {
      name: 'n',
      content: 'Opening hours are nine to five.',
    });
    expect(text.statusCode).toBe(201);
    const uploads = path.join(first.dataDir, 'uploads');
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    const put = (name: string, old: boolean) => {
      writeFileSync(path.join(uploads, name), 'left behind');
      if (old) utimesSync(path.join(uploads, name), twoHoursAgo, twoHoursAgo);
    };
    put('orphan.pdf', true); // a crash between saving and recording
    put('ended.txt.part', true); // an upload cut off long ago
    put('arriving.part', false); // an upload being received right now
    put('waiting.txt', true); // a source still refers to it
    first.database.sqlite.prepare('UPDATE sources SET stored_path = ? WHERE id = ?').run('waiting.txt', text.json().id);
    await first.close();

    const second = await startTestApp({ dataDir: first.dataDir });
    try {
      expect(readdirSync(uploads).sort()).toEqual(['arriving.part', 'waiting.txt']);
    } finally {
      await second.cleanup();
    }
  });
});
