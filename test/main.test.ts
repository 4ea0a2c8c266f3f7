import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  BOOT_TIMEOUT_MS,
  fromSource,
  repoRoot,
  runCommand,
  startProcess,
  stopServer,
  useServerProcesses,
  withTimeout,
  type ServerProcess,
} from './helpers/server-process.js';

/**
 * The real entry point in a child process: `node --import tsx src/main.ts` with nothing in its
 * environment but PATH and the few variables each test names.
 */

const pkgVersion = (JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string })
  .version;

const { tempDir } = useServerProcesses('chat-agent-main-');

/** The server from source with nothing in its environment but PATH and `env`. */
function startServer(env: Record<string, string>): ServerProcess {
  return startProcess(fromSource(), { env: { PATH: process.env.PATH ?? '', ...env } });
}

function baseEnv(dataDir: string): Record<string, string> {
  return { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' };
}

/** Boots a server and returns it with the base URL read from its `listening on` log line. */
async function boot(env: Record<string, string>): Promise<{ server: ServerProcess; base: string }> {
  const server = startServer(env);
  const rec = await server.waitFor(
    (r) => typeof r.msg === 'string' && r.msg.startsWith('listening on'),
    'the listening log line',
  );
  const address = String(rec.address ?? rec.msg.replace(/^listening on\s+/, ''));
  expect(address).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(Number(new URL(address).port)).toBeGreaterThan(0);
  return { server, base: address };
}

/** The SQLite files in `dir` that hold data (not the one-server lock, `<database>.lock`). */
function sqliteFilesIn(dir: string): string[] {
  return readdirSync(dir).filter((f) => {
    if (f.endsWith('.lock')) return false;
    const p = path.join(dir, f);
    if (!statSync(p).isFile() || statSync(p).size < 16) return false;
    return readFileSync(p).subarray(0, 16).toString('latin1') === 'SQLite format 3\0';
  });
}

async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

describe('main.ts as a process', () => {
  it('boots with no configuration, serves health, and shuts down cleanly on SIGTERM', { timeout: 60_000 }, async () => {
    const dataDir = tempDir();
    const { server, base } = await boot(baseEnv(dataDir));

    const health = await fetch(`${base}/api/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toStrictEqual({ status: 'ok', version: pkgVersion, database: 'ok' });

    // pino JSON on stdout, at info level and above
    expect(server.records.length).toBeGreaterThan(0);
    for (const r of server.records) expect(r.level).toBeGreaterThanOrEqual(30);
    // docs/API.md "Without a provider key": the startup log says chat answers from the knowledge base
    await server.waitFor(
      (r) => r.level >= 40 && /provider/i.test(r.msg) && /knowledge/i.test(r.msg),
      'the no-provider warning',
    );

    const { code, signal } = await stopServer(server, 'SIGTERM');
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(server.records.some((r) => /shutting down/i.test(r.msg))).toBe(true);

    // one SQLite file in DATA_DIR, the generated secret beside it, and a WAL folded back on close
    const dbFiles = sqliteFilesIn(dataDir);
    expect(dbFiles).toHaveLength(1);
    const dbFile = path.join(dataDir, dbFiles[0]!);
    expect(existsSync(path.join(dataDir, 'jwt-secret'))).toBe(true);
    const wal = `${dbFile}-wal`;
    expect(!existsSync(wal) || statSync(wal).size === 0, 'WAL checkpointed on shutdown').toBe(true);
    const db = new Database(dbFile, { readonly: true });
    try {
      const tables = (
        db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as Array<{ name: string }>
      ).map((r) => r.name);
      expect(tables).toEqual(expect.arrayContaining(['users', 'sessions', 'chatbots']));
    } finally {
      db.close();
    }
  });

  it('still exits at SIGTERM when its stdout and stderr are gone (the process reading them exited)', {
    timeout: 60_000,
  }, async () => {
    const { server } = await boot(baseEnv(tempDir()));
    // (the child's own exit: the helper's `exited` also waits for the stdout it reads to end)
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      server.child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    server.child.stdout!.destroy();
    server.child.stderr!.destroy();
    server.child.kill('SIGTERM');
    // well inside the 10 s shutdown grace: the logger must not hold the exit (it once retried its
    // failed last write forever)
    const { code, signal } = await withTimeout(exited, 8_000, 'exit after SIGTERM with stdout closed');
    expect({ code, signal }).toEqual({ code: 0, signal: null });
  });

  for (const [variable, value] of [
    ['PORT', 'abc'],
    ['REGISTRATION', 'maybe'],
    ['JWT_SECRET', 'too-short'],
  ] as const) {
    it(`refuses to boot with ${variable}=${value}: exit code 1 and one stderr line naming it`, {
      timeout: 60_000,
    }, async () => {
      const dataDir = tempDir();
      const server = startServer({ ...baseEnv(dataDir), [variable]: value });
      const { code } = await withTimeout(server.exited, BOOT_TIMEOUT_MS, 'the refused boot to exit');
      expect(code).toBe(1);
      const lines = server.stderr().trim().split('\n');
      expect(lines, server.stderr()).toHaveLength(1);
      expect(lines[0]).toContain(variable);
      expect(server.records.some((r) => /listening on/.test(r.msg))).toBe(false);
    });
  }

  it('a keep-alive client whose request was in flight at SIGTERM does not hold the shutdown: exit 0, database closed', {
    timeout: 60_000,
  }, async () => {
    const { server, base } = await boot({ ...baseEnv(tempDir()), REGISTRATION: 'open' });
    const url = new URL(base);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const body = JSON.stringify({ name: 'Owner', email: 'owner@example.com', password: 'kept alive too long' });
      let sent!: () => void;
      const headersSent = new Promise<void>((resolve) => (sent = resolve));
      const answered = new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        const req = http.request(
          {
            host: url.hostname,
            port: url.port,
            path: '/api/auth/register',
            method: 'POST',
            agent,
            headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
          },
        );
        req.on('error', reject);
        // half the body now: the request is in flight when SIGTERM arrives
        req.write(body.slice(0, 10), () => sent());
        void server
          .waitFor((r) => /shutting down/.test(r.msg), 'the shutdown to begin')
          .then(() => req.end(body.slice(10)));
      });
      await headersSent;
      // the server has parsed the request (not merely the kernel holding its bytes): a connection
      // with no parsed request yet is ended at once at shutdown, by design (silent-connections.ts)
      await server.waitFor(
        (r) => r.msg === 'incoming request' && (r.req as { url?: string } | undefined)?.url === '/api/auth/register',
        'the server to read the request',
      );
      server.child.kill('SIGTERM');
      expect((await answered).status).toBe(201);
      // the connection stays open on the client's side (keep-alive): the server must close it
      expect(await withTimeout(server.exited, 30_000, 'the server to exit')).toEqual({ code: 0, signal: null });
      expect(server.records.some((r) => r.msg === 'shutdown complete: database closed')).toBe(true);
    } finally {
      agent.destroy();
    }
  });

  it('exits with code 1 instead of hanging when the port is taken', { timeout: 60_000 }, async () => {
    const { server, base } = await boot(baseEnv(tempDir()));
    const port = new URL(base).port;
    const second = startServer({ ...baseEnv(tempDir()), PORT: port });
    const { code } = await withTimeout(second.exited, BOOT_TIMEOUT_MS, 'the second server to give up');
    expect(code).toBe(1);
    expect(second.stderr()).toMatch(/EADDRINUSE|address already in use/i);
    expect((await fetch(`${base}/api/health`)).status).toBe(200);
    expect((await stopServer(server)).code).toBe(0);
  });

  it('keeps accounts, sessions and the signing key across a restart on the same DATA_DIR', {
    timeout: 90_000,
  }, async () => {
    const dataDir = tempDir();
    const email = 'owner@example.com';
    const password = 'restart survives this';

    const first = await boot(baseEnv(dataDir));
    const reg = await postJson(`${first.base}/api/auth/register`, { name: 'Owner', email, password });
    expect(reg.status).toBe(201);
    const { access_token: firstToken } = (await reg.json()) as { access_token: string };
    const me1 = await fetch(`${first.base}/api/auth/me`, { headers: { authorization: `Bearer ${firstToken}` } });
    expect(me1.status).toBe(200);
    const user = (await me1.json()) as { id: string; role: string };
    expect(user.role).toBe('admin');
    expect(await stopServer(first.server)).toEqual({ code: 0, signal: null });

    const second = await boot(baseEnv(dataDir));
    const login = await postJson(`${second.base}/api/auth/login`, { email, password });
    expect(login.status).toBe(200);
    const { access_token: secondToken } = (await login.json()) as { access_token: string };
    const me2 = await fetch(`${second.base}/api/auth/me`, { headers: { authorization: `Bearer ${secondToken}` } });
    expect(me2.status).toBe(200);
    expect(((await me2.json()) as { id: string }).id).toBe(user.id);

    // the token issued before the restart is still good: session row and jwt-secret both persisted
    const old = await fetch(`${second.base}/api/auth/me`, { headers: { authorization: `Bearer ${firstToken}` } });
    expect(old.status).toBe(200);

    // REGISTRATION defaults to first-only: the owner exists, so nobody else may register
    const other = await postJson(`${second.base}/api/auth/register`, {
      name: 'Late',
      email: 'late@example.com',
      password: 'another password',
    });
    expect(other.status).toBe(403);

    expect(await stopServer(second.server, 'SIGINT')).toEqual({ code: 0, signal: null });
  });
});

/** Issue 21.2 and 21.3: one server per database, and only a database this version can use. */
describe('the database a server starts on', () => {
  function cli(args: string[], env: Record<string, string>) {
    const cmd = fromSource(args);
    return runCommand(cmd, { env: { PATH: process.env.PATH ?? '', ...env } });
  }

  it('a second server on the same DATA_DIR refuses to start with a clear message; the first goes on, and migrate refuses too', {
    timeout: 90_000,
  }, async () => {
    const dataDir = tempDir();
    const first = await boot(baseEnv(dataDir));
    const reg = await postJson(`${first.base}/api/auth/register`, {
      name: 'Owner',
      email: 'owner@example.com',
      password: 'two servers never',
    });
    expect(reg.status).toBe(201);

    const second = startServer(baseEnv(dataDir));
    const { code } = await withTimeout(second.exited, BOOT_TIMEOUT_MS, 'the second server to refuse');
    expect(code).toBe(1);
    const lines = second.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/in use by another chat-agent process/);

    const migrate = await cli(['migrate'], { DATA_DIR: dataDir });
    expect(migrate.code).toBe(1);
    expect(migrate.stderr).toMatch(/in use by another chat-agent process/);

    // the first was never disturbed
    const login = await postJson(`${first.base}/api/auth/login`, {
      email: 'owner@example.com',
      password: 'two servers never',
    });
    expect(login.status).toBe(200);
    expect(await stopServer(first.server)).toEqual({ code: 0, signal: null });

    // once it has stopped, the lock is free again (also after kill -9: the OS drops it with the process)
    const third = await boot(baseEnv(dataDir));
    third.server.child.kill('SIGKILL');
    await third.server.exited;
    const fourth = await boot(baseEnv(dataDir));
    expect((await fetch(`${fourth.base}/api/health`)).status).toBe(200);
    expect(await stopServer(fourth.server)).toEqual({ code: 0, signal: null });
  });

  const refusals: Array<[string, (file: string) => void, RegExp]> = [
    ['an empty (0-byte) file', (file) => writeFileSync(file, ''), /is empty \(0 bytes\).*restore/],
    [
      'a file that is not a database',
      (file) => writeFileSync(file, 'name,phone\nAnn,555\n'.repeat(500)),
      /is not a database.*restore/,
    ],
    [
      'an SQLite database of something else',
      (file) => {
        const other = new Database(file);
        other.exec('CREATE TABLE notes (body TEXT)');
        other.close();
      },
      /not a chat-agent one.*restore/,
    ],
  ];
  for (const [what, make, message] of refusals) {
    it(`refuses to start on ${what}, even with first-only registration open to the next visitor`, {
      timeout: 60_000,
    }, async () => {
      const dataDir = tempDir();
      const file = path.join(dataDir, 'chat-agent.db');
      make(file);
      const before = readFileSync(file);
      const server = startServer({ ...baseEnv(dataDir), REGISTRATION: 'first-only' });
      const { code } = await withTimeout(server.exited, BOOT_TIMEOUT_MS, 'the server to refuse');
      expect(code).toBe(1);
      expect(server.stderr()).toMatch(message);
      expect(server.stderr().trim().split('\n')).toHaveLength(1);
      // the file is left as it was, for its owner to look at
      expect(readFileSync(file).equals(before)).toBe(true);
    });
  }

  it('refuses a database written by a newer version; migrate says so and exits 1', { timeout: 90_000 }, async () => {
    const dataDir = tempDir();
    const made = await cli(['migrate'], { DATA_DIR: dataDir });
    expect(made.code, made.stderr).toBe(0);
    const file = path.join(dataDir, 'chat-agent.db');
    const db = new Database(file);
    db.prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)').run(
      'from-the-future',
      Date.parse('2099-01-01T00:00:00Z'),
    );
    db.close();

    const migrate = await cli(['migrate'], { DATA_DIR: dataDir });
    expect(migrate.code).toBe(1);
    expect(migrate.stderr).toMatch(/written by a newer version of chat-agent.*2099-01-01/);
    const server = startServer(baseEnv(dataDir));
    expect((await withTimeout(server.exited, BOOT_TIMEOUT_MS, 'the server to refuse')).code).toBe(1);
    expect(server.stderr()).toMatch(/written by a newer version/);
  });
});
