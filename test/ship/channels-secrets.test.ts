import { afterEach, describe, expect, it } from 'vitest';
import { botToken } from '../helpers/channels.js';
import { type FakeTelegram, startFakeTelegram } from '../helpers/fake-telegram.js';
import {
  bootServer,
  fromSource,
  ownerWithAgent,
  serverEnv,
  stopServer,
  unlimitedPlansFile,
  useServerProcesses,
} from '../helpers/server-process.js';

/**
 * Telegram puts the bot token in every request's URL path, so a network error, a refusal or a
 * debug line could carry it into the log. On the real server at its most talkative (LOG_LEVEL
 * trace, grammY's own DEBUG output on): a refused token, a connect, a message answered, the token
 * revoked, then Telegram unreachable; the token stands in no line of stdout or stderr.
 */

const fakes: FakeTelegram[] = [];
// registered before useServerProcesses, so it runs after it: the servers are stopped first
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.close();
}, 60_000);
const { tempDir, remove } = useServerProcesses('chat-agent-channel-secrets-');

async function put(base: string, token: string, agentId: string, botToken: string): Promise<Response> {
  return fetch(`${base}/api/chatbots/${agentId}/channels/telegram`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ bot_token: botToken }),
  });
}

describe('channel secrets', () => {
  it('no bot token in any log line, whatever happens to the channel', { timeout: 120_000 }, async () => {
    const telegram = await startFakeTelegram();
    fakes.push(telegram);
    const revoked = botToken(11, 'R');
    const unreachable = botToken(12, 'U');
    const refused = botToken(13, 'X');
    telegram.addBot({ token: revoked, username: 'revoked_bot' });
    telegram.addBot({ token: unreachable, username: 'unreachable_bot' });
    const dataDir = tempDir();
    const plans = remove(unlimitedPlansFile(`${dataDir}-plans.json`));
    const env = serverEnv(dataDir, {
      REGISTRATION: 'open',
      PLANS_FILE: plans,
      LOG_LEVEL: 'trace',
      DEBUG: 'grammy*',
      TELEGRAM_API_ROOT: telegram.root,
    });
    const { server, base } = await bootServer(fromSource(), { env });
    const owner = await ownerWithAgent(base);
    const second = await ownerWithAgent(base, 'second@example.com');

    expect((await put(base, owner.token, owner.agentId, refused)).status).toBe(400);
    expect((await put(base, owner.token, owner.agentId, revoked)).status).toBe(200);
    expect((await put(base, second.token, second.agentId, unreachable)).status).toBe(200);
    telegram.pushMessage(revoked, { chatId: 7, from: { id: 7, first_name: 'Ann' }, text: 'Hello?' });
    await telegram.waitForSent(revoked, 1, 30_000);

    telegram.revoke(revoked);
    await server.waitFor((r) => r.msg === 'channel stopped', 'the revoked channel to stop', 30_000);
    await telegram.close();
    await server.waitFor((r) => r.msg === 'channel poll failed', 'a poll of an unreachable Telegram', 30_000);
    await stopServer(server);

    const output = `${server.stdoutLines.join('\n')}\n${server.stderr()}`;
    expect(output).toContain('channel stopped');
    for (const token of [revoked, unreachable, refused]) {
      expect(output).not.toContain(token.split(':')[1]);
      expect(output).not.toContain(`bot${token.split(':')[0]}`);
    }
  });
});
