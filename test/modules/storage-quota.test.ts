import { readdirSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { auth, makeDataDir, useTestApps, type TestApp, send, accountWithAgent } from '../helpers/app.js';
import { addText, postFile, uploadFile } from '../helpers/sources.js';
import { startLocalSite } from '../helpers/local-site.js';
import { KnowledgeRepo } from '../../src/modules/knowledge/repo.js';
import { StorageQuota } from '../../src/modules/knowledge/storage-quota.js';
import { PlanService } from '../../src/modules/limits/index.js';

/**
 * The plans' storage limit (issue 20.4): a free account once uploaded 5 x 60 MB in 1.4 s. What
 * counts is the text of an account's passages plus its uploads waiting on disk, and uploads being
 * received count as their bytes arrive.
 */

const MB = 1024 * 1024;
const apps = useTestApps();

/** `free` with 1 MB of storage, `empty` with none; plenty of everything else */
async function start(env: Record<string, string> = {}): Promise<TestApp> {
  const dir = makeDataDir();
  const generous = {
    max_agents: 10,
    max_account_leads: 100,
    monthly_messages: 100000,
    requests_per_minute: 100000,
    requests_per_hour: 1000000,
    custom_branding: false,
  };
  const plans = path.join(dir, 'plans.json');
  writeFileSync(
    plans,
    JSON.stringify({ free: { ...generous, max_storage_mb: 1 }, empty: { ...generous, max_storage_mb: 0 } }),
  );
  const t = await apps.start({ env: { PLANS_FILE: plans, ...env } });
  return t;
}

/** Plain text of about `bytes` bytes, in paragraphs of distinct sentences. */
function text(bytes: number, tag = 'x'): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `Paragraph ${tag}${i} says the delivery window for order ${i} is ${i % 7} days and the fee is ${i % 13} euros.\n\n`;
    lines.push(line);
    size += line.length;
  }
  return lines.join('').slice(0, bytes);
}

const uploadText = (t: TestApp, token: string, agentId: string, name: string, content: string) =>
  uploadFile(t, token, agentId, name, new TextEncoder().encode(content));

function storedBytes(t: TestApp): number {
  const row = t.database.sqlite
    .prepare(
      'SELECT coalesce(sum(passage_bytes), 0) AS passages, (SELECT coalesce(sum(length(CAST(content AS BLOB))), 0) FROM chunks) AS actual FROM sources',
    )
    .get() as { passages: number; actual: number };
  // the kept count matches the passages really stored
  expect(row.passages).toBe(row.actual);
  return row.passages;
}

async function sourceOf(t: TestApp, token: string, agentId: string, id: string): Promise<any> {
  const list = (
    await t.app.inject({ method: 'GET', url: `/api/sources/chatbot/${agentId}`, headers: auth(token) })
  ).json();
  return list.find((s: { id: string }) => s.id === id);
}

/** `res` accepted a source (201) whose ingestion then failed on the storage limit, leaving nothing stored. */
async function expectFailedForStorage(
  t: TestApp,
  token: string,
  agentId: string,
  res: { statusCode: number; body: string; json(): any },
) {
  expect(res.statusCode, res.body).toBe(201);
  await t.app.jobs.idle();
  const source = await sourceOf(t, token, agentId, res.json().id);
  expect(source.status).toBe('failed');
  expect(source.error_message).toContain('Storage limit reached');
  expect(storedBytes(t)).toBe(0);
}

function partFiles(t: TestApp): string[] {
  return readdirSync(path.join(t.dataDir, 'uploads'));
}

function expectStorageLimit(res: { statusCode: number; body: string; json: () => any }, max = MB): void {
  expect(res.statusCode, res.body).toBe(403);
  const detail = res.json().detail;
  expect(detail).toMatchObject({ max, upgrade_required: true });
  expect(detail.message).toContain('Storage limit reached');
  expect(detail.current).toBeGreaterThanOrEqual(0);
}

