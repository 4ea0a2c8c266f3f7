import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';

/**
 * The real server (or a CLI command) as a child process, with helpers that wait on its log lines
 * and its exit instead of sleeping.
 */

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BOOT_TIMEOUT_MS = 30_000;

export interface LogRecord {
  level: number;
  msg: string;
  [k: string]: unknown;
}

export interface ServerProcess {
  child: ChildProcess;
  records: LogRecord[];
  stdoutLines: string[];
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** resolves with the first log record matching, past or future; rejects on timeout or exit */
  waitFor(match: (r: LogRecord) => boolean, what: string, timeoutMs?: number): Promise<LogRecord>;
}

/** `node --import tsx src/main.ts <args>`: the entry of `npm start` from source. */
export function fromSource(args: string[] = []): { command: string; args: string[] } {
  return { command: process.execPath, args: ['--import', 'tsx', path.join(repoRoot, 'src', 'main.ts'), ...args] };
}

const started: ChildProcess[] = [];

/** Kills (SIGKILL) whatever is still running; call from afterEach. */
export async function killAll(): Promise<void> {
  for (const child of started.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await gone;
    }
  }
}

export function startProcess(
  cmd: { command: string; args: string[] },
  opts: { env: Record<string, string>; cwd?: string; stdin?: string },
): ServerProcess {
  const child = spawn(cmd.command, cmd.args, {
    cwd: opts.cwd ?? repoRoot,
    env: opts.env,
    stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (opts.stdin !== undefined) child.stdin!.end(opts.stdin);
  started.push(child);
  const records: LogRecord[] = [];
  const stdoutLines: string[] = [];
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const waiters = new Set<() => void>();
  const exitedRaw = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      resolve({ code, signal });
      for (const w of waiters) w();
    });
  });
  const stdoutDone = new Promise<void>((resolve) => {
    const rl = createInterface({ input: child.stdout! });
    rl.on('line', (line) => {
      stdoutLines.push(line);
      try {
        records.push(JSON.parse(line) as LogRecord);
      } catch {
        // not JSON (CLI output): kept in stdoutLines only
      }
      for (const w of waiters) w();
    });
    rl.once('close', resolve);
  });
  const describe = () => `\nstdout:\n${stdoutLines.join('\n')}\nstderr:\n${stderr}`;

  return {
    child,
    records,
    stdoutLines,
    stderr: () => stderr,
    exited: exitedRaw.then(async (r) => {
      await stdoutDone;
      return r;
    }),
    waitFor(match, what, timeoutMs = BOOT_TIMEOUT_MS) {
      return new Promise<LogRecord>((resolve, reject) => {
        const check = () => {
          const found = records.find(match);
          if (found) {
            cleanup();
            resolve(found);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            cleanup();
            reject(new Error(`process exited (${child.exitCode ?? child.signalCode}) before ${what}${describe()}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out waiting for ${what}${describe()}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
  };
}

/** Starts a server and resolves with it and the base URL of its `listening on` log line. */
export async function bootServer(
  cmd: { command: string; args: string[] },
  opts: { env: Record<string, string>; cwd?: string },
): Promise<{ server: ServerProcess; base: string }> {
  const server = startProcess(cmd, opts);
  const rec = await server.waitFor(
    (r) => typeof r.msg === 'string' && r.msg.startsWith('listening on'),
    'the listening log line',
  );
  return { server, base: String(rec.address) };
}

/** Runs a CLI command to completion. */
export async function runCommand(
  cmd: { command: string; args: string[] },
  opts: { env: Record<string, string>; cwd?: string; stdin?: string },
  timeoutMs = BOOT_TIMEOUT_MS,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = startProcess(cmd, opts);
  const { code } = await withTimeout(p.exited, timeoutMs, `${cmd.args.join(' ')} to exit`);
  return { code, stdout: p.stdoutLines.join('\n'), stderr: p.stderr() };
}

export async function stopServer(server: ServerProcess, signal: NodeJS.Signals = 'SIGTERM') {
  server.child.kill(signal);
  return withTimeout(server.exited, 20_000, `exit after ${signal}`);
}

/** `p`, or a failure naming `what` after `ms` (a clear message instead of the test's own timeout). */
export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
    }),
  ]);
}

export async function postJson(url: string, body: unknown, token?: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
}

/** Registers, creates an agent (no provider key: it answers from its knowledge) and returns both. */
export async function ownerWithAgent(
  base: string,
  email = 'owner@example.com',
  password = 'a long enough password',
): Promise<{ token: string; agentId: string }> {
  const reg = await postJson(`${base}/api/auth/register`, { name: 'Owner', email, password });
  if (reg.status !== 201) throw new Error(`register: ${reg.status} ${await reg.text()}`);
  const { access_token: token } = (await reg.json()) as { access_token: string };
  const agent = await postJson(
    `${base}/api/chatbots`,
    { name: 'Shop bot', welcome_message: 'Hi, ask me about the shop.' },
    token,
  );
  if (agent.status !== 201) throw new Error(`create agent: ${agent.status} ${await agent.text()}`);
  return { token, agentId: ((await agent.json()) as { id: string }).id };
}

/** Plans with rate limits high enough for a writer loop. */
export const UNLIMITED_PLANS = JSON.stringify({
  free: {
    max_agents: 100,
    max_account_leads: 100000,
    monthly_messages: 10000000,
    requests_per_minute: 1000000,
    requests_per_hour: 10000000,
    custom_branding: true,
  },
});

/** UNLIMITED_PLANS written to `file` (for PLANS_FILE); returns `file`. */
export function unlimitedPlansFile(file: string): string {
  writeFileSync(file, UNLIMITED_PLANS);
  return file;
}

/**
 * A server's whole environment: this PATH, `dataDir`, a port the OS picks on loopback and info
 * logs, then `extra` (PLANS_FILE, LOG_LEVEL, ...).
 */
export function serverEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...extra };
}

/**
 * For suites of server processes: after each test every process started here is killed and the
 * paths given to `remove` (and the dirs `tempDir` made) are removed. Returns both.
 */
export function useServerProcesses(prefix: string): { tempDir(): string; remove(p: string): string } {
  const paths: string[] = [];
  afterEach(async () => {
    await killAll();
    for (const p of paths.splice(0)) rmSync(p, { recursive: true, force: true });
  }, 60_000);
  return {
    tempDir() {
      const dir = mkdtempSync(path.join(tmpdir(), prefix));
      paths.push(dir);
      return dir;
    },
    remove(p: string) {
      paths.push(p);
      return p;
    },
  };
}
