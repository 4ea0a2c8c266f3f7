import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { auth, createAgent, registerUser, startTestApp } from '../helpers/app.js';
import { postFile, uploadFile } from '../helpers/sources.js';
import { oneOfEachFormat } from '../helpers/documents.js';
import {
  bootServer,
  killAll,
  ownerWithAgent,
  postJson,
  repoRoot,
  runCommand,
  stopServer,
  UNLIMITED_PLANS,
} from '../helpers/server-process.js';
import { serveOnTerminal } from '../helpers/terminal.js';
import { type FakeLlm, type FakeProviderName, providerEnv, startFakeLlm } from '../helpers/fake-llm.js';
import { startLocalSite } from '../helpers/local-site.js';
import { startSmtp } from '../helpers/smtp.js';

/**
 * Issue "Ship it": `npm run build:sea` writes dist/chat-agent; copied alone into an empty folder
 * and run with no node on PATH (and no node_modules anywhere near), it serves the whole product.
 * Built once for this file.
 */

let work: string;
let binary: { command: string; args: string[] };
let home: string;
const dirs: string[] = [];

/** PATH has no node; HOME is private so the asset cache starts empty; plan limits high enough for polling. */
function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: '/nonexistent',
    HOME: home,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    PLANS_FILE: path.join(work, 'plans.json'),
    ...extra,
  };
}

function tempDir(name: string): string {
  const dir = path.join(work, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

beforeAll(() => {
  execFileSync(process.execPath, ['scripts/build-sea.mjs'], { cwd: repoRoot, stdio: 'pipe' });
  work = mkdtempSync(path.join(tmpdir(), 'chat-agent-sea-test-'));
  dirs.push(work);
  const bin = path.join(work, 'bin');
  mkdirSync(bin);
  copyFileSync(path.join(repoRoot, 'dist', 'chat-agent'), path.join(bin, 'chat-agent'));
  execFileSync('chmod', ['755', path.join(bin, 'chat-agent')]);
  binary = { command: path.join(bin, 'chat-agent'), args: [] };
  home = tempDir('home');
  writeFileSync(path.join(work, 'plans.json'), UNLIMITED_PLANS);
}, 180_000);

afterEach(killAll, 60_000);
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}, 30_000);

/** From spawn to the first 200 of /api/health (spawn, unpack if needed, migrations, listen). */
async function timeToFirst200(processEnv: Record<string, string>) {
  const t0 = performance.now();
  const { server, base } = await bootServer(binary, { env: processEnv, cwd: path.dirname(binary.command) });
  let health = await fetch(`${base}/api/health`);
  while (health.status !== 200) health = await fetch(`${base}/api/health`);
  const ms = Math.round(performance.now() - t0);
  expect(await health.json()).toMatchObject({ status: 'ok', database: 'ok' });
  return { server, base, ms };
}

