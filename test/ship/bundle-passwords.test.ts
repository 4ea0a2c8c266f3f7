import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useServerBundle } from '../helpers/server-bundle.js';
import { bootServer, ownerWithAgent, postJson, serverEnv, stopServer } from '../helpers/server-process.js';

/**
 * The built server (`node dist/main.js`, as `npm start` runs it) sets passwords. The common-password
 * list is imported on first use; in the bundle the package came as a CommonJS chunk whose named
 * export was missing, and every registration answered 500 while the tests from source passed.
 */

const bundle = useServerBundle();

describe('passwords in the built server', () => {
  it('a common password is refused with the reason; another registers', { timeout: 60_000 }, async () => {
    const dataDir = path.join(bundle.dir, 'data');
    mkdirSync(dataDir);
    const { server, base } = await bootServer(bundle.serve(), { env: serverEnv(dataDir) });
    const common = await postJson(`${base}/api/auth/register`, {
      name: 'Owner',
      email: 'owner@example.com',
      password: 'password',
    });
    expect({ status: common.status, body: await common.json() }).toEqual({
      status: 400,
      body: expect.objectContaining({ detail: expect.stringMatching(/one of the most commonly used passwords/) }),
    });
    const { token, agentId } = await ownerWithAgent(base);
    expect(token).toEqual(expect.any(String));
    expect(agentId).toEqual(expect.any(String));
    expect(await stopServer(server)).toEqual({ code: 0, signal: null });
  });
});
