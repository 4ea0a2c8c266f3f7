import { describe, expect, it, vi } from 'vitest';
import { EMBEDDING_BATCH_SIZE } from '../../src/providers/embeddings/index.js';
import {
  auth,
  createAgent,
  expectKeys,
  jsonOf,
  ManualClock,
  registerUser,
  type TestApp,
  useTestApps,
} from '../helpers/app.js';
import type { FakeBehaviour } from '../helpers/fake-llm.js';
import { appWithFakeLlm, listSources, postSource, postSourceForm, systemPromptFor } from '../helpers/sources.js';
import { keywordIndexRows } from '../helpers/seed.js';

/**
 * Text sources (docs/API.md "Source status") through the whole app: multipart and JSON
 * bodies, the Source object, listing, deletion with its passages and vectors, account scoping, and
 * that what is added (or deleted) is what the next chat puts in front of the model. Embeddings run
 * against the fake openai server's /v1/embeddings with the real SDK.
 */

type Json = Record<string, any>;

const KEY = 'sk-test-SECRET-knowledge-key-0123456789';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
/** docs/API.md "Objects", plus `progress` and the website sync's fields (docs/API-NOTES.md: beyond the spec) */
const SOURCE_KEYS = [
  'chatbot_id',
  'check_reason',
  'created_at',
  'error_message',
  'file_size',
  'file_type',
  'id',
  'last_sync',
  'last_synced_at',
  'max_pages',
  'name',
  'next_sync_at',
  'page_cap_hit',
  'pages_done',
  'pages_found',
  'pages_skipped',
  'pages_skipped_by',
  'progress',
  'status',
  'sync_interval',
  'type',
  'url',
];

const apps = useTestApps();

/** An app whose openai provider is the fake, an account and an agent. */
const setup = (opts: { env?: Record<string, string>; clock?: ManualClock; behaviour?: Partial<FakeBehaviour> } = {}) =>
  appWithFakeLlm(apps, KEY, opts);

const addTextForm = (t: TestApp, token: string, agentId: string, fields: Record<string, string>) =>
  postSourceForm(t, token, agentId, 'text', fields);

const addTextJson = (t: TestApp, token: string, agentId: string, body: Json) =>
  postSource(t, token, agentId, 'text', body);

function deleteSource(t: TestApp, token: string, sourceId: string) {
  return t.app.inject({ method: 'DELETE', url: `/api/sources/${sourceId}`, headers: auth(token) });
}

function count(t: TestApp, sql: string, ...params: unknown[]): number {
  return (t.database.sqlite.prepare(sql).get(...params) as { n: number }).n;
}

/** Prose of about `chars` characters in paragraphs, mentioning `marker` once near the end. */
function longText(chars: number, marker: string): string {
  const sentence = 'Our cooperative roasts coffee beans in small batches and ships them to cafes across the region. ';
  const paragraphs: string[] = [];
  let length = 0;
  while (length < chars) {
    const p = sentence.repeat(4).trim();
    paragraphs.push(p);
    length += p.length + 2;
  }
  paragraphs.push(marker);
  return paragraphs.join('\n\n');
}

// ---------------------------------------------------------------------------------------------