describe('the single executable', () => {
  it("carries the V8 flags of npm start in its SEA config's execArgv (issue 31)", async () => {
    const { serverNodeFlags } = await import('../../scripts/node-flags.mjs');
    const flags = serverNodeFlags();
    expect(flags.length).toBeGreaterThan(0);
    const executable = readFileSync(binary.command);
    for (const flag of flags) expect(executable.includes(Buffer.from(flag)), flag).toBe(true);
  });

  it('is alone in its folder and runs without node', async () => {
    expect(readdirSync(path.dirname(binary.command))).toEqual(['chat-agent']);
    const r = await runCommand({ ...binary, args: ['version'] }, { env: env(), cwd: path.dirname(binary.command) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^chat-agent \d+\.\d+\.\d+ \(node v24\.\d+\.\d+, linux-x64, sea\)$/);
  });

  it('serves: register, agent, text and file sources, chat with no provider key; cold start and size reported', {
    timeout: 120_000,
  }, async () => {
    const dataDir = tempDir('data-serve');
    // first start on a machine: an empty asset cache, so unpacking is included; then a restart
    const firstRunEnv = env({ DATA_DIR: dataDir, HOME: tempDir('home-first-run') });
    const firstRun = await timeToFirst200(firstRunEnv);
    expect(await stopServer(firstRun.server)).toEqual({ code: 0, signal: null });
    const { server, base, ms: warmMs } = await timeToFirst200(firstRunEnv);
    const sizeMb = +(statSync(binary.command).size / 1024 / 1024).toFixed(1);
    const figures = { binary_mb: sizeMb, first_run_start_to_first_200_ms: firstRun.ms, start_to_first_200_ms: warmMs };
    console.log(JSON.stringify({ figure: 'sea', ...figures }));
    mkdirSync(path.join(repoRoot, 'test-artifacts'), { recursive: true });
    writeFileSync(path.join(repoRoot, 'test-artifacts', 'sea.json'), `${JSON.stringify(figures)}\n`);

    const { token, agentId } = await ownerWithAgent(base);
    const text = await postJson(
      `${base}/api/sources/chatbot/${agentId}/text`,
      {
        name: 'Opening hours',
        content:
          'The shop in Lisbon opens at nine in the morning and closes at six in the evening, Monday to Saturday.',
      },
      token,
    );
    expect(text.status, await text.clone().text()).toBe(201);
    const chat = await postJson(
      `${base}/api/chat`,
      { chatbot_id: agentId, message: 'When does the Lisbon shop open?' },
      token,
    );
    expect(chat.status, await chat.clone().text()).toBe(200);
    const answer = (await chat.json()) as { message: string; sources: Array<{ name: string }> };
    expect(answer.message).toMatch(/nine in the morning/);
    expect(answer.sources.map((s) => s.name)).toContain('Opening hours');

    // a file source goes through the parser worker threads, unpacked from the executable
    const upload = await postFile(
      base,
      token,
      agentId,
      'parking.txt',
      'Parking is free behind the Porto warehouse for customers with a receipt.',
      'text/plain',
    );
    expect(upload.status, await upload.clone().text()).toBe(201);
    const sourceId = ((await upload.json()) as { id: string }).id;
    // no log line marks a finished source: its status over HTTP is the observable (each poll is a round trip)
    let status = '';
    const deadline = Date.now() + 60_000;
    while (status !== 'completed' && status !== 'failed' && Date.now() < deadline) {
      const list = await fetch(`${base}/api/sources/chatbot/${agentId}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(list.status).toBe(200);
      status = ((await list.json()) as Array<{ id: string; status: string }>).find((s) => s.id === sourceId)!.status;
    }
    expect(status).toBe('completed');
    const chat2 = await postJson(
      `${base}/api/chat`,
      { chatbot_id: agentId, message: 'Is parking free at the Porto warehouse?' },
      token,
    );
    expect(((await chat2.json()) as { message: string }).message).toMatch(/Parking is free/);

    const probe = await runCommand({ ...binary, args: ['healthcheck', '--port', new URL(base).port] }, { env: env() });
    expect(probe.code, probe.stderr).toBe(0);

    const docs = await fetch(`${base}/docs/`);
    expect(docs.status).toBe(200);

    expect(await stopServer(server)).toEqual({ code: 0, signal: null });
    // the chats' keyword searches ran in their worker thread, unpacked from the executable, not in the main-thread fallback
    expect(server.stdoutLines.filter((line) => line.includes('worker failed'))).toEqual([]);
    const db = new Database(path.join(dataDir, 'chat-agent.db'), { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
  });

  it('ingests pdf, docx, xlsx, csv and txt into the same passages as from source', { timeout: 180_000 }, async () => {
    const files = await oneOfEachFormat();

    // from source: the same files through the app in this process (tsx, the worker's TypeScript entry)
    const fromSource = new Map<string, string[]>();
    const t = await startTestApp({ env: { EMBEDDINGS: 'none' } });
    try {
      const { token } = await registerUser(t.app);
      const agent = await createAgent(t.app, token);
      const ids = new Map<string, string>();
      for (const f of files) {
        const res = await uploadFile(t, token, agent.id, f.name, f.content);
        expect(res.statusCode, res.body).toBe(201);
        ids.set(f.name, res.json().id);
      }
      const list = async () =>
        (
          await t.app.inject({ method: 'GET', url: `/api/sources/chatbot/${agent.id}`, headers: auth(token) })
        ).json() as Array<{ id: string; status: string }>;
      await untilSettled(list, ids.size);
      for (const [name, id] of ids) fromSource.set(name, passages(t.database.sqlite, id));
    } finally {
      await t.cleanup();
    }

    const dataDir = tempDir('data-formats');
    const { server, base } = await bootServer(binary, { env: env({ DATA_DIR: dataDir }) });
    const { token, agentId } = await ownerWithAgent(base, 'formats@example.com');
    const ids = new Map<string, string>();
    for (const f of files) {
      const upload = await postFile(base, token, agentId, f.name, f.content);
      expect(upload.status, await upload.clone().text()).toBe(201);
      ids.set(f.name, ((await upload.json()) as { id: string }).id);
    }
    const list = async () =>
      (await (
        await fetch(`${base}/api/sources/chatbot/${agentId}`, { headers: { authorization: `Bearer ${token}` } })
      ).json()) as Array<{ id: string; status: string; error_message: string | null }>;
    const settled = await untilSettled(list, ids.size);
    expect(settled.map((s) => [s.status, s.error_message])).toEqual(settled.map(() => ['completed', null]));
    expect(await stopServer(server)).toEqual({ code: 0, signal: null });

    const db = new Database(path.join(dataDir, 'chat-agent.db'), { readonly: true });
    try {
      for (const [name, id] of ids) {
        const fromBinary = passages(db, id);
        expect(fromBinary.length, name).toBeGreaterThan(1);
        expect(fromBinary, name).toEqual(fromSource.get(name));
      }
    } finally {
      db.close();
    }
  });

  it('backs up while serving and restores into a fresh folder that it then serves', { timeout: 120_000 }, async () => {
    const dataDir = tempDir('data-live');
    const { server, base } = await bootServer(binary, { env: env({ DATA_DIR: dataDir }) });
    const { agentId, token } = await ownerWithAgent(base, 'boss@example.com');
    await postJson(
      `${base}/api/sources/chatbot/${agentId}/text`,
      { name: 'Returns', content: 'Returns are accepted within thirty days with the original receipt.' },
      token,
    );

    const backupFile = path.join(work, 'live.db');
    const backup = await runCommand({ ...binary, args: ['backup', backupFile, '--data-dir', dataDir] }, { env: env() });
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toContain('integrity_check ok');

    // the live database cannot be replaced under the running server
    const refused = await runCommand(
      { ...binary, args: ['restore', backupFile, '--data-dir', dataDir] },
      { env: env() },
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/in use/);
    expect(await stopServer(server)).toEqual({ code: 0, signal: null });

    const fresh = tempDir('data-restored');
    const restore = await runCommand({ ...binary, args: ['restore', backupFile, '--data-dir', fresh] }, { env: env() });
    expect(restore.code, restore.stderr).toBe(0);
    const second = await bootServer(binary, { env: env({ DATA_DIR: fresh }) });
    const login = await postJson(`${second.base}/api/auth/login`, {
      email: 'boss@example.com',
      password: 'a long enough password',
    });
    expect(login.status).toBe(200);
    const newToken = ((await login.json()) as { access_token: string }).access_token;
    const chat = await postJson(
      `${second.base}/api/chat`,
      { chatbot_id: agentId, message: 'Can I return something after thirty days?' },
      newToken,
    );
    expect(chat.status).toBe(200);
    expect(((await chat.json()) as { message: string }).message).toMatch(/thirty days/);
    expect(await stopServer(second.server)).toEqual({ code: 0, signal: null });
  });

  it('loads what it keeps for first use from bundles of their own: the four LLM SDKs, cheerio, nodemailer, the docs', {
    timeout: 120_000,
  }, async () => {
    // scripts/build-sea.mjs LOADED_ON_FIRST_USE: each package is required from the unpacked
    // dir when first used, so each is used here once, as an owner would
    const providers: FakeProviderName[] = ['openai', 'anthropic', 'google', 'ollama'];
    const fakes: FakeLlm[] = [];
    const site = await startLocalSite({
      '/': '<html><head><title>Bakery</title></head><body><h1>Bakery</h1><p>Our sourdough is baked at dawn.</p></body></html>',
    });
    const smtp = await startSmtp();
    try {
      for (const provider of providers) fakes.push(await startFakeLlm(provider));
      const { server, base } = await bootServer(binary, {
        env: env({
          DATA_DIR: tempDir('data-first-use'),
          ALLOW_PRIVATE_URLS: 'true',
          SMTP_URL: smtp.url,
          ...Object.assign({}, ...fakes.map((f) => providerEnv(f, 'sk-test'))),
        }),
        cwd: path.dirname(binary.command),
      });
      const { token } = await ownerWithAgent(base, 'first-use@example.com');
      for (const fake of fakes) {
        const agent = await postJson(`${base}/api/chatbots`, { name: fake.provider, provider: fake.provider }, token);
        expect(agent.status, await agent.clone().text()).toBe(201);
        const chatbotId = ((await agent.json()) as { id: string }).id;
        const chat = await postJson(`${base}/api/chat`, { chatbot_id: chatbotId, message: 'Hello?' }, token);
        expect(chat.status, await chat.clone().text()).toBe(200);
        expect(((await chat.json()) as { message: string }).message).toBe(`Hello from the fake ${fake.provider}.`);
      }

      const site1 = await postJson(`${base}/api/chatbots`, { name: 'Bakery' }, token);
      const agentId = ((await site1.json()) as { id: string }).id;
      const crawl = await postJson(
        `${base}/api/sources/chatbot/${agentId}/website`,
        { url: `${site.url}/`, max_pages: 1 },
        token,
      );
      expect(crawl.status, await crawl.clone().text()).toBe(201);
      let status = '';
      const deadline = Date.now() + 60_000;
      while (status !== 'completed' && status !== 'failed' && Date.now() < deadline) {
        const list = await fetch(`${base}/api/sources/chatbot/${agentId}`, {
          headers: { authorization: `Bearer ${token}` },
        });
        status = ((await list.json()) as Array<{ status: string }>)[0]!.status;
      }
      expect(status).toBe('completed');

      const reset = await postJson(`${base}/api/auth/password-reset`, { email: 'first-use@example.com' });
      expect(reset.status).toBe(202);
      expect((await smtp.waitFor(1)).to).toEqual(['first-use@example.com']);

      const docs = await fetch(`${base}/docs`);
      expect(docs.status).toBe(200);
      expect(await docs.text()).toMatch(/swagger/i);
      expect((await fetch(`${base}/openapi.json`)).status).toBe(200);
      expect(await stopServer(server)).toEqual({ code: 0, signal: null });
    } finally {
      await Promise.all([...fakes.map((f) => f.close()), site.close(), smtp.close()]);
    }
  });

  it('logs readable lines on a terminal (pino-pretty inside the executable), JSON through a pipe', async () => {
    const run = await serveOnTerminal(binary, env({ DATA_DIR: tempDir('data-tty') }));
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/\] INFO: listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(run.output).toMatch(/\] INFO: shutdown complete: database closed/);
    expect(
      run.lines.filter((l) => l.trimStart().startsWith('{')),
      run.output,
    ).toEqual([]);
  });

  it('gives one-line errors and a non-zero exit for bad input', async () => {
    for (const args of [
      ['nosuch'],
      ['--port', 'abc'],
      ['restore'],
      ['restore', '/nonexistent/backup.db', '--data-dir', tempDir('data-bad')],
      ['users', 'set-status', 'a@example.com', 'frozen'],
    ]) {
      const r = await runCommand({ ...binary, args }, { env: env({ DATA_DIR: tempDir('data-bad') }) });
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr.trim().split('\n'), `${args.join(' ')}: ${r.stderr}`).toHaveLength(1);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });
});

/** The texts of a source's passages, in order. */
function passages(db: Database.Database, sourceId: string): string[] {
  return (
    db.prepare('SELECT content FROM chunks WHERE source_id = ? ORDER BY ordinal').all(sourceId) as Array<{
      content: string;
    }>
  ).map((r) => r.content);
}

/** Polls the source list (its status is the observable; each poll is a round trip) until every source has ended. */
async function untilSettled<T extends { status: string }>(list: () => Promise<T[]>, expected: number): Promise<T[]> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const sources = await list();
    expect(sources).toHaveLength(expected);
    if (sources.every((s) => s.status !== 'processing')) return sources;
    if (Date.now() > deadline) throw new Error(`sources still processing: ${JSON.stringify(sources)}`);
  }
}
