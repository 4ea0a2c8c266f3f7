// Shared pieces of `npm run bench`: figures as JSON lines (each beside its baseline from the same
// run, so the ratio holds on a noisy machine), child-process servers, percentiles, RSS readings.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import net from 'node:net';
import { serverNodeEnv, serverNodeFlags } from '../scripts/node-flags.mjs';

export interface Figure {
  figure: string;
  value: number | string;
  unit?: string;
  /** the same quantity for the baseline named in `baseline_of` */
  baseline?: number;
  baseline_of?: string;
  /** value / baseline */
  ratio?: number;
  goal?: string;
  met?: boolean;
  [extra: string]: unknown;
}

const results: Figure[] = [];

export function report(f: Figure): void {
  if (typeof f.value === 'number' && typeof f.baseline === 'number' && f.baseline !== 0 && f.ratio === undefined) {
    f.ratio = round(f.value / f.baseline, 3);
  }
  results.push(f);
  console.log(JSON.stringify(f));
}

/** Writes this script's figures to bench/results/<name>.json (gitignored). */
export function saveResults(name: string): void {
  const dir = path.join('bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, `${name}.json`),
    JSON.stringify({ at: new Date().toISOString(), figures: results }, null, 2),
  );
}

export const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Resident set size of a process in MB (10^6 bytes, as the goals are written), from /proc (Linux). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  // /proc reports kB meaning KiB
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return round((kib * 1024) / 1e6, 1);
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** ms from spawn to the first 200 on `readyPath` */
  startMs: number;
  /** performance.now() when it was spawned */
  startedAt: number;
  stop(): Promise<void>;
}

/** A TCP port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * Spawns `node <args>` (or `command <args>`) with `env` plus HOST/PORT on a free loopback port, and waits for the first
 * 200 on readyPath (the cold start figure is spawn to that answer). `node dist/main.js` runs with the V8 flags and
 * the environment variables of `npm start` (scripts/node-flags.mjs), so the figures are those of the server as it is
 * started.
 */
export async function spawnServer(
  args: string[],
  env: Record<string, string>,
  readyPath = '/api/health',
  command = process.execPath,
): Promise<ServerProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const asStarted = command === process.execPath && args[0] === 'dist/main.js';
  if (asStarted) args = [...serverNodeFlags(), ...args];
  const child = spawn(command, args, {
    env: {
      PATH: process.env.PATH ?? '',
      ...(asStarted ? serverNodeEnv() : {}),
      ...env,
      HOST: '127.0.0.1',
      PORT: String(port),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  let exited = false;
  child.once('exit', () => (exited = true));
  for (;;) {
    if (exited) throw new Error(`${args.join(' ')} exited before answering:\n${stderr}`);
    try {
      const res = await fetch(url + readyPath);
      if (res.status === 200) break;
    } catch {
      // not accepting yet: try again at once (a connection refusal comes back in microseconds)
      await new Promise((r) => setImmediate(r));
    }
  }
  const startMs = performance.now() - started;
  return {
    url,
    child,
    startMs,
    startedAt: started,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/** A plans file whose limits never stop a benchmark (the limiter still runs on every request). */
export function benchPlansFile(dir: string): string {
  const file = path.join(dir, 'bench-plans.json');
  const unlimited = {
    max_agents: 1000,
    max_account_leads: 1_000_000,
    monthly_messages: 100_000_000,
    requests_per_minute: 100_000_000,
    requests_per_hour: 100_000_000,
    custom_branding: true,
  };
  writeFileSync(file, JSON.stringify({ bench: unlimited }));
  return file;
}

export async function json(url: string, init: RequestInit & { token?: string } = {}): Promise<any> {
  // JSON type only for a JSON text: a FormData body sets its own multipart type with the boundary
  // (a JSON type on a 100 MB form got 413 from the JSON parser's 1 MiB limit, or EPIPE mid-send)
  const headers: Record<string, string> = {
    ...(typeof init.body === 'string' ? { 'content-type': 'application/json' } : {}),
    ...(init.headers as Record<string, string>),
  };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  const res = await fetch(url, { ...init, headers });
  const body = await res.text();
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${body}`);
  return body ? JSON.parse(body) : undefined;
}

/** Registers the owner and creates one agent through the API. */
export async function ownerWithAgent(base: string): Promise<{ token: string; agentId: string }> {
  const reg = await json(`${base}/api/auth/register`, {
    method: 'POST',
    body: JSON.stringify({ name: 'Bench', email: 'bench@example.com', password: 'benchmark-password' }),
  });
  const agent = await json(`${base}/api/chatbots`, {
    method: 'POST',
    token: reg.access_token,
    body: JSON.stringify({ name: 'Bench agent' }),
  });
  return { token: reg.access_token, agentId: agent.id };
}

/** bench/fake-llm-server.ts in a process of its own (the chat and soak benches); resolves with its URL. */
export async function spawnFakeLlmServer(): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--single-threaded-gc', '--import', 'tsx', 'bench/fake-llm-server.ts'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`fake LLM exited with ${code}`)));
  });
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/** Registers the bench's owner on `app` and makes one agent: its auth headers and the agent. */
export async function benchOwnerAgent(app: {
  inject: (o: { method: 'POST'; url: string; payload: unknown; headers?: Record<string, string> }) => Promise<{
    json: () => any;
  }>;
}): Promise<{ headers: { authorization: string }; agent: { id: string } }> {
  const reg = (
    await app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { name: 'b', email: 'b@example.com', password: 'benchmark-pass' },
    })
  ).json();
  const headers = { authorization: `Bearer ${reg.access_token}` };
  const agent = (
    await app.inject({ method: 'POST', url: '/api/chatbots', headers, payload: { name: 'bench' } })
  ).json();
  return { headers, agent };
}