describe('POST /api/sources/chatbot/{id}/text', () => {
  it('takes multipart fields name + content and answers 201 with a completed text Source', async () => {
    const clock = new ManualClock('2026-03-01T12:00:00.000Z');
    const { t, token, agent } = await setup({ clock });
    const res = await addTextForm(t, token, agent.id, {
      name: 'Opening hours',
      content: 'We are open from 9 to 17 on weekdays.',
    });
    const source = jsonOf(res, 201, SOURCE_KEYS);
    expect(source).toEqual({
      id: expect.any(String),
      chatbot_id: agent.id,
      type: 'text',
      name: 'Opening hours',
      url: null,
      file_type: null,
      file_size: null,
      status: 'completed',
      error_message: null,
      progress: 1,
      pages_done: null,
      pages_found: null,
      // the crawl report of website sources
      max_pages: null,
      pages_skipped: null,
      pages_skipped_by: null,
      page_cap_hit: null,
      // the website sync's
      sync_interval: null,
      last_synced_at: null,
      next_sync_at: null,
      last_sync: null,
      check_reason: null,
      created_at: '2026-03-01T12:00:00.000Z',
    });
    expect(source.created_at).toMatch(ISO);
    expect(await listSources(t, token, agent.id)).toEqual([source]);
  });

  it('also accepts the same fields as JSON', async () => {
    const { t, token, agent } = await setup();
    const res = await addTextJson(t, token, agent.id, { name: 'FAQ', content: 'Dogs are welcome in the garden.' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      type: 'text',
      name: 'FAQ',
      status: 'completed',
      file_type: null,
      file_size: null,
      url: null,
    });
  });

  it('refuses a missing or empty name or content with 400 naming the field, and stores nothing', async () => {
    const { t, token, agent } = await setup();
    const cases: Array<[Record<string, string>, string]> = [
      [{ content: 'text without a name' }, 'name'],
      [{ name: '   ', content: 'text with a blank name' }, 'name'],
      [{ name: 'No content' }, 'content'],
      [{ name: 'Empty', content: '' }, 'content'],
      [{ name: 'Blank', content: ' \n\n \t ' }, 'content'],
      [{ name: 'x'.repeat(201), content: 'too long a name' }, 'name'],
    ];
    for (const [fields, field] of cases) {
      for (const res of [
        await addTextForm(t, token, agent.id, fields),
        await addTextJson(t, token, agent.id, fields),
      ]) {
        expect(res.statusCode, `${JSON.stringify(fields).slice(0, 80)}: ${res.body}`).toBe(400);
        expect(res.json().detail).toMatch(new RegExp(`^${field}\\b`));
      }
    }
    const file = await (async () => {
      const data = new FormData();
      data.append('name', 'A file');
      data.append('content', new Blob(['file body'], { type: 'text/plain' }), 'notes.txt');
      const encoded = new Response(data);
      return t.app.inject({
        method: 'POST',
        url: `/api/sources/chatbot/${agent.id}/text`,
        headers: { ...auth(token), 'content-type': encoded.headers.get('content-type')! },
        payload: Buffer.from(await encoded.arrayBuffer()),
      });
    })();
    expect(file.statusCode).toBe(400);
    expect(await listSources(t, token, agent.id)).toEqual([]);
    expect(count(t, 'SELECT count(*) AS n FROM chunks')).toBe(0);
  });

  it('takes content up to 2,000,000 characters and refuses one more with 413 naming content', async () => {
    const { t, token, agent } = await setup();
    const max = 'lorem ipsum dolor sit amet '.repeat(80_000).slice(0, 2_000_000);
    const ok = await addTextForm(t, token, agent.id, { name: 'Largest', content: max });
    expect(ok.statusCode, ok.body.slice(0, 200)).toBe(201);
    const over = await addTextForm(t, token, agent.id, { name: 'Too large', content: `${max}x` });
    expect(over.statusCode).toBe(413);
    expect(over.json().detail).toMatch(/^content\b/);
    expect((await listSources(t, token, agent.id)).map((s) => s.name)).toEqual(['Largest']);
    // the same limit as a JSON body, which the app-wide 1 MiB JSON limit must not cut short
    const json = await t.app.inject({
      method: 'POST',
      url: `/api/sources/chatbot/${agent.id}/text`,
      headers: auth(token),
      payload: { name: 'Largest as JSON', content: max },
    });
    expect(json.statusCode, json.body.slice(0, 200)).toBe(201);
    // line breaks sent as CRLF by multipart count once
    const crlf = await addTextForm(t, token, agent.id, { name: 'Lines', content: 'line\n'.repeat(400_000) });
    expect(crlf.statusCode, crlf.body.slice(0, 200)).toBe(201);
  });

  it('is searchable at once: the next chat puts the passage, marked as reference material, into the prompt', async () => {
    const { f, t, token, agent } = await setup();
    const phrase = 'The lighthouse tour leaves from pier seven at half past four.';
    const res = await addTextForm(t, token, agent.id, {
      name: 'Tours',
      content: `General information about our harbour.\n\n${phrase}`,
    });
    expect(res.statusCode).toBe(201);
    const { system, body } = await systemPromptFor(t, f, agent.id, 'Where does the lighthouse tour leave from?');
    expect(system).toContain(phrase);
    expect(system.indexOf(phrase)).toBeGreaterThan(system.indexOf('<reference_material>'));
    expect(system).toContain('(source: Tours)');
    expect(body.sources).toEqual([{ source_id: res.json().id, name: 'Tours', url: null, title: null, page: null }]);
  });
});

