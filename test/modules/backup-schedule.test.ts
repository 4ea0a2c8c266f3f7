import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { backupDatabase, nextBackupPath } from '../../src/modules/backup/index.js';
import { auth, registerUser, useTestApps, type TestApp } from '../helpers/app.js';

/**
 * docs/DURABILITY.md "Backing up": what the schedule leaves in its folder, and how a failing
 * schedule is seen. Before: a backup killed mid-copy left its `*.tmp-<pid>` file forever, the
 * rotation deleted backups made by hand in the same folder, and a failing schedule showed only in
 * the log. The schedule runs every 24 h here; the test runs it with `runOnce()`.
 */

const apps = useTestApps();

async function start(env: Record<string, string> = {}): Promise<TestApp> {
  const t = await apps.start({ env: { BACKUP_INTERVAL_H: '24', BACKUP_KEEP: '2', ...env } });
  return t;
}

/** A pid no process has any more: a child that has exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '']).pid!;
}

const require = createRequire(import.meta.url);

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

describe('scheduled backups', () => {
  it('the temp file of a backup whose process died is removed; a live one and files that are not SQLite stay', async () => {
    const t = await start();
    const dir = t.config.backup.dir;
    mkdirSync(dir, { recursive: true });
    const abandoned = `chat-agent-20260101T000000Z.db.tmp-${deadPid()}`;
    const abandonedRestore = `chat-agent.db.restore-${deadPid()}.tmp`;
    const live = `chat-agent-20260101T000001Z.db.tmp-${process.ppid}`;
    const notOurs = `notes.txt.tmp-${deadPid()}`;
    const notOursJournal = `notes.txt.tmp-${deadPid()}-journal`;
    for (const name of [abandoned, abandonedRestore, live])
      writeFileSync(path.join(dir, name), Buffer.concat([SQLITE_HEADER, Buffer.alloc(4096)]));
    writeFileSync(path.join(dir, notOurs), 'my notes');
    writeFileSync(path.join(dir, notOursJournal), 'my other notes');

    await t.app.backups!.runOnce();

    const files = readdirSync(dir);
    expect(files).not.toContain(abandoned);
    expect(files).not.toContain(abandonedRestore);
    expect(files).toContain(live);
    expect(files).toContain(notOurs);
    expect(files).toContain(notOursJournal);
    expect(files.filter((f) => f.startsWith('chat-agent-auto-'))).toHaveLength(1);
  });

  it('a backup killed mid-copy leaves its temp file and its 512-byte -journal; the next backup removes both', async () => {
    const t = await start();
    const dir = t.config.backup.dir;
    mkdirSync(dir, { recursive: true });
    // a real backup (SQLite's backup API, as backupDatabase runs it) in another process, killed
    // after a few steps: what `kill -9` or a power loss during `chat-agent backup` leaves
    const target = path.join(dir, 'chat-agent-20260101T000000Z.db');
    const child = spawnSync(
      process.execPath,
      [
        '-e',
        `const Database = require(${JSON.stringify(require.resolve('better-sqlite3'))});
        const source = new Database(${JSON.stringify(path.join(t.config.dataDir, 'chat-agent.db'))}, { readonly: true });
        let steps = 0;
        source.backup(${JSON.stringify(target)} + '.tmp-' + process.pid, {
          progress: () => {
            if (++steps === 3) process.kill(process.pid, 'SIGKILL');
            return 1;
          },
        });`,
      ],
      { encoding: 'utf8' },
    );
    expect(child.signal, child.stderr).toBe('SIGKILL');
    const tmp = `${path.basename(target)}.tmp-${child.pid}`;
    const left = readdirSync(dir);
    expect(left).toContain(tmp);
    expect(left).toContain(`${tmp}-journal`);
    expect(statSync(path.join(dir, `${tmp}-journal`)).size).toBe(512);

    await t.app.backups!.runOnce();

    const files = readdirSync(dir);
    expect(files.filter((f) => f.includes('.tmp-'))).toEqual([]);
    expect(files.filter((f) => f.startsWith('chat-agent-auto-'))).toHaveLength(1);
    expect(files).toHaveLength(1);
  });

  it('the rotation keeps BACKUP_KEEP scheduled backups and never removes one made by hand', async () => {
    const t = await start();
    const dir = t.config.backup.dir;
    // `chat-agent backup` writes a time-named file into the same folder
    const manual = await backupDatabase(t.database.sqlite, nextBackupPath(dir, new Date('2020-01-01T00:00:00Z')));
    const manualToday = await backupDatabase(t.database.sqlite, nextBackupPath(dir, new Date()));
    for (let i = 0; i < 4; i++) await t.app.backups!.runOnce();

    const files = readdirSync(dir).sort();
    expect(files.filter((f) => f.startsWith('chat-agent-auto-'))).toHaveLength(2);
    expect(files).toContain(path.basename(manual.file));
    expect(files).toContain(path.basename(manualToday.file));
    expect(files).toHaveLength(4);
  });

  it('a failing schedule shows in health (degraded) and in the admin status, and clears when a backup succeeds again', async () => {
    const t = await start();
    const admin = await registerUser(t.app); // the first account is the admin
    const member = await registerUser(t.app);
    const dir = t.config.backup.dir;
    // the backups folder cannot be made: a file is in its place
    rmSync(dir, { recursive: true, force: true });
    writeFileSync(dir, 'not a folder');

    await t.app.backups!.runOnce();

    const health = await t.app.inject({ method: 'GET', url: '/api/health' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toMatchObject({ status: 'degraded', database: 'ok', backups: 'failing' });
    expect(health.json().detail).toMatch(/scheduled backup failed/);
    // the folder's name is for the admin only
    expect(health.body).not.toContain(dir);

    const adminView = (
      await t.app.inject({ method: 'GET', url: '/api/system/status', headers: auth(admin.token) })
    ).json().backups;
    expect(adminView).toMatchObject({
      scheduled: true,
      failing: true,
      last_success_at: null,
      last_failure_at: expect.any(String),
    });
    expect(adminView.last_error).toContain(dir);
    const memberView = (
      await t.app.inject({ method: 'GET', url: '/api/system/status', headers: auth(member.token) })
    ).json().backups;
    expect(memberView).toMatchObject({ scheduled: true, failing: true });
    expect(memberView.last_error).not.toContain(dir);

    rmSync(dir);
    await t.app.backups!.runOnce();
    expect(existsSync(dir)).toBe(true);
    expect((await t.app.inject({ method: 'GET', url: '/api/health' })).json()).toEqual({
      status: 'ok',
      version: expect.any(String),
      database: 'ok',
      backups: 'ok',
    });
    const after = (await t.app.inject({ method: 'GET', url: '/api/system/status', headers: auth(admin.token) })).json()
      .backups;
    expect(after).toMatchObject({ failing: false, last_success_at: expect.any(String) });
  });

  it('without a schedule, health carries no backups field and the status says not scheduled', async () => {
    const t = await start({ BACKUP_INTERVAL_H: '0' });
    const { token } = await registerUser(t.app);
    expect((await t.app.inject({ method: 'GET', url: '/api/health' })).json()).toEqual({
      status: 'ok',
      version: expect.any(String),
      database: 'ok',
    });
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/system/status', headers: auth(token) })).json().backups,
    ).toEqual({ scheduled: false });
  });
});