describe('storage limit', () => {
  it('uploads sent at once count as they arrive: of five 300 KB uploads on a 1 MB plan at most three are kept, the rest 403', async () => {
    const t = await start();
    const { token, agent } = await accountWithAgent(t.app);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const answers = await Promise.all(
      [1, 2, 3, 4, 5].map(async (n) => {
        const res = await postFile(base, token, agent.id, `part-${n}.txt`, text(300_000, `u${n}-`));
        return { status: res.status, body: (await res.json()) as { detail: unknown } };
      }),
    );
    const accepted = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status !== 201);
    expect(accepted.length).toBeGreaterThanOrEqual(1);
    expect(accepted.length).toBeLessThanOrEqual(3);
    for (const r of refused) {
      expect(r.status).toBe(403);
      expect(r.body.detail).toMatchObject({ max: MB, upgrade_required: true });
    }
    // nothing of the refused uploads is left on disk, and no source was recorded for them
    await t.app.jobs.idle();
    const sources = (
      await t.app.inject({ method: 'GET', url: `/api/sources/chatbot/${agent.id}`, headers: auth(token) })
    ).json();
    expect(sources).toHaveLength(accepted.length);
    expect(partFiles(t)).toEqual([]);
    expect(storedBytes(t)).toBeLessThanOrEqual(MB);
  });

  it('a file whose passages would pass the limit fails with the reason and keeps nothing; a smaller one then fits', async () => {
    const t = await start();
    const { token, agent } = await accountWithAgent(t.app);
    // 990 KB is accepted as an upload, but its passages (with their overlap) come to more than 1 MB
    const big = await uploadText(t, token, agent.id, 'big.txt', text(990_000));
    await expectFailedForStorage(t, token, agent.id, big);
    expect(partFiles(t)).toEqual([]);

    const small = await uploadText(t, token, agent.id, 'small.txt', text(200_000));
    expect(small.statusCode, small.body).toBe(201);
    await t.app.jobs.idle();
    expect((await sourceOf(t, token, agent.id, small.json().id)).status).toBe('completed');
    expect(storedBytes(t)).toBeGreaterThan(200_000);
  });

  it('a text source over the room left is 403 and stores nothing; deleting a source gives its room back', async () => {
    const t = await start();
    const { token, agent } = await accountWithAgent(t.app);
    const addText = (content: string) =>
      t.app.inject({
        method: 'POST',
        url: `/api/sources/chatbot/${agent.id}/text`,
        headers: auth(token),
        payload: { name: 'notes', content },
      });
    const first = await addText(text(600_000, 'a'));
    expect(first.statusCode, first.body).toBe(201);
    const used = storedBytes(t);
    const second = await addText(text(600_000, 'b'));
    expectStorageLimit(second);
    expect(second.json().detail.current).toBe(used);
    expect(storedBytes(t)).toBe(used);
    expect(
      (await t.app.inject({ method: 'GET', url: `/api/sources/chatbot/${agent.id}`, headers: auth(token) })).json(),
    ).toHaveLength(1);

    expect(
      (await t.app.inject({ method: 'DELETE', url: `/api/sources/${first.json().id}`, headers: auth(token) }))
        .statusCode,
    ).toBe(204);
    expect(storedBytes(t)).toBe(0);
    expect((await addText(text(600_000, 'b'))).statusCode).toBe(201);
  });

  it('an account with no room left gets 403 for every kind of source, before any upload is read', async () => {
    const t = await start({ DEFAULT_PLAN: 'empty', ALLOW_PRIVATE_URLS: 'true' });
    const { token, agent } = await accountWithAgent(t.app);
    expectStorageLimit(await uploadText(t, token, agent.id, 'a.txt', 'Opening hours are nine to five.'), 0);
    expectStorageLimit(
      await t.app.inject({
        method: 'POST',
        url: `/api/sources/chatbot/${agent.id}/text`,
        headers: auth(token),
        payload: { name: 'n', content: 'Opening hours are nine to five.' },
      }),
      0,
    );
    expectStorageLimit(
      await t.app.inject({
        method: 'POST',
        url: `/api/sources/chatbot/${agent.id}/website`,
        headers: auth(token),
        payload: { url: 'http://127.0.0.1:9/' },
      }),
      0,
    );
    expect(
      (await t.app.inject({ method: 'GET', url: `/api/sources/chatbot/${agent.id}`, headers: auth(token) })).json(),
    ).toEqual([]);
    expect(partFiles(t)).toEqual([]);
  });

  it('a crawl that passes the limit fails with the reason and keeps none of its pages', async () => {
    const pages: Record<string, string> = {
      '/': `<html><body><h1>Home</h1>${[1, 2, 3, 4, 5, 6].map((n) => `<a href="/p${n}">p${n}</a>`).join(' ')}</body></html>`,
    };
    for (const n of [1, 2, 3, 4, 5, 6])
      pages[`/p${n}`] =
        `<html><head><title>Page ${n}</title></head><body><main><p>${text(250_000, `p${n}-`).replace(/\n\n/g, '</p><p>')}</p></main></body></html>`;
    const site = await startLocalSite(pages);
    apps.after(site);
    const t = await start({ ALLOW_PRIVATE_URLS: 'true' });
    const { token, agent } = await accountWithAgent(t.app);
    const added = await send(t.app, token, 'POST', `/api/sources/chatbot/${agent.id}/website`, {
      url: `${site.url}/`,
      max_pages: 10,
    });
    await expectFailedForStorage(t, token, agent.id, added);
  });

  it('uploads sent together: the refusal states the real figures (used, being uploaded, this file, the limit), and the one that fits is accepted (issue 31 point 5)', async () => {
    const t = await start();
    const { token, agent } = await accountWithAgent(t.app);
    await addText(t, token, agent.id, 'notes', text(300_000, 'n'));
    const used = storedBytes(t);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    // about 0.7 MB are free: one of the two 450 KB files fits, both do not
    const answers = await Promise.all(
      [1, 2].map(async (n) => {
        const res = await postFile(base, token, agent.id, `part-${n}.txt`, text(450_000, `u${n}-`));
        return { status: res.status, body: (await res.json()) as { detail: any } };
      }),
    );
    const refused = answers.filter((a) => a.status !== 201);
    expect(refused).toHaveLength(1);
    const detail = refused[0]!.body.detail;
    expect(refused[0]!.status).toBe(403);
    expect(detail).toMatchObject({ max: MB, upgrade_required: true });
    // `current` is what was stored at that moment: the text's passages, plus the kept file when it
    // had already arrived (waiting on disk, or read into its passages); never the bytes in flight
    const whenDone = await t.app.jobs.idle().then(() => storedBytes(t));
    expect([used, used + 450_000, whenDone]).toContain(detail.current);
    const mb = (n: number) => (n / MB).toFixed(1).replace('.', '\\.');
    expect(detail.message).toMatch(
      new RegExp(
        `^Storage limit reached: your free plan allows 1\\.0 MB of sources and passages; ${mb(detail.current)} MB are used(, 0\\.\\d MB are being uploaded right now)?, and this upload is 0\\.4 MB\\. Delete sources you no longer need, or upgrade\\.$`,
      ),
    );
    expect(partFiles(t).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it("a refused upload's bytes stop counting at once, so an upload still arriving may take the room (issue 31 point 5)", async () => {
    const t = await start();
    // an account with nothing stored yet (the figures count its agents' sources)
    const id = 'account-without-sources';
    const plans = new PlanService(t.config.plans, 'free', t.clock);
    const quota = new StorageQuota(new KnowledgeRepo(t.database.db), plans, () => ({
      plan_id: 'free',
      plan_expires_at: null,
    }));
    const a = quota.receive(id);
    const b = quota.receive(id);
    expect(a.add(600_000)).toBeNull();
    expect(b.add(300_000)).toBeNull();
    const refusal = b.add(200_000);
    expect(refusal).toMatchObject({ statusCode: 403 });
    expect((refusal as any).detail.message).toBe(
      'Storage limit reached: your free plan allows 1.0 MB of sources and passages; 0.0 MB are used, 0.6 MB are being uploaded right now, and this upload is more than 0.5 MB. Delete sources you no longer need, or upgrade.',
    );
    // b is refused: its 300 KB no longer count, and a's next 200 KB fit
    expect(a.add(200_000)).toBeNull();
    b.end();
    expect(quota.usedBy(id)).toBe(800_000);
    a.end();
    expect(quota.usedBy(id)).toBe(0);
  });
});
