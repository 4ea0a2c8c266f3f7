import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openSqlite } from '../../src/platform/db/index.js';
import { buildServerBundle } from '../helpers/server-bundle.js';
import { bootServer, killAll, ownerWithAgent, postJson, serverEnv, stopServer } from '../helpers/server-process.js';
import { keywordIndexRows } from '../helpers/seed.js';

/**
 * The built server (`node dist/main.js`, as `npm start` runs it) stems passages in the agent's
 * language. Each language's stemmer is required on its first word (platform/text/stemming.ts):
 * in the bundle esbuild must have put it inside (the single executable has no node_modules for
 * it), and the call must reach it there.
 */

let dir: string;
beforeAll(async () => {
  dir = await buildServerBundle();
}, 60_000);
afterEach(async () => killAll(), 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }), 30_000);

describe('stemming in the built server', () => {
  it('the stemmers are inside the bundle, and an Italian agent passages are stored stemmed', {
    timeout: 60_000,
  }, async () => {
    const dist = path.join(dir, 'dist');
    const bundled = readdirSync(dist)
      .filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(path.join(dist, f), 'utf8'))
      .join('\n');
    // whitespace-minified: `language="english"`
    for (const language of ['english', 'italian', 'german', 'french', 'spanish', 'portuguese', 'dutch'])
      expect(bundled).toMatch(new RegExp(`language\\s*=\\s*"${language}"`));

    const dataDir = path.join(dir, 'data');
    mkdirSync(dataDir);
    const { server, base } = await bootServer(
      { command: process.execPath, args: [path.join(dist, 'main.js'), 'serve'] },
      { env: serverEnv(dataDir) },
    );
    const { token, agentId } = await ownerWithAgent(base);
    const language = await fetch(`${base}/api/chatbots/${agentId}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ language: 'it' }),
    });
    expect(language.status).toBe(200);
    const source = await postJson(
      `${base}/api/sources/chatbot/${agentId}/text`,
      { name: 'Bar', content: 'I cornetti alla crema costano 1,50 euro.' },
      token,
    );
    expect(source.status, await source.clone().text()).toBe(201);
    // the keyword index holds the Italian stems ("cornetti" as "cornett", "costano" as "cost")
    const sqlite = openSqlite(path.join(dataDir, 'chat-agent.db'), { readonly: true });
    try {
      const count = (term: string) => keywordIndexRows(sqlite, agentId, term);
      expect([count('cornett'), count('cost'), count('cornetti')]).toEqual([1, 1, 0]);
    } finally {
      sqlite.close();
    }
    expect(await stopServer(server)).toEqual({ code: 0, signal: null });
  });
});
