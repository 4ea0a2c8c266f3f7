import { type FakeTelegram, startFakeTelegram } from './fake-telegram.js';
import { accountWithAgent, type StartOptions, sendExpect, type TestApp, useTestApps } from './app.js';
import { addText } from './sources.js';

type Json = Record<string, any>;

/** a token of the form BotFather gives (digits, colon, 35 characters) */
export function botToken(n: number, tail = 'A'): string {
  return `${100000000 + n}:${tail.repeat(35)}`;
}

export const OPENING_HOURS = 'Our opening hours are 9 to 5 on weekdays. On Saturdays the shop opens at 10.';

/**
 * The apps of a channels test, each beside a fake Telegram Bot API (TELEGRAM_API_ROOT) that is
 * closed before them, and an agent that knows its opening hours (no model key: it answers from
 * its knowledge alone).
 */
export function useChannelApps() {
  const apps = useTestApps();
  return {
    apps,
    async start(opts: StartOptions = {}) {
      const telegram: FakeTelegram = apps.before(await startFakeTelegram());
      const t = await apps.start({ ...opts, env: { TELEGRAM_API_ROOT: telegram.root, ...opts.env } });
      const { token, agent } = await accountWithAgent(t.app);
      await addText(t, token, agent.id, 'Hours', OPENING_HOURS);
      await t.app.jobs.idle();
      return { t, telegram, token, agent: agent as Json };
    },
  };
}

/** Connects `bot` to the agent (200) and answers the channel as the API shows it. */
export function connectBot(t: TestApp, token: string, agentId: string, botToken: string): Promise<Json> {
  return sendExpect(t.app, token, 'PUT', `/api/chatbots/${agentId}/channels/telegram`, { bot_token: botToken }, 200);
}

/** Waits until the channels' queues have nothing to do (every answer queued and sent). */
export async function channelsIdle(t: TestApp): Promise<void> {
  await t.app.channelJobs.receive.idle();
  await t.app.channelJobs.send.idle();
}