describe('GET /api/sources/chatbot/{id}', () => {
  it("lists an agent's sources newest first, also when they share a timestamp", async () => {
    const clock = new ManualClock('2026-03-01T12:00:00.000Z');
    const { t, token, agent } = await setup({ clock });
    const other = await createAgent(t.app, token, { name: 'Other' });
    const ids: string[] = [];
    for (const name of ['one', 'two', 'three']) {
      clock.advance(1000);
      ids.push((await addTextJson(t, token, agent.id, { name, content: `Source ${name} text.` })).json().id);
    }
    // same instant: still newest first
    for (const name of ['four', 'five'])
      ids.push((await addTextJson(t, token, agent.id, { name, content: `Source ${name} text.` })).json().id);
    await addTextJson(t, token, other.id, { name: 'elsewhere', content: 'Belongs to the other agent.' });

    const list = await listSources(t, token, agent.id);
    expect(list.map((s) => s.name)).toEqual(['five', 'four', 'three', 'two', 'one']);
    expect(list.map((s) => s.id)).toEqual([...ids].reverse());
    for (const s of list) expectKeys(s, SOURCE_KEYS);
    expect((await listSources(t, token, other.id)).map((s) => s.name)).toEqual(['elsewhere']);
  });
});

describe('DELETE /api/sources/{id}', () => {
  it('answers 204 with no body and removes the source, its passages and keyword index rows; the next chat no longer sees it', async () => {
    const { f, t, token, agent } = await setup();
    const phrase = 'Marmalade cats receive a free grooming session every Thursday.';
    const keep = (
      await addTextJson(t, token, agent.id, { name: 'Keep', content: 'Marmalade jars cost four euros.' })
    ).json();
    const gone = (await addTextJson(t, token, agent.id, { name: 'Cats', content: phrase })).json();
    expect((await systemPromptFor(t, f, agent.id, 'Do marmalade cats get grooming?')).system).toContain(phrase);
    expect(count(t, 'SELECT count(*) AS n FROM chunks WHERE source_id = ?', gone.id)).toBeGreaterThan(0);

    const res = await deleteSource(t, token, gone.id);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');

    expect((await listSources(t, token, agent.id)).map((s) => s.id)).toEqual([keep.id]);
    expect(count(t, 'SELECT count(*) AS n FROM chunks WHERE source_id = ?', gone.id)).toBe(0);
    // the index holds stems ("grooming" as "groom", "jars" as "jar": migration 0027)
    expect(keywordIndexRows(t.database.sqlite, agent.id, 'groom')).toBe(0);
    expect(keywordIndexRows(t.database.sqlite, agent.id, 'jar')).toBe(1);

    const after = await systemPromptFor(t, f, agent.id, 'Do marmalade cats get grooming?');
    expect(after.system).not.toContain('grooming');
    expect(after.system).toContain('Marmalade jars cost four euros.'); // the other source still answers
    expect(after.body.sources).toEqual([{ source_id: keep.id, name: 'Keep', url: null, title: null, page: null }]);

    const again = await deleteSource(t, token, gone.id);
    expect(again.statusCode).toBe(404);
    expect(typeof again.json().detail).toBe('string');
  });

  it('removes the vectors too (EMBEDDINGS=openai)', async () => {
    const { t, token, agent } = await setup({ env: { EMBEDDINGS: 'openai' } });
    const a = (
      await addTextJson(t, token, agent.id, { name: 'A', content: longText(6000, 'Alpha marker sentence.') })
    ).json();
    const b = (await addTextJson(t, token, agent.id, { name: 'B', content: 'Beta source, one passage.' })).json();
    const chunksOfA = count(t, 'SELECT count(*) AS n FROM chunks WHERE source_id = ?', a.id);
    expect(chunksOfA).toBeGreaterThan(1);
    expect(count(t, 'SELECT count(*) AS n FROM chunk_vectors')).toBe(chunksOfA + 1);

    expect((await deleteSource(t, token, a.id)).statusCode).toBe(204);
    expect(count(t, 'SELECT count(*) AS n FROM chunk_vectors')).toBe(1);
    const [remaining] = t.database.sqlite.prepare('SELECT id FROM chunks WHERE source_id = ?').all(b.id) as Array<{
      id: number;
    }>;
    expect(count(t, 'SELECT count(*) AS n FROM chunk_vectors WHERE rowid = ?', BigInt(remaining!.id))).toBe(1);
  });
});

