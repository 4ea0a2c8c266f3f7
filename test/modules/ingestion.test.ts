import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { auth, registerUser, useTestApps, type TestApp } from '../helpers/app.js';
import { csvWith, docxWith, pdfWith, xlsxWith } from '../helpers/documents.js';
import { appWithFakeLlm, listSources, systemPromptFor, uploadFile, postSourceForm } from '../helpers/sources.js';
import { startLocalSite } from '../helpers/local-site.js';
import { zipOf } from '../helpers/zip.js';
import { keywordIndexRows } from '../helpers/seed.js';

/**
 * File sources (docs/API.md "Source status"; docs/API-NOTES.md "File sources") through
 * the whole app: real multipart uploads, the real parser worker threads, real SQLite, and a chat
 * against the fake OpenAI server to see that what was ingested reaches the model.
 */

type Json = Record<string, any>;

const KEY = 'sk-test-ingestion-key-0123456789';
const MB = 1024 * 1024;

const apps = useTestApps();
const setup = (env: Record<string, string> = {}) => appWithFakeLlm(apps, KEY, { env });

async function sourceById(t: TestApp, token: string, agentId: string, id: string): Promise<Json | undefined> {
  return (await listSources(t, token, agentId)).find((s) => s.id === id);
}

function count(t: TestApp, sql: string, ...params: unknown[]): number {
  return (t.database.sqlite.prepare(sql).get(...params) as { n: number }).n;
}

function uploadsOf(t: TestApp): string[] {
  const dir = path.join(t.dataDir, 'uploads');
  return existsSync(dir) ? readdirSync(dir) : [];
}

// ---- fixtures, generated here ----------------------------------------------------------------

const text = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));

