import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';

/**
 * Durable ingestion (docs/API-NOTES.md "Durable ingestion"; docs/API.md "Source status": a source ends completed
 * or failed): the real server in a child process is SIGKILLed right after accepting a large file,
 * then started again on the same DATA_DIR; the source must not stay `processing`.
 */

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BOOT_TIMEOUT_MS = 30_000;

interface LogRecord {
  level: number;
  msg: string;
  [k: string]: unknown;
}

const children: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await gone;
    }
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** Starts `node --import tsx src/main.ts`; resolves with its base URL from the `listening on` line. */
async function boot(
  dataDir: string,
): Promise<{ child: ChildProcess; base: string; records: LogRecord[]; exited: Promise<unknown> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH ?? '',
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      REGISTRATION: 'open',
      INGEST_CONCURRENCY: '1',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const records: LogRecord[] = [];
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (c: string) => {
    stderr += c;
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no listening line within ${BOOT_TIMEOUT_MS} ms\n${stderr}`)),
      BOOT_TIMEOUT_MS,
    );
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`server exited before listening\n${stderr}`));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let rec: LogRecord;
      try {
        rec = JSON.parse(line) as LogRecord;
      } catch {
        return;
      }
      records.push(rec);
      if (typeof rec.msg === 'string' && rec.msg.startsWith('listening on')) {
        clearTimeout(timer);
        resolve(String(rec.address ?? rec.msg.replace(/^listening on\s+/, '')));
      }
    });
  });
  return { child, base, records, exited };
}

async function json(res: Response): Promise<any> {
  const body = await res.text();
  try {
    return JSON.parse(body);
  } catch {
    throw new Error(`not JSON (${res.status}): ${body.slice(0, 200)}`);
  }
}

const MARKER = 'Ultramarine tortoises patrol the Kestrelby orchard at midnight.';
/** ~30 MB of prose in paragraphs, the marker first (so the knowledge-only answer quotes it) */
function orchardText(): string {
  const paragraph = 'Our orchard grows heritage apples and pears, and visitors may pick their own fruit in autumn. '
    .repeat(6)
    .trim();
  return `${MARKER}\n\n${`${paragraph}\n\n`.repeat(Math.ceil((30 * 1024 * 1024) / (paragraph.length + 2)))}`;
}

/** Boots, registers, creates an agent and uploads the large file; resolves with the 201 body. */
async function acceptLargeFile(dataDir: string, content: string) {
  const server = await boot(dataDir);
  const reg = await fetch(`${server.base}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Owner', email: 'owner@example.com', password: 'restart survives this' }),
  });
  expect(reg.status).toBe(201);
  const headers = { authorization: `Bearer ${(await json(reg)).access_token as string}` };
  const agentRes = await fetch(`${server.base}/api/chatbots`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Orchard' }),
  });
  expect(agentRes.status).toBe(201);
  const agent = await json(agentRes);
  const data = new FormData();
  data.append('file', new Blob([content], { type: 'text/plain' }), 'orchard.txt');
  const up = await fetch(`${server.base}/api/sources/chatbot/${agent.id}/file`, {
    method: 'POST',
    headers,
    body: data,
  });
  expect(up.status).toBe(201);
  const created = await json(up);
  expect(created.status).toBe('processing');
  return { server, headers, agentId: agent.id as string, sourceId: created.id as string };
}

async function crash(server: { child: ChildProcess; exited: Promise<unknown> }): Promise<void> {
  server.child.kill('SIGKILL');
  await server.exited;
  expect(server.child.signalCode).toBe('SIGKILL');
}

/** What the crash left in DATA_DIR: the source still processing, its job unfinished, its file on disk. */
function expectInterrupted(dataDir: string, sourceId: string): void {
  const db = new Database(path.join(dataDir, 'chat-agent.db'));
  try {
    const row = db.prepare('SELECT status, stored_path FROM sources WHERE id = ?').get(sourceId) as {
      status: string;
      stored_path: string | null;
    };
    expect(row.status).toBe('processing');
    expect(row.stored_path).not.toBeNull();
    expect(existsSync(path.join(dataDir, 'uploads', row.stored_path!))).toBe(true);
    const jobs = db.prepare('SELECT status FROM jobs WHERE subject_id = ?').all(sourceId) as Array<{ status: string }>;
    expect(jobs.map((j) => j.status)).toEqual([expect.stringMatching(/^(queued|running)$/)]);
  } finally {
    db.close();
  }
}