describe('account scoping', () => {
  it("another account's agent or source is 404 on list, add and delete, exactly like a missing one; nothing changes", async () => {
    const { t, token, agent } = await setup();
    const source = (
      await addTextJson(t, token, agent.id, { name: 'Private', content: 'Internal discount code is HUSH42.' })
    ).json();
    const intruder = (await registerUser(t.app)).token;

    const attempts = [
      [
        'list foreign',
        await t.app.inject({ method: 'GET', url: `/api/sources/chatbot/${agent.id}`, headers: auth(intruder) }),
      ],
      [
        'list missing',
        await t.app.inject({ method: 'GET', url: '/api/sources/chatbot/no-such-agent', headers: auth(intruder) }),
      ],
      ['add foreign (json)', await addTextJson(t, intruder, agent.id, { name: 'Spam', content: 'Injected text.' })],
      ['add foreign (form)', await addTextForm(t, intruder, agent.id, { name: 'Spam', content: 'Injected text.' })],
      ['add missing', await addTextJson(t, intruder, 'no-such-agent', { name: 'Spam', content: 'Injected text.' })],
      ['delete foreign', await deleteSource(t, intruder, source.id)],
      ['delete missing', await deleteSource(t, intruder, 'no-such-source')],
    ] as const;
    for (const [what, res] of attempts) {
      expect(res.statusCode, what).toBe(404);
      expect(typeof res.json().detail, what).toBe('string');
    }
    expect(attempts[0][1].json().detail).toBe(attempts[1][1].json().detail);
    expect(attempts[5][1].json().detail).toBe(attempts[6][1].json().detail);

    expect(await listSources(t, token, agent.id)).toEqual([source]);
    expect(count(t, 'SELECT count(*) AS n FROM chunks WHERE source_id = ?', source.id)).toBe(1);
    expect(count(t, 'SELECT count(*) AS n FROM sources')).toBe(1);

    // and without a token: 401
    expect((await t.app.inject({ method: 'GET', url: `/api/sources/chatbot/${agent.id}` })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'DELETE', url: `/api/sources/${source.id}` })).statusCode).toBe(401);
  });

  it("an agent's passages never reach another agent's prompt", async () => {
    const { f, t, token, agent } = await setup();
    const other = await createAgent(t.app, token, { name: 'Other' });
    await addTextJson(t, token, agent.id, {
      name: 'Mine',
      content: 'The walrus festival starts on the first of June.',
    });
    expect((await systemPromptFor(t, f, other.id, 'When does the walrus festival start?')).system).not.toContain(
      'walrus',
    );
    expect((await systemPromptFor(t, f, agent.id, 'When does the walrus festival start?')).system).toContain(
      'walrus festival',
    );
  });
});

