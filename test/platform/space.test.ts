import { statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase, openSqlite } from '../../src/platform/db/index.js';
import { auth, createAgent, makeDataDir, registerUser, useTestApps } from '../helpers/app.js';

/**
 * Space comes back after deletions (issue 20.4): the database stayed at 813 MB after every
 * source was deleted. auto_vacuum=INCREMENTAL, and free pages are given back between requests.
 */

const apps = useTestApps();

function onDisk(file: string): number {
  const size = (f: string) => {
    try {
      return statSync(f).size;
    } catch {
      return 0;
    }
  };
  return size(file) + size(`${file}-wal`);
}

describe('space after deletions', () => {
  it('deleting sources gives their space back to the disk', async () => {
    const t = await apps.start();
    const file = path.join(t.dataDir, 'chat-agent.db');
    const { token } = await registerUser(t.app);
    const agent = await createAgent(t.app, token);
    const ids: string[] = [];
    for (let n = 0; n < 6; n++) {
      const content = Array.from(
        { length: 12_000 },
        (_, i) => `Note ${n}-${i}: the parcel ${i} ships on day ${i % 7} from depot ${n}.`,
      ).join('\n\n');
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/sources/chatbot/${agent.id}/text`,
        headers: auth(token),
        payload: { name: `notes ${n}`, content },
      });
      expect(res.statusCode, res.body).toBe(201);
      ids.push(res.json().id);
    }
    t.database.sqlite.pragma('wal_checkpoint(TRUNCATE)');
    const full = onDisk(file);
    expect(full).toBeGreaterThan(8_000_000);

    for (const id of ids)
      expect(
        (await t.app.inject({ method: 'DELETE', url: `/api/sources/${id}`, headers: auth(token) })).statusCode,
      ).toBe(204);
    await t.app.space.idle();
    t.database.sqlite.pragma('wal_checkpoint(TRUNCATE)');
    expect(t.app.space.freePages()).toBe(0);
    expect(onDisk(file)).toBeLessThan(full / 4);
  });

  it('a database created before auto_vacuum was set is converted once, its data kept', () => {
    const file = path.join(makeDataDir(), 'old.db');
    // a database of this product as earlier versions left it: auto_vacuum off
    openDatabase(file).close();
    const old = openSqlite(file);
    old.pragma('journal_mode = DELETE');
    old.pragma('auto_vacuum = NONE');
    old.exec('VACUUM');
    old.exec("CREATE TABLE kept (v TEXT); INSERT INTO kept VALUES ('still here')");
    expect(old.pragma('auto_vacuum', { simple: true })).toBe(0);
    old.close();

    const database = openDatabase(file);
    try {
      expect(database.sqlite.pragma('auto_vacuum', { simple: true })).toBe(2);
      expect(database.sqlite.prepare('SELECT v FROM kept').get()).toEqual({ v: 'still here' });
      expect(database.sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      database.close();
    }
  });
});