/** A user-facing message: a sentence, not a stack trace or an internal error name. */
function expectClearMessage(message: unknown) {
  expect(typeof message).toBe('string');
  const m = message as string;
  expect(m.trim().length).toBeGreaterThan(5);
  expect(m.length).toBeLessThan(300);
  expect(m).not.toMatch(/\n\s+at |\.ts:\d+|\.js:\d+|ENOENT|TypeError|ReferenceError|undefined|\[object /);
}

// ---------------------------------------------------------------------------------------------

describe('POST /api/sources/chatbot/{id}/file: accepted formats', () => {
  // a distinct phrase per format, with two rare words the question names (and no other phrase shares)
  const fixtures: Array<{
    name: string;
    type: string;
    phrase: string;
    question: string;
    make: (phrase: string) => Promise<Uint8Array>;
  }> = [
    {
      name: 'Ferry guide.pdf',
      type: 'pdf',
      phrase: 'Quokka lanterns glow amber above the Pinewick ferry terminal.',
      question: 'What glows above Pinewick?',
      make: (p) => pdfWith(['Visitor information', p]),
    },
    {
      name: 'Gondolas.docx',
      type: 'docx',
      phrase: 'Saffron gondolas depart Marrowvale harbour every Wednesday at noon.',
      question: 'When do saffron gondolas leave Marrowvale?',
      make: (p) => docxWith(['Timetable', p]),
    },
    {
      name: 'Workshop.xlsx',
      type: 'xlsx',
      phrase: 'Tungsten kites are repaired without charge at the Brambleford workshop.',
      question: 'Where are tungsten kites repaired in Brambleford?',
      make: (p) =>
        xlsxWith([
          ['Topic', 'Answer'],
          ['Repairs', p],
        ]),
    },
    {
      name: 'tours.csv',
      type: 'csv',
      phrase: 'Velvet otters guide kayak tours around Lake Quillmere.',
      question: 'Who guides tours on Quillmere with velvet otters?',
      make: async (p) => text(`topic,answer\nkayaks,${p}\nparking,Free on Sundays\n`),
    },
    {
      name: 'bakery.txt',
      type: 'txt',
      phrase: 'Cobalt pretzels are baked fresh in Dunmorrow before sunrise.',
      question: 'Are cobalt pretzels baked in Dunmorrow?',
      make: async (p) => text(`About our bakery\n\n${p}\n`),
    },
  ];

  it('each of .pdf .docx .xlsx .csv .txt: 201 processing (file_type/file_size null), then completed with type, size and progress 1; the next chat puts its phrase in front of the model', async () => {
    const { f, t, token, agent } = await setup();
    const uploaded: Array<{ id: string; bytes: number; fixture: (typeof fixtures)[number] }> = [];
    for (const fixture of fixtures) {
      const bytes = await fixture.make(fixture.phrase);
      const res = await uploadFile(t, token, agent.id, fixture.name, bytes);
      expect(res.statusCode, `${fixture.name}: ${res.body}`).toBe(201);
      const created = res.json();
      expect(created).toMatchObject({
        id: expect.any(String),
        chatbot_id: agent.id,
        type: 'file',
        name: fixture.name,
        url: null,
        file_type: null,
        file_size: null,
        status: 'processing',
        error_message: null,
      });
      expect(Date.parse(created.created_at)).not.toBeNaN();
      uploaded.push({ id: created.id, bytes: bytes.byteLength, fixture });
    }

    await t.app.jobs.idle();

    const list = await listSources(t, token, agent.id);
    expect(list).toHaveLength(fixtures.length);
    for (const { id, bytes, fixture } of uploaded) {
      const s = list.find((x) => x.id === id);
      expect(s, fixture.name).toMatchObject({
        type: 'file',
        name: fixture.name,
        url: null,
        status: 'completed',
        error_message: null,
        file_type: fixture.type,
        file_size: bytes,
        progress: 1,
      });
      expect(count(t, 'SELECT count(*) AS n FROM chunks WHERE source_id = ?', id), fixture.name).toBeGreaterThan(0);
    }
    // the upload is not kept once its text is stored
    expect(uploadsOf(t)).toEqual([]);

    for (const { id, fixture } of uploaded) {
      const { system, body } = await systemPromptFor(t, f, agent.id, fixture.question);
      expect(system, fixture.name).toContain(fixture.phrase);
      // a file without a title of its own is named by its file name without the extension
      const label = fixture.name.replace(/\.\w+$/, '');
      expect(system).toContain(`(source: ${label}`);
      expect(system).not.toContain(fixture.name);
      for (const other of fixtures) if (other !== fixture) expect(system).not.toContain(other.phrase);
      expect(body.sources).toEqual([
        { source_id: id, name: label, url: null, title: null, page: fixture.name.endsWith('.pdf') ? 1 : null },
      ]);
    }
  });

  it('visitors see a file by its title (PDF or DOCX metadata), else by its file name without the extension; the owner sees the file name', async () => {
    const { f, t, token, agent } = await setup();
    const files: Array<[string, Uint8Array, string, string]> = [
      [
        'price-list-2026.pdf',
        await pdfWith(['Prices', 'A yearly boiler service costs 89 pounds.']),
        'How much is a yearly boiler service?',
        'price-list-2026',
      ],
      [
        'pl_final_v3.pdf',
        await pdfWith(['Valves', 'The relief valve is checked every spring.'], [], { title: 'Boiler manual' }),
        'How often is the relief valve checked?',
        'Boiler manual',
      ],
      [
        'hours-internal.docx',
        await docxWith(['Opening', 'The showroom opens at nine on Saturdays.'], { title: 'Opening hours & holidays' }),
        'When does the showroom open on Saturdays?',
        'Opening hours & holidays',
      ],
    ];
    const ids: string[] = [];
    for (const [name, bytes] of files) {
      const res = await uploadFile(t, token, agent.id, name, bytes);
      expect(res.statusCode, res.body).toBe(201);
      ids.push(res.json().id);
    }
    await t.app.jobs.idle();
    const list = await listSources(t, token, agent.id);
    for (const [i, [name]] of files.entries()) {
      // the owner's list keeps the file name
      expect(list.find((s) => s.id === ids[i])).toMatchObject({ name, status: 'completed' });
    }
    // the document's own title is stored with the source
    expect(
      t.database.sqlite.prepare('SELECT name, title FROM sources WHERE chatbot_id = ? ORDER BY name').all(agent.id),
    ).toEqual([
      { name: 'hours-internal.docx', title: 'Opening hours & holidays' },
      { name: 'pl_final_v3.pdf', title: 'Boiler manual' },
      { name: 'price-list-2026.pdf', title: null },
    ]);
    for (const [i, [name, , question, label]] of files.entries()) {
      const { system, body } = await systemPromptFor(t, f, agent.id, question);
      expect(system).toContain(`(source: ${label}`);
      expect(system).not.toContain(name);
      expect(JSON.stringify(body.sources)).not.toContain(name);
      expect(body.sources[0]).toMatchObject({ source_id: ids[i], name: label, url: null });
    }
  });

  it('a price, a URL and a version number survive every format exactly, inside long paragraphs too', async () => {
    const { t, token, agent } = await setup();
    const fact =
      'The travel adapter costs $4.99; firmware v2.3.1 is at www.acme-example.com/support and as.numeric is not needed.';
    // a paragraph of over 3,200 characters with the fact in its middle: once, such paragraphs were cut with spaces added
    const filler = (n: number) =>
      Array.from({ length: n }, (_, i) => `Sentence ${i} of a long paragraph about routers.`).join(' ');
    const long = `${filler(40)} ${fact} ${filler(40)}`;
    const files: Array<[string, Uint8Array]> = [
      // a PDF line is not wrapped by pdf-lib: the fact takes two lines, which extraction joins
      [
        'fact.pdf',
        await pdfWith([
          'Product notes',
          'The travel adapter costs $4.99; firmware v2.3.1 is at',
          'www.acme-example.com/support and as.numeric is not needed.',
        ]),
      ],
      ['fact.docx', await docxWith(['Product notes', long])],
      [
        'fact.xlsx',
        await xlsxWith([
          ['Topic', 'Note'],
          ...Array.from({ length: 200 }, (_, i) => [`Topic ${i}`, i === 150 ? fact : `Note ${i}`]),
        ]),
      ],
      [
        'fact.csv',
        csvWith([
          ['Topic', 'Note'],
          ['Adapter', fact],
        ]),
      ],
      ['fact.txt', text(long)],
    ];
    for (const [name, bytes] of files)
      expect((await uploadFile(t, token, agent.id, name, bytes)).statusCode, name).toBe(201);
    await t.app.jobs.idle();
    const rows = t.database.sqlite
      .prepare('SELECT s.name AS name, c.content AS content FROM chunks c JOIN sources s ON s.id = c.source_id')
      .all() as Array<{ name: string; content: string }>;
    for (const [name] of files) {
      const stored = rows.filter((r) => r.name === name).map((r) => r.content);
      expect(stored.length, name).toBeGreaterThan(0);
      expect(
        stored.some((c) => c.includes(fact)),
        `${name}: ${stored.join(' // ').slice(0, 300)}`,
      ).toBe(true);
    }
    // five formats through a cold worker pool: over 30 s once on a 2-core box beside other CPU-heavy work
  }, 90_000);

  it('a text file that is one 1.5 MB line (no line break) is stored in passages that are slices of it', async () => {
    const { t, token, agent } = await setup();
    const line = Array.from({ length: 200_000 }, (_, i) => `w${i}`).join(' ');
    const res = await uploadFile(t, token, agent.id, 'one-line.txt', text(line));
    expect(res.statusCode, res.body).toBe(201);
    await t.app.jobs.idle();
    expect((await sourceById(t, token, agent.id, res.json().id))?.status).toBe('completed');
    const passages = (
      t.database.sqlite
        .prepare('SELECT content FROM chunks WHERE source_id = ? ORDER BY ordinal')
        .all(res.json().id) as Array<{ content: string }>
    ).map((r) => r.content);
    expect(passages.length).toBeGreaterThan(400);
    let from = 0;
    for (const p of passages) {
      const at = line.indexOf(p, Math.max(0, from - p.length));
      expect(at, p.slice(0, 40)).toBeGreaterThanOrEqual(0);
      from = at + p.length;
    }
    expect(from).toBe(line.length);
  });

  it('file_type is the lower-case extension whatever the case of the name', async () => {
    const { t, token, agent } = await setup();
    const res = await uploadFile(t, token, agent.id, 'NOTES.TXT', text('Upper case extensions are accepted too.'));
    expect(res.statusCode, res.body).toBe(201);
    await t.app.jobs.idle();
    expect(await sourceById(t, token, agent.id, res.json().id)).toMatchObject({
      name: 'NOTES.TXT',
      file_type: 'txt',
      status: 'completed',
    });
  });
});

describe('POST /api/sources/chatbot/{id}/file: refusals', () => {
  it('an extension not allowed, no extension, or content that does not match the extension is 400 naming file; nothing is stored', async () => {
    const { t, token, agent } = await setup();
    const pdf = await pdfWith(['A real PDF']);
    const cases: Array<[string, Uint8Array]> = [
      ['setup.exe', text('MZ this is not allowed')],
      ['README', text('A file without an extension.')],
      ['archive.zip', zipOf({ 'a.txt': 'zipped' })],
      ['page.html', text('<html><body>hi</body></html>')],
      ['notes.pdf', text('Plain text pretending to be a PDF.')],
      ['letter.docx', text('Plain text pretending to be a Word document.')],
      ['sheet.xlsx', text('a,b,c\n1,2,3\n')],
      ['report.docx', pdf],
      // a spreadsheet named .docx and a Word document named .xlsx: the ZIP entry names give them away
      ['workbook.docx', await xlsxWith([['not', 'a', 'document']])],
      ['document.xlsx', await docxWith(['not a spreadsheet'])],
      ['binary.txt', new Uint8Array([0x00, 0x01, 0x02, 0xff, 0xfe, 0x00])],
      ['data.csv', new Uint8Array([0xff, 0xfe, 0xfd, 0x80, 0x81, 0x00])],
    ];
    for (const [name, bytes] of cases) {
      const res = await uploadFile(t, token, agent.id, name, bytes);
      expect(res.statusCode, `${name}: ${res.body}`).toBe(400);
      expect(res.json().detail, name).toMatch(/^file\b/);
    }
    // no file part at all, or a file under another field name
    const wrongField = await uploadFile(t, token, agent.id, 'notes.txt', text('Sent as "document".'), 'document');
    expect(wrongField.statusCode, wrongField.body).toBe(400);
    expect(wrongField.json().detail).toMatch(/^file\b/);
    const notMultipart = await t.app.inject({
      method: 'POST',
      url: `/api/sources/chatbot/${agent.id}/file`,
      headers: auth(token),
      payload: { file: 'x' },
    });
    expect(notMultipart.statusCode).toBe(400);

    expect(await listSources(t, token, agent.id)).toEqual([]);
    expect(uploadsOf(t)).toEqual([]);
    expect(count(t, 'SELECT count(*) AS n FROM jobs')).toBe(0);
  });

  it('over 100 MB is 413, nothing is stored and no file is left in DATA_DIR/uploads; exactly 100 MB is accepted', async () => {
    const { t, token, agent } = await setup();
    const big = new Uint8Array(100 * MB + 1).fill(0x61); // 'a'
    const res = await uploadFile(t, token, agent.id, 'huge.txt', big);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(413);
    expect(typeof res.json().detail).toBe('string');
    expect(await listSources(t, token, agent.id)).toEqual([]);
    expect(uploadsOf(t)).toEqual([]);
    expect(count(t, 'SELECT count(*) AS n FROM jobs')).toBe(0);

    const exact = await uploadFile(t, token, agent.id, 'limit.txt', big.subarray(0, 100 * MB));
    expect(exact.statusCode, exact.body.slice(0, 300)).toBe(201);
    // sizes are reported once ingested; the file itself is not what this test is about
    const id = exact.json().id;
    expect(count(t, 'SELECT count(*) AS n FROM sources WHERE id = ? AND file_size = ?', id, 100 * MB)).toBe(1);
    expect((await t.app.inject({ method: 'DELETE', url: `/api/sources/${id}`, headers: auth(token) })).statusCode).toBe(
      204,
    );
    expect(uploadsOf(t)).toEqual([]);
  });

  it("another account's agent is 404 before anything is stored", async () => {
    const { t, agent } = await setup();
    const intruder = (await registerUser(t.app)).token;
    const res = await uploadFile(t, intruder, agent.id, 'spam.txt', text('Injected.'));
    expect(res.statusCode).toBe(404);
    expect(count(t, 'SELECT count(*) AS n FROM sources')).toBe(0);
    expect(uploadsOf(t)).toEqual([]);
  });
});

describe('stored files', () => {
  /**
   * The queue runs one ingestion at a time (INGEST_CONCURRENCY=1): a website source whose page the
   * local site holds open keeps it busy, so uploads stay queued (and on disk) for as long as the
   * test needs to look at them.
   */
  async function busyApp() {
    const site = await startLocalSite({
      '/': '<html><body><main><p>The blocking page finally answered.</p></main></body></html>',
    });
    apps.before(site);
    const ctx = await setup({ ALLOW_PRIVATE_URLS: 'true', INGEST_CONCURRENCY: '1' });
    const hold = site.hold('/');
    const { t, token, agent } = ctx;
    const blocker = await postSourceForm(t, token, agent.id, 'website', { url: `${site.url}/` });
    expect(blocker.statusCode, blocker.body).toBe(201);
    await hold.reached;
    return { ...ctx, hold, blockerId: blocker.json().id as string };
  }

  it('are kept under a generated name inside DATA_DIR/uploads; a path in the filename is harmless and only the base name is kept as the source name', async () => {
    const { t, token, agent, hold } = await busyApp();
    const upload = (name: string, content: string) => uploadFile(t, token, agent.id, name, text(content));
    const dangerous = await upload('../../evil.txt', 'Harmless text about zebra crossings in Oakhollow.');
    expect(dangerous.statusCode, dangerous.body).toBe(201);
    expect(dangerous.json().name).toBe('evil.txt');
    const named = await upload('secret-quarterly-report.txt', 'Quarterly figures for Oakhollow.');
    expect(named.statusCode, named.body).toBe(201);

    // both wait in the queue, on disk, under names the client did not choose
    const files = uploadsOf(t);
    expect(files).toHaveLength(2);
    for (const file of files) {
      expect(file).not.toContain('evil');
      expect(file).not.toContain('secret-quarterly-report');
      expect(file).toMatch(/\.txt$/);
    }
    expect(files.some((file) => file.includes(dangerous.json().id))).toBe(true);
    // nothing was written where the path in the name pointed
    expect(existsSync(path.resolve(t.dataDir, 'uploads', '../../evil.txt'))).toBe(false);
    expect(existsSync(path.resolve(t.dataDir, '../evil.txt'))).toBe(false);
    expect(existsSync(path.resolve(t.dataDir, 'evil.txt'))).toBe(false);
    const queued = await listSources(t, token, agent.id);
    expect(queued.filter((s) => s.type === 'file').map((s) => s.status)).toEqual(['processing', 'processing']);

    hold.release();
    await t.app.jobs.idle();
    const done = await listSources(t, token, agent.id);
    expect(done.map((s) => s.status)).toEqual(['completed', 'completed', 'completed']);
    expect(done.find((s) => s.id === dangerous.json().id)).toMatchObject({ name: 'evil.txt', file_type: 'txt' });
    expect(uploadsOf(t)).toEqual([]);
  });

  it('DELETE of a file source still processing: 204, its stored file, job and row are gone, and nothing comes back once the queue runs', async () => {
    const { t, token, agent, hold, blockerId } = await busyApp();
    const res = await uploadFile(t, token, agent.id, 'pending.txt', text('Pending text about walrus choirs.'));
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().id;
    expect(uploadsOf(t)).toHaveLength(1);
    expect(count(t, 'SELECT count(*) AS n FROM jobs WHERE subject_id = ?', id)).toBe(1);

    const del = await t.app.inject({ method: 'DELETE', url: `/api/sources/${id}`, headers: auth(token) });
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expect(uploadsOf(t)).toEqual([]);
    expect(count(t, 'SELECT count(*) AS n FROM jobs WHERE subject_id = ?', id)).toBe(0);
    expect((await listSources(t, token, agent.id)).map((s) => s.id)).toEqual([blockerId]);

    hold.release();
    await t.app.jobs.idle();
    expect((await listSources(t, token, agent.id)).map((s) => s.id)).toEqual([blockerId]);
    expect(count(t, 'SELECT count(*) AS n FROM chunks WHERE source_id = ?', id)).toBe(0);
    expect(count(t, 'SELECT count(*) AS n FROM jobs')).toBe(0);
  });
});

describe('failures', () => {
  it('a corrupt PDF, an empty or blank TXT and DOCX files that are ZIPs of something else end as failed with a clear error_message; the app keeps answering', async () => {
    const { f, t, token, agent } = await setup();
    const bad: Array<[string, Uint8Array]> = [
      ['corrupt.pdf', text('%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nthis is not a PDF body at all\n')],
      ['empty.txt', new Uint8Array(0)],
      ['blank.txt', text('   \n\n\t  \n')],
      ['wrong-zip.docx', zipOf({ 'notes.txt': 'A zip archive, but not a Word document.' })],
      [
        'garbage-word.docx',
        zipOf({ '[Content_Types].xml': '<Types/>', 'word/document.xml': 'this is not XML at all <<<' }),
      ],
    ];
    const ids = new Map<string, string>();
    for (const [name, bytes] of bad) {
      const res = await uploadFile(t, token, agent.id, name, bytes);
      expect(res.statusCode, `${name}: ${res.body}`).toBe(201);
      expect(res.json().status).toBe('processing');
      ids.set(res.json().id, name);
    }
    await t.app.jobs.idle();

    const list = await listSources(t, token, agent.id);
    for (const [id, name] of ids) {
      const s = list.find((x) => x.id === id);
      expect(s?.status, `${name}: ${JSON.stringify(s)}`).toBe('failed');
      expectClearMessage(s!.error_message);
      expect(count(t, 'SELECT count(*) AS n FROM chunks WHERE source_id = ?', id), name).toBe(0);
    }
    // the failure says what was wrong, not only that something was
    const messageOf = (name: string) => list.find((x) => ids.get(x.id) === name)!.error_message as string;
    expect(messageOf('empty.txt')).toMatch(/no text|empty/i);
    expect(messageOf('blank.txt')).toMatch(/no text|empty/i);
    expect(messageOf('corrupt.pdf')).toMatch(/pdf/i);
    expect(messageOf('wrong-zip.docx')).toMatch(/docx|word/i);
    // nothing retried later, nothing left on disk
    expect(count(t, `SELECT count(*) AS n FROM jobs WHERE status IN ('queued', 'running')`)).toBe(0);
    expect(uploadsOf(t)).toEqual([]);

    // the process (and its worker pool) still serves: health, and a good file after the bad ones
    expect((await t.app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
    const good = await uploadFile(
      t,
      token,
      agent.id,
      'after.txt',
      text('Lemon zeppelins dock at Harrowgate on Fridays.'),
    );
    expect(good.statusCode).toBe(201);
    await t.app.jobs.idle();
    expect(await sourceById(t, token, agent.id, good.json().id)).toMatchObject({ status: 'completed', progress: 1 });
    expect((await systemPromptFor(t, f, agent.id, 'Where do lemon zeppelins dock?')).system).toContain(
      'Lemon zeppelins dock at Harrowgate',
    );
  });
});

describe('DELETE /api/sources/{id} of a completed file source', () => {
  it('removes its passages: the next chat no longer sees them', async () => {
    const { f, t, token, agent } = await setup();
    const phrase = 'Marigold submarines surface near Fenwick lighthouse at dusk.';
    const keep = await uploadFile(t, token, agent.id, 'keep.txt', text('Marigold jam is sold at the Fenwick market.'));
    const gone = await uploadFile(t, token, agent.id, 'gone.docx', await docxWith([phrase]));
    expect([keep.statusCode, gone.statusCode]).toEqual([201, 201]);
    await t.app.jobs.idle();
    const id = gone.json().id;
    expect(count(t, 'SELECT count(*) AS n FROM chunks WHERE source_id = ?', id)).toBeGreaterThan(0);
    expect((await systemPromptFor(t, f, agent.id, 'Where do marigold submarines surface?')).system).toContain(phrase);

    const del = await t.app.inject({ method: 'DELETE', url: `/api/sources/${id}`, headers: auth(token) });
    expect(del.statusCode).toBe(204);
    expect(count(t, 'SELECT count(*) AS n FROM chunks WHERE source_id = ?', id)).toBe(0);
    expect(keywordIndexRows(t.database.sqlite, agent.id, 'submarin')).toBe(0); // the index holds stems
    expect((await listSources(t, token, agent.id)).map((s) => s.id)).toEqual([keep.json().id]);
    const after = await systemPromptFor(t, f, agent.id, 'Where do marigold submarines surface?');
    expect(after.system).not.toContain('submarines');
    expect(after.system).toContain('Marigold jam is sold at the Fenwick market.');
  });
});