describe('embeddings (EMBEDDINGS=openai against the fake)', () => {
  it('a text source is embedded in one batched request, vectors are stored, and chat still works', async () => {
    const { f, t, token, agent } = await setup({
      env: { EMBEDDINGS: 'openai' },
      behaviour: { reply: 'Roasted fresh.' },
    });
    const content = longText(12_000, 'The decaf blend is called Moonless Night.');
    const res = await addTextForm(t, token, agent.id, { name: 'Coffee', content });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().status).toBe('completed');

    const chunks = t.database.sqlite
      .prepare('SELECT id, content, embedded_with FROM chunks WHERE source_id = ? ORDER BY ordinal')
      .all(res.json().id) as Array<{
      id: number;
      content: string;
      embedded_with: string | null;
    }>;
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.length).toBeLessThanOrEqual(EMBEDDING_BATCH_SIZE);

    const embeds = f.requests.filter((r) => r.kind === 'embed');
    expect(embeds).toHaveLength(1); // one request for all the chunks
    expect(embeds[0]!.path).toBe('/v1/embeddings');
    expect(embeds[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(embeds[0]!.body.input).toEqual(chunks.map((c) => c.content));
    expect(embeds[0]!.body.model).toBe('text-embedding-3-small');
    for (const c of chunks) expect(c.embedded_with).toMatch(/^openai:/);
    expect(count(t, 'SELECT count(*) AS n FROM chunk_vectors')).toBe(chunks.length);

    // chat: the question is embedded, the model is asked, the passage is in the prompt
    const { system, body } = await systemPromptFor(t, f, agent.id, 'What is the decaf blend called?');
    expect(body.message).toBe('Roasted fresh.');
    expect(system).toContain('Moonless Night');
    expect(body.sources).toEqual([{ source_id: res.json().id, name: 'Coffee', url: null, title: null, page: null }]);
    const queryEmbeds = f.requests.filter((r) => r.kind === 'embed').slice(1);
    expect(queryEmbeds).toHaveLength(1);
    expect(queryEmbeds[0]!.body.input).toEqual(['What is the decaf blend called?']);
  });

  it('splits more passages than one batch holds into batches of EMBEDDING_BATCH_SIZE', async () => {
    const { f, t, token, agent } = await setup({ env: { EMBEDDINGS: 'openai' } });
    // one short paragraph per passage is not how the chunker works, so make text big enough
    const content = longText(2400 * (EMBEDDING_BATCH_SIZE + 6), 'End.');
    const res = await addTextJson(t, token, agent.id, { name: 'Big', content });
    expect(res.statusCode, res.body).toBe(201);
    const n = count(t, 'SELECT count(*) AS n FROM chunks WHERE source_id = ?', res.json().id);
    expect(n).toBeGreaterThan(EMBEDDING_BATCH_SIZE);
    const sizes = f.requests.filter((r) => r.kind === 'embed').map((r) => (r.body.input as string[]).length);
    expect(sizes).toEqual([EMBEDDING_BATCH_SIZE, n - EMBEDDING_BATCH_SIZE]);
    expect(count(t, 'SELECT count(*) AS n FROM chunk_vectors')).toBe(n);
  });

  it('when the embeddings endpoint fails, the source is still added and keyword-searchable, and is embedded later', async () => {
    const { f, t, token, agent } = await setup({
      env: { EMBEDDINGS: 'openai' },
      behaviour: { failTimes: 2, retryAfterMs: 5 },
    });
    const res = await addTextJson(t, token, agent.id, {
      name: 'Hours',
      content: 'The observatory opens at dusk on clear nights.',
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().status).toBe('completed');
    // the backfill embeds it once the endpoint answers again
    await vi.waitFor(() => expect(count(t, 'SELECT count(*) AS n FROM chunk_vectors')).toBe(1), {
      timeout: 5_000,
      interval: 20,
    });
    expect(count(t, 'SELECT count(*) AS n FROM chunks WHERE embedded_with IS NULL')).toBe(0);

    const { system } = await systemPromptFor(t, f, agent.id, 'When does the observatory open?');
    expect(system).toContain('The observatory opens at dusk');
  });

  it('when the question cannot be embedded, the chat answers from the keyword search alone', async () => {
    const { f, t, token, agent } = await setup({ env: { EMBEDDINGS: 'openai' } });
    const res = await addTextJson(t, token, agent.id, {
      name: 'Hours',
      content: 'The observatory opens at dusk on clear nights.',
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(count(t, 'SELECT count(*) AS n FROM chunk_vectors')).toBe(1);

    // the query embedding and the SDK's one retry fail; the completion after them is answered
    f.setBehaviour({ failTimes: 2, retryAfterMs: 5 });
    const embedsBefore = f.requests.filter((r) => r.kind === 'embed').length;
    const { system, body } = await systemPromptFor(t, f, agent.id, 'When does the observatory open?');
    expect(f.requests.filter((r) => r.kind === 'embed').length - embedsBefore).toBe(2);
    expect(system).toContain('The observatory opens at dusk');
    expect(body.message).toBe('Noted.');
  });
});
