import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  bootServer,
  fromSource,
  ownerWithAgent,
  postJson,
  runCommand,
  stopServer,
  serverEnv,
  unlimitedPlansFile,
  useServerProcesses,
  withTimeout,
} from '../helpers/server-process.js';

/**
 * docs/DURABILITY.md, tested on the real server (a child process on a real SQLite file):
 * an online backup under a writer, restore into a fresh folder, SIGKILL during writes, and
 * scheduled backups.
 */

const { tempDir } = useServerProcesses('chat-agent-durability-');

function serverEnvWithPlans(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  const plans = unlimitedPlansFile(path.join(dataDir, '..', `${path.basename(dataDir)}-plans.json`));
  return serverEnv(dataDir, { PLANS_FILE: plans, ...extra });
}

/**
 * Sends chat messages one after another ("msg-0", "msg-1", ...): each 200 means the user message
 * was committed. `acknowledged` lists those, in order.
 */
function writerLoop(base: string, token: string, agentId: string) {
  const acknowledged: string[] = [];
  let stopped = false;
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const done = (async () => {
    for (let n = 0; !stopped; n++) {
      const message = `msg-${n}`;
      let res: Response;
      try {
        res = await postJson(`${base}/api/chat`, { chatbot_id: agentId, message, session_id: 'writer' }, token);
      } catch {
        return; // the server went away (SIGKILL): this message was never acknowledged
      }
      if (res.status !== 200) throw new Error(`chat answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
      acknowledged.push(message);
      for (const w of waiters.filter((w) => acknowledged.length >= w.count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  })();
  return {
    acknowledged,
    done,
    /** resolves once `count` messages are acknowledged */
    reached: (count: number) =>
      acknowledged.length >= count
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiters.push({ count, resolve })),
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

function userMessagesIn(file: string): Set<string> {
  const db = new Database(file);
  try {
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    return new Set(
      (db.prepare(`SELECT content FROM messages WHERE role = 'user'`).all() as Array<{ content: string }>).map(
        (r) => r.content,
      ),
    );
  } finally {
    db.close();
  }
}

/** A server from source on DATA_DIR `<a new temp dir>/data` (roomy plans). */
async function serverInTempDir() {
  const root = tempDir();
  const dataDir = path.join(root, 'data');
  const { server, base } = await bootServer(fromSource(), { env: serverEnvWithPlans(dataDir) });
  return { root, dataDir, server, base };
}

describe('backups', () => {
  it('a backup taken while messages are being written opens, passes integrity_check and holds every message acknowledged before it began; restored into a fresh folder it serves', {
    timeout: 120_000,
  }, async () => {
    const { root, dataDir, server, base } = await serverInTempDir();
    const { token, agentId } = await ownerWithAgent(base);
    const writer = writerLoop(base, token, agentId);
    await writer.reached(20);

    const ackedBeforeBackup = [...writer.acknowledged];
    const backupFile = path.join(root, 'during-writes.db');
    const backup = await runCommand(fromSource(['backup', backupFile, '--data-dir', dataDir]), {
      env: { PATH: process.env.PATH ?? '' },
    });
    const ackedWhenBackupEnded = writer.acknowledged.length;
    await writer.stop();
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toMatch(/backup written: .*during-writes\.db .*integrity_check ok/);
    // the writer really was writing while the backup ran
    expect(ackedWhenBackupEnded).toBeGreaterThan(ackedBeforeBackup.length);

    const inBackup = userMessagesIn(backupFile);
    for (const m of ackedBeforeBackup) expect(inBackup.has(m), `${m} is in the backup`).toBe(true);
    expect(readdirSync(root).filter((f) => f.startsWith('during-writes.db'))).toEqual(['during-writes.db']); // no temp file, no -wal
    expect(await stopServer(server)).toEqual({ code: 0, signal: null });

    const fresh = path.join(root, 'fresh');
    const restore = await runCommand(fromSource(['restore', backupFile, '--data-dir', fresh]), {
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(restore.code, restore.stderr).toBe(0);
    const second = await bootServer(fromSource(), { env: serverEnvWithPlans(fresh) });
    const login = await postJson(`${second.base}/api/auth/login`, {
      email: 'owner@example.com',
      password: 'a long enough password',
    });
    expect(login.status).toBe(200);
    const newToken = ((await login.json()) as { access_token: string }).access_token;
    const conversations = await fetch(`${second.base}/api/chat/conversations/${agentId}`, {
      headers: { authorization: `Bearer ${newToken}` },
    });
    expect(conversations.status).toBe(200);
    expect(JSON.stringify(await conversations.json())).toContain('writer');
    expect(await stopServer(second.server)).toEqual({ code: 0, signal: null });
  });

  it('restore refuses a live database, and a file that is not a chat-agent database, leaving the data untouched', {
    timeout: 90_000,
  }, async () => {
    const { root, dataDir, server, base } = await serverInTempDir();
    await ownerWithAgent(base);
    const backupFile = path.join(root, 'b.db');
    expect(
      (
        await runCommand(fromSource(['backup', backupFile, '--data-dir', dataDir]), {
          env: { PATH: process.env.PATH ?? '' },
        })
      ).code,
    ).toBe(0);

    const live = await runCommand(fromSource(['restore', backupFile, '--data-dir', dataDir]), {
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(live.code).toBe(1);
    expect(live.stderr).toMatch(/^error: .*in use.*stop it/);
    expect(live.stderr.trim().split('\n')).toHaveLength(1);
    expect((await fetch(`${base}/api/health`)).status).toBe(200);
    expect(await stopServer(server)).toEqual({ code: 0, signal: null });

    const notOurs = path.join(root, 'other.db');
    const other = new Database(notOurs);
    other.exec('CREATE TABLE t (x)');
    other.close();
    const wrong = await runCommand(fromSource(['restore', notOurs, '--data-dir', dataDir]), {
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/not a chat-agent database/);
    expect(readdirSync(dataDir).filter((f) => f.includes('pre-restore'))).toEqual([]);

    // stopped: restore goes ahead and keeps the replaced database beside it
    const ok = await runCommand(fromSource(['restore', backupFile, '--data-dir', dataDir]), {
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(ok.code, ok.stderr).toBe(0);
    expect(readdirSync(dataDir).filter((f) => f.includes('pre-restore'))).toHaveLength(1);
    expect(readdirSync(dataDir).filter((f) => /-wal$|-shm$/.test(f))).toEqual([]);
  });

  it('scheduled backups: every BACKUP_INTERVAL_H, keeping BACKUP_KEEP verified copies', {
    timeout: 90_000,
  }, async () => {
    const dataDir = path.join(tempDir(), 'data');
    // 0.0003 h is about a second
    const { server, base } = await bootServer(fromSource(), {
      env: serverEnvWithPlans(dataDir, { BACKUP_INTERVAL_H: '0.0003', BACKUP_KEEP: '2' }),
    });
    await ownerWithAgent(base);
    await server.waitFor(
      (r) => r.msg === 'scheduled backup written' && Array.isArray(r.removed) && r.removed.length > 0,
      'a third backup that removes the oldest',
      60_000,
    );
    expect(await stopServer(server)).toEqual({ code: 0, signal: null });
    const files = readdirSync(path.join(dataDir, 'backups'));
    expect(files).toHaveLength(2);
    // private like the data they copy: the folder 0700, each backup 0600
    expect(statSync(path.join(dataDir, 'backups')).mode & 0o777).toBe(0o700);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    for (const f of files) {
      expect(statSync(path.join(dataDir, 'backups', f)).mode & 0o777, f).toBe(0o600);
      expect(f).toMatch(/^chat-agent-auto-\d{8}T\d{6}Z(-\d+)?\.db$/);
      const db = new Database(path.join(dataDir, 'backups', f), { readonly: true });
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect((db.prepare('SELECT count(*) AS n FROM users').get() as { n: number }).n).toBe(1);
      db.close();
    }
  });
});

describe('crash', () => {
  it('SIGKILL during writes: the database reopens, passes integrity_check and holds every acknowledged write', {
    timeout: 90_000,
  }, async () => {
    const dataDir = path.join(tempDir(), 'data');
    const { server, base } = await bootServer(fromSource(), { env: serverEnvWithPlans(dataDir) });
    const { token, agentId } = await ownerWithAgent(base);
    const writer = writerLoop(base, token, agentId);
    await writer.reached(40);
    server.child.kill('SIGKILL');
    expect(await withTimeout(server.exited, 10_000, 'the killed server to exit')).toMatchObject({ signal: 'SIGKILL' });
    await writer.done.catch(() => undefined);
    const acknowledged = [...writer.acknowledged];

    const stored = userMessagesIn(path.join(dataDir, 'chat-agent.db'));
    for (const m of acknowledged) expect(stored.has(m), `${m} survived`).toBe(true);

    // and the server starts on it again
    const again = await bootServer(fromSource(), { env: serverEnvWithPlans(dataDir) });
    expect((await fetch(`${again.base}/api/health`)).status).toBe(200);
    expect(await stopServer(again.server)).toEqual({ code: 0, signal: null });
  });
});