async function sourceOf(
  base: string,
  headers: Record<string, string>,
  agentId: string,
  sourceId: string,
): Promise<any> {
  const list = await fetch(`${base}/api/sources/chatbot/${agentId}`, { headers });
  expect(list.status).toBe(200);
  const source = (await json(list)).find((s: any) => s.id === sourceId);
  expect(source).toBeDefined();
  return source;
}

/** Polls the list (an HTTP endpoint: the only view a separate process gives) until `done` or the deadline. */
async function pollSource(
  base: string,
  headers: Record<string, string>,
  agentId: string,
  sourceId: string,
  done: (s: any) => boolean,
  ms: number,
  everyMs = 200,
): Promise<any> {
  const deadline = Date.now() + ms;
  for (;;) {
    const source = await sourceOf(base, headers, agentId, sourceId);
    if (done(source) || Date.now() > deadline) return source;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * How long a restarted server may take to finish (or fail) the orchard file. Idle it takes ~10 s; on
 * a 2-core box running other test files and a CPU-heavy process beside them it took over 40 s.
 */
const RECOVERY_MS = 150_000;

/** A server started again on `dataDir`, and the source once it is no longer processing there (or RECOVERY_MS passed). */
async function restartUntilSettled(
  dataDir: string,
  headers: Record<string, string>,
  agentId: string,
  sourceId: string,
) {
  const server = await boot(dataDir);
  const source = await pollSource(
    server.base,
    headers,
    agentId,
    sourceId,
    (s) => s.status !== 'processing',
    RECOVERY_MS,
  );
  return { server, source };
}

/**
 * The uploads folder once it is empty (or after `ms`). The product records the source as settled
 * first and removes the file after: a crash in between leaves an orphan the next start sweeps, never
 * a source pointing at a file that is gone. So a poll may see the status a moment before the removal.
 */
async function uploadsOnceEmpty(dataDir: string, ms = 30_000): Promise<string[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const left = readdirSync(path.join(dataDir, 'uploads'));
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** After the restart: completed, each passage stored once, the file gone, the marker answerable. */
async function expectRecovered(
  dataDir: string,
  agentId: string,
  sourceId: string,
  headers: Record<string, string>,
  content: string,
) {
  // the token from before the crash still works (session row and jwt-secret are in DATA_DIR)
  const { server: second, source } = await restartUntilSettled(dataDir, headers, agentId, sourceId);
  expect(source.status, JSON.stringify(source)).toBe('completed');
  expect(source).toMatchObject({
    file_type: 'txt',
    file_size: Buffer.byteLength(content),
    progress: 1,
    error_message: null,
  });
  expect(await uploadsOnceEmpty(dataDir)).toEqual([]);

  const db = new Database(path.join(dataDir, 'chat-agent.db'), { readonly: true });
  try {
    const stats = db
      .prepare(
        'SELECT count(*) AS n, count(DISTINCT ordinal) AS distinctOrdinals, min(ordinal) AS lo, max(ordinal) AS hi FROM chunks WHERE source_id = ?',
      )
      .get(sourceId) as {
      n: number;
      distinctOrdinals: number;
      lo: number;
      hi: number;
    };
    expect(stats.n).toBeGreaterThan(1000);
    // no passage stored twice by the interrupted run and the one after it
    expect(stats).toEqual({ n: stats.n, distinctOrdinals: stats.n, lo: 0, hi: stats.n - 1 });
    const markerChunks = db
      .prepare(`SELECT count(*) AS n FROM chunks WHERE source_id = ? AND content LIKE '%Kestrelby%'`)
      .get(sourceId) as { n: number };
    expect(markerChunks.n).toBe(1);
  } finally {
    db.close();
  }

  // and it is searchable: with no provider key the agent answers from its knowledge (docs/API.md "Without a provider key")
  const chat = await fetch(`${second.base}/api/public/chat/${agentId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'Who patrols the Kestrelby orchard?', session_id: 'restart-session' }),
  });
  expect(chat.status).toBe(200);
  expect((await json(chat)).message).toContain('Ultramarine tortoises patrol the Kestrelby orchard');
}

function tempDataDir(): string {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'chat-agent-restart-'));
  dirs.push(dataDir);
  return dataDir;
}

/** A server on a new DATA_DIR that has just accepted the orchard text (orchardText) as a large file (acceptLargeFile). */
async function orchardAccepted() {
  const dataDir = tempDataDir();
  const content = orchardText();
  return { dataDir, content, ...(await acceptLargeFile(dataDir, content)) };
}

describe('ingestion survives a crash (SIGKILL, then a restart on the same DATA_DIR)', () => {
  it('a file accepted just before the kill is ingested after the restart, not left processing', {
    timeout: RECOVERY_MS + 60_000,
  }, async () => {
    const { dataDir, content, server, headers, agentId, sourceId } = await orchardAccepted();
    await crash(server);
    expectInterrupted(dataDir, sourceId);
    await expectRecovered(dataDir, agentId, sourceId, headers, content);
  });

  it('a file killed while its passages were being stored completes after the restart with each passage once', {
    timeout: RECOVERY_MS + 60_000,
  }, async () => {
    const { dataDir, content, server, headers, agentId, sourceId } = await orchardAccepted();
    // watch the database (WAL: a second reader is fine) until some passages are stored, then kill
    const reader = new Database(path.join(dataDir, 'chat-agent.db'), { readonly: true });
    let state: { status: string; chunks: number };
    try {
      const read = reader.prepare(
        'SELECT status, (SELECT count(*) FROM chunks WHERE source_id = sources.id) AS chunks FROM sources WHERE id = ?',
      );
      const deadline = Date.now() + 30_000;
      for (;;) {
        state = read.get(sourceId) as { status: string; chunks: number };
        if (state.status !== 'processing' || state.chunks > 0 || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 10));
      }
    } finally {
      reader.close();
    }
    expect(state.status).toBe('processing');
    expect(state.chunks).toBeGreaterThan(0);
    await crash(server);
    expectInterrupted(dataDir, sourceId);
    const db = new Database(path.join(dataDir, 'chat-agent.db'), { readonly: true });
    const partial = (db.prepare('SELECT count(*) AS n FROM chunks WHERE source_id = ?').get(sourceId) as { n: number })
      .n;
    db.close();
    expect(partial).toBeGreaterThan(0);
    await expectRecovered(dataDir, agentId, sourceId, headers, content);
  });

  /**
   * Issue 31 fault 4: a source whose processing the server's own crashes cut short three times is
   * failed (not tried a fourth time), and said "Processing failed 3 times because of an internal
   * error": nothing about what happened or what to do with the file.
   */
  it('a file the server crashed on three times ends failed with a message saying what happened and what to try', {
    timeout: RECOVERY_MS + 120_000,
  }, async () => {
    const { dataDir, server, headers, agentId, sourceId } = await orchardAccepted();
    const attemptsOf = () => {
      const db = new Database(path.join(dataDir, 'chat-agent.db'), { readonly: true });
      try {
        return (db.prepare('SELECT attempts FROM jobs WHERE subject_id = ?').get(sourceId) as { attempts: number })
          .attempts;
      } finally {
        db.close();
      }
    };
    // each start takes the job up again before it listens; each crash cuts that run short
    await crash(server);
    for (let crashes = 1; crashes < 3; crashes++) {
      expectInterrupted(dataDir, sourceId);
      expect(attemptsOf()).toBe(crashes);
      await crash(await boot(dataDir));
    }
    expectInterrupted(dataDir, sourceId);
    expect(attemptsOf()).toBe(3);

    const { source } = await restartUntilSettled(dataDir, headers, agentId, sourceId);
    expect(source.status).toBe('failed');
    expect(source.error_message).not.toMatch(/internal error/);
    // what happened
    expect(source.error_message).toMatch(/server stopped unexpectedly .*3 times/);
    // and what to do about it
    expect(source.error_message).toMatch(/damaged or too complex/);
    expect(source.error_message).toMatch(/save .* again|export/);
    expect(source.error_message).toMatch(/smaller files/);
    // the upload is not kept for a fourth try
    expect(await uploadsOnceEmpty(dataDir)).toEqual([]);
  });
});
