import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneOfEachFormat } from '../helpers/documents.js';
import { postFile } from '../helpers/sources.js';
import { ownerWithAgent, postJson, repoRoot, UNLIMITED_PLANS } from '../helpers/server-process.js';
import { freePort } from '../helpers/smtp.js';

/**
 * The Dockerfile, built and run for real with podman (Debian's package; `.ci/run` installs it with
 * runc and debootstrap). This machine reaches no image registry, so the two base images the
 * Dockerfile names by argument are made here: Debian bookworm by debootstrap, plus this Node 24
 * and npm for the build stage. They are made once per machine and kept in podman's image store
 * under localhost/chat-agent-test/, tagged with a hash of what goes into them (the debootstrap
 * recipe, the CA bundle, this node and npm), so a run only remakes them when that changes.
 * The build stage is tagged too (BUILD_STAGE): the clean-up's prune then keeps its layers, and the
 * next run's `npm ci` is a cache hit unless package.json or package-lock.json changed.
 *
 * Where podman is missing (a developer's machine without it) the suite says so and is skipped;
 * CI always has it.
 */

const run = promisify(execFile);
const hasPodman =
  ['/usr/bin/podman', '/usr/local/bin/podman'].some((p) => existsSync(p)) && existsSync('/usr/sbin/debootstrap');
if (!hasPodman) console.log('container test skipped: podman and debootstrap are not installed (.ci/run installs them)');

/** what goes into the bookworm base: debootstrap's arguments and this machine's CA bundle */
const DEBOOTSTRAP_ARGS = ['--variant=minbase', '--include=ca-certificates,libstdc++6,binutils', 'bookworm'];
const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
const BUILD_BASE_CHANGES = ['ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt'];

function hashOf(...parts: Array<string | Buffer>): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return h.digest('hex').slice(0, 16);
}

/** the directory of the npm running beside this node (copied into the build base) */
async function npmDir(): Promise<string> {
  return path.resolve(
    path.dirname(realpathSync(process.env.npm_execpath ?? (await run('which', ['npm'])).stdout.trim())),
    '..',
  );
}

const RUNTIME_HASH = hashOf(DEBOOTSTRAP_ARGS.join(' '), existsSync(CA_BUNDLE) ? readFileSync(CA_BUNDLE) : '');
let RUNTIME_BASE = '';
let BUILD_BASE = '';
const BUILD_STAGE = 'localhost/chat-agent-test/build-stage:latest';
/**
 * this run's image, by its own tag (runs from two checkouts at once do not swap images), removed
 * afterwards; also tagged LATEST, which keeps its layers (the runtime stage's apt-get) cached
 */
const IMAGE = `localhost/chat-agent-test/app:run-${process.pid}`;
const LATEST = 'localhost/chat-agent-test/app:latest';
/** the image's unprivileged user (Dockerfile) */
const APP_UID = 10001;

let work: string;
let env: NodeJS.ProcessEnv;

async function podman(args: string[], timeoutMs = 600_000): Promise<string> {
  const { stdout } = await run('podman', args, { env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim();
}

async function imageExists(name: string): Promise<boolean> {
  return run('podman', ['image', 'exists', name], { env }).then(
    () => true,
    () => false,
  );
}

/**
 * Debian bookworm (minbase plus what both stages use), imported twice: as is, and with Node 24 and
 * npm. Each is made only when podman has no image with its hash tag yet.
 */
async function makeBaseImages(): Promise<void> {
  const npm = await npmDir();
  const npmVersion = JSON.parse(readFileSync(path.join(npm, 'package.json'), 'utf8')).version as string;
  const node = statSync(process.execPath);
  RUNTIME_BASE = `localhost/chat-agent-test/bookworm-slim:${RUNTIME_HASH}`;
  BUILD_BASE = `localhost/chat-agent-test/node24-bookworm:${hashOf(
    RUNTIME_HASH,
    process.version,
    String(node.size),
    npmVersion,
    BUILD_BASE_CHANGES.join('\n'),
  )}`;
  if ((await imageExists(RUNTIME_BASE)) && (await imageExists(BUILD_BASE))) return;
  const rootfs = path.join(work, 'rootfs');
  await run('debootstrap', [...DEBOOTSTRAP_ARGS, rootfs], { timeout: 600_000, maxBuffer: 64 * 1024 * 1024 });
  // this machine's CA bundle, so npm inside trusts what npm outside does (an intercepting proxy)
  cpSync(CA_BUNDLE, path.join(rootfs, 'etc/ssl/certs/ca-certificates.crt'));
  rmSync(path.join(rootfs, 'var/lib/apt/lists'), { recursive: true, force: true });
  if (!(await imageExists(RUNTIME_BASE))) await importRootfs(rootfs, RUNTIME_BASE, []);
  // the build stage's stand-in for node:24-bookworm-slim: the node running this test, and its npm
  mkdirSync(path.join(rootfs, 'usr/local/lib/node_modules'), { recursive: true });
  cpSync(process.execPath, path.join(rootfs, 'usr/local/bin/node'));
  cpSync(npm, path.join(rootfs, 'usr/local/lib/node_modules/npm'), { recursive: true });
  symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', path.join(rootfs, 'usr/local/bin/npm'));
  await importRootfs(rootfs, BUILD_BASE, BUILD_BASE_CHANGES);
  rmSync(rootfs, { recursive: true, force: true });
}

async function importRootfs(rootfs: string, name: string, changes: string[]): Promise<void> {
  const tar = path.join(work, 'rootfs.tar');
  await run('tar', ['-C', rootfs, '-cf', tar, '.'], { timeout: 300_000 });
  await podman(['import', '-q', ...changes.flatMap((c) => ['--change', c]), tar, name]);
  rmSync(tar);
}

describe.skipIf(!hasPodman)('the container image', () => {
  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'chat-agent-container-'));
    // runc on this machine's cgroup v1; no raised ulimits (the sandbox may not raise them)
    const conf = path.join(work, 'containers.conf');
    writeFileSync(
      conf,
      '[containers]\ndefault_ulimits = []\n[engine]\nruntime = "runc"\ncgroup_manager = "cgroupfs"\n',
    );
    env = { ...process.env, CONTAINERS_CONF: conf };
    await makeBaseImages();
    const build = (more: string[]) =>
      podman(
        [
          'build',
          '--format',
          'docker',
          '--network',
          'host',
          '--build-arg',
          `NODE_IMAGE=${BUILD_BASE}`,
          '--build-arg',
          `RUNTIME_IMAGE=${RUNTIME_BASE}`,
          ...more,
          repoRoot,
        ],
        900_000,
      );
    // the build stage first, tagged, so its layers (npm ci) outlive the clean-up's prune; the
    // image then takes those layers from the cache and adds only the runtime stage
    await build(['--target', 'build', '-t', BUILD_STAGE]);
    await build(['-t', IMAGE, '-t', LATEST]);
  }, 1_800_000);

  // the previous runs' untagged images go (tagged bases and build stage stay); podman can be slow under load
  afterAll(async () => {
    if (env) await podman(['rmi', '-f', IMAGE], 120_000).catch(() => undefined);
    if (env) await podman(['image', 'prune', '-f'], 240_000).catch(() => undefined);
    if (work) rmSync(work, { recursive: true, force: true });
  }, 300_000);

  it('runs as its own user, ingests a file of each format, answers, and stops gracefully', {
    timeout: 180_000,
  }, async () => {
    const data = path.join(work, 'data');
    mkdirSync(data);
    chownSync(data, APP_UID, APP_UID);
    // request rates high enough for the polling below
    const plans = path.join(work, 'plans.json');
    writeFileSync(plans, UNLIMITED_PLANS);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const id = await podman([
      'run',
      '-d',
      '--network',
      'host',
      '-e',
      `PORT=${port}`,
      '-e',
      'HOST=127.0.0.1',
      '-e',
      'PLANS_FILE=/etc/chat-agent-plans.json',
      '-v',
      `${plans}:/etc/chat-agent-plans.json:ro`,
      '-v',
      `${data}:/data`,
      IMAGE,
    ]);
    try {
      // the container's start: its health route is the observable (each poll is a round trip)
      const deadline = Date.now() + 60_000;
      let health: unknown;
      while (Date.now() < deadline) {
        health = await fetch(`${base}/api/health`).then(
          (r) => r.json(),
          () => undefined,
        );
        if (health) break;
      }
      expect(health).toMatchObject({ status: 'ok', database: 'ok' });
      expect(await podman(['exec', id, 'chat-agent', 'version'])).toMatch(
        /^chat-agent \d+\.\d+\.\d+ \(node v24\.\d+\.\d+, linux-x64, sea\)$/,
      );
      expect(await podman(['exec', id, 'id', '-u'])).toBe(String(APP_UID));

      const { token, agentId } = await ownerWithAgent(base);
      for (const f of await oneOfEachFormat()) {
        const res = await postFile(base, token, agentId, f.name, f.content);
        expect(res.status, await res.clone().text()).toBe(201);
      }
      let sources: Array<{ name: string; status: string; error_message: string | null }> = [];
      const ingestDeadline = Date.now() + 120_000;
      do {
        sources = (await (
          await fetch(`${base}/api/sources/chatbot/${agentId}`, { headers: { authorization: `Bearer ${token}` } })
        ).json()) as typeof sources;
      } while (sources.some((s) => s.status === 'processing') && Date.now() < ingestDeadline);
      expect(sources.map((s) => `${s.name}: ${s.status} ${s.error_message ?? ''}`.trim()).sort()).toEqual(
        ['manual.pdf', 'notes.txt', 'policies.docx', 'prices.xlsx', 'stock.csv'].map((n) => `${n}: completed`),
      );
      const chat = await postJson(
        `${base}/api/chat`,
        { chatbot_id: agentId, message: 'What does Warranty note 12 cost?' },
        token,
      );
      expect(chat.status).toBe(200);
      const answer = (await chat.json()) as { message: string; sources: Array<{ name: string }> };
      expect(answer.message).toMatch(/Warranty note \d+: order \d+ of customer \d+ costs \$/);
      expect(answer.sources.map((s) => s.name)).toContain('manual'); // a file is cited by its title, else its name without the extension

      const widget = await fetch(`${base}/widget.js`, { headers: { 'accept-encoding': 'br, gzip' } });
      expect(widget.headers.get('content-encoding')).toBe('br');

      await podman(['stop', '-t', '15', id]);
      expect(await podman(['inspect', id, '--format', '{{.State.ExitCode}}'])).toBe('0');
      expect(await podman(['logs', id])).toContain('shutdown complete: database closed');
    } finally {
      await podman(['rm', '-f', id]).catch(() => undefined);
    }
  });
});
