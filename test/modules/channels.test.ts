import { describe, expect, it, vi } from 'vitest';
import { accountWithAgent, send, sendExpect } from '../helpers/app.js';
import { botToken, channelsIdle, connectBot, useChannelApps } from '../helpers/channels.js';

type Json = Record<string, any>;
const ALICE = { id: 5001, first_name: 'Alice', last_name: 'Liddell' };

describe('channels: Telegram on the channel layer', () => {
  const channels = useChannelApps();

  it('connects a bot by its token: the form and the token are checked, the name is shown back, the token never', async () => {
    const { t, telegram, token, agent } = await channels.start();
    const bot = botToken(1);
    telegram.addBot({ token: bot, username: 'acme_help_bot', first_name: 'Acme Help' });
    const url = `/api/chatbots/${agent.id}/channels/telegram`;

    const wrongForm = await send(t.app, token, 'PUT', url, { bot_token: 'not-a-token' });
    expect(wrongForm.statusCode).toBe(400);
    expect(wrongForm.json().detail).toMatch(/^bot_token: not a Telegram bot token/);
    const refused = await send(t.app, token, 'PUT', url, { bot_token: botToken(2) });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().detail).toMatch(/^bot_token: Telegram: Unauthorized/);
    expect(await sendExpect(t.app, token, 'GET', `/api/chatbots/${agent.id}/channels`)).toEqual([
      expect.objectContaining({ channel: 'telegram', state: 'not_connected', account_name: null }),
    ]);

    const connected = await connectBot(t, token, agent.id, bot);
    expect(connected).toMatchObject({
      channel: 'telegram',
      state: 'connected',
      account_name: '@acme_help_bot',
      display_name: 'Acme Help',
      mode: 'polling',
      error: null,
    });
    const listed = await send(t.app, token, 'GET', `/api/chatbots/${agent.id}/channels`);
    expect(listed.json()).toEqual([connected]);
    // never returned, never stored in the clear
    expect(listed.body).not.toContain(bot.split(':')[1]);
    const stored = t.database.sqlite.prepare('SELECT * FROM channel_connections').all();
    expect(JSON.stringify(stored)).not.toContain(bot.split(':')[1]);

    // another account: its agent id reads as missing, the same bot is refused for its own agent
    const other = await accountWithAgent(t.app);
    expect((await send(t.app, other.token, 'GET', `/api/chatbots/${agent.id}/channels`)).statusCode).toBe(404);
    expect((await send(t.app, other.token, 'PUT', url, { bot_token: bot })).statusCode).toBe(404);
    const taken = await send(t.app, other.token, 'PUT', `/api/chatbots/${other.agent.id}/channels/telegram`, {
      bot_token: bot,
    });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().detail).toMatch(/^bot_token: this bot already answers for another agent/);
    expect((await send(t.app, other.token, 'DELETE', url)).statusCode).toBe(404);

    expect((await send(t.app, token, 'DELETE', url)).statusCode).toBe(204);
    expect((await send(t.app, token, 'DELETE', url)).statusCode).toBe(404);
    expect(t.database.sqlite.prepare('SELECT count(*) AS n FROM channel_connections').get()).toEqual({ n: 0 });
  });

  it('a message in, the answer from the knowledge base out; the conversation says telegram', async () => {
    const { t, telegram, token, agent } = await channels.start();
    const bot = botToken(3);
    telegram.addBot({ token: bot, username: 'hours_bot' });
    await connectBot(t, token, agent.id, bot);

    telegram.pushMessage(bot, { chatId: ALICE.id, from: ALICE, text: '/start' });
    telegram.pushMessage(bot, { chatId: ALICE.id, from: ALICE, text: 'When are you open on Saturdays?' });
    const [welcome, answer] = await telegram.waitForSent(bot, 2);
    expect(welcome).toMatchObject({ chat_id: ALICE.id, text: agent.welcome_message });
    expect(answer).toMatchObject({ chat_id: ALICE.id });
    expect(answer!.text).toMatch(/Saturdays the shop opens at 10/);
    await channelsIdle(t);

    const [conversation] = await sendExpect(t.app, token, 'GET', `/api/chat/conversations/${agent.id}`);
    expect(conversation).toMatchObject({ channel: 'telegram', user_name: 'Alice Liddell', message_count: 2 });
    const messages = await sendExpect(t.app, token, 'GET', `/api/chat/messages/${conversation.id}`);
    expect(messages.map((m: Json) => [m.role, m.content])).toEqual([
      ['user', 'When are you open on Saturdays?'],
      ['assistant', answer!.text],
    ]);
    const [listed] = await sendExpect(t.app, token, 'GET', `/api/chatbots/${agent.id}/channels`);
    expect(listed.last_message_at).not.toBeNull();
    const activity = await sendExpect(t.app, token, 'GET', `/api/analytics/chatbot/${agent.id}/channels?days=7`);
    expect(activity.channels).toEqual([{ channel: 'telegram', conversations: 1, messages: 2 }]);
    // what came in is not kept beside the conversation once answered
    const inbound = t.database.sqlite.prepare('SELECT state, text FROM channel_inbound').all();
    expect(inbound).toEqual([
      { state: 'done', text: null },
      { state: 'done', text: null },
    ]);
  });

  it("a teammate's reply from the admin goes out on the visitor's Telegram chat", async () => {
    const { t, telegram, token, agent } = await channels.start();
    const bot = botToken(4);
    telegram.addBot({ token: bot, username: 'handoff_bot' });
    await connectBot(t, token, agent.id, bot);
    telegram.pushMessage(bot, { chatId: ALICE.id, from: ALICE, text: 'When are you open?' });
    await telegram.waitForSent(bot, 1);
    await channelsIdle(t);
    const [conversation] = await sendExpect(t.app, token, 'GET', `/api/chat/conversations/${agent.id}`);
    const base = `/api/chat/conversations/${agent.id}/${conversation.id}`;
    await sendExpect(t.app, token, 'POST', `${base}/take`, {}, 200);

    telegram.pushMessage(bot, { chatId: ALICE.id, from: ALICE, text: 'Can I bring my dog?' });
    await t.app.channelJobs.receive.idle();
    // a person handles it now: the agent stays silent
    expect(telegram.sent(bot)).toHaveLength(1);
    await sendExpect(t.app, token, 'POST', `${base}/reply`, { message: 'Of course, dogs are welcome!' }, 201);
    const sent = await telegram.waitForSent(bot, 2);
    expect(sent[1]).toMatchObject({ chat_id: ALICE.id, text: 'Of course, dogs are welcome!' });
  });

  it('webhook mode with an https PUBLIC_URL: the secret header is checked, the same update is answered once', async () => {
    const { t, telegram, token, agent } = await channels.start({ env: { PUBLIC_URL: 'https://bot.example.test' } });
    const bot = botToken(5);
    telegram.addBot({ token: bot, username: 'hook_bot' });
    const connected = await connectBot(t, token, agent.id, bot);
    expect(connected.mode).toBe('webhook');
    const hook = telegram.webhook(bot)!;
    expect(hook.url).toMatch(/^https:\/\/bot\.example\.test\/api\/public\/channels\/telegram\/[\w-]+$/);
    expect(hook.secret_token).toMatch(/^[\w-]{40,}$/);
    const path = new URL(hook.url).pathname;
    const message = {
      message_id: 1,
      date: 1_700_000_000,
      chat: { id: ALICE.id, type: 'private', first_name: 'Alice' },
      from: { ...ALICE, is_bot: false },
      text: 'When are you open on Saturdays?',
    };
    // Telegram has the update (the fake learns the chat from it) and posts it to the webhook
    const update = { update_id: telegram.pushUpdate(bot, { message }), message };
    const post = (secret: string | undefined) =>
      t.app.inject({
        method: 'POST',
        url: path,
        payload: update,
        headers: secret === undefined ? {} : { 'x-telegram-bot-api-secret-token': secret },
      });
    expect((await post(undefined)).statusCode).toBe(404);
    expect((await post('wrong')).statusCode).toBe(404);
    expect((await post(hook.secret_token)).statusCode).toBe(200);
    // Telegram sends it again (it did not see our 200): stored once, answered once
    expect((await post(hook.secret_token)).statusCode).toBe(200);
    await telegram.waitForSent(bot, 1);
    await channelsIdle(t);
    expect(telegram.sent(bot)).toHaveLength(1);
    expect(telegram.sent(bot)[0]!.text).toMatch(/opens at 10/);
    expect(telegram.callsOf(bot, 'getUpdates')).toBe(0);

    expect((await send(t.app, token, 'DELETE', `/api/chatbots/${agent.id}/channels/telegram`)).statusCode).toBe(204);
    expect(telegram.webhook(bot)).toBeUndefined();
    expect((await post(hook.secret_token)).statusCode).toBe(404);
  });

  it('a revoked token: error with the reason, one notice to the owner, no more polling; replies wait for a new token', async () => {
    const { t, telegram, token, agent } = await channels.start();
    const bot = botToken(6);
    telegram.addBot({ token: bot, id: 100000006, username: 'revoked_bot' });
    await connectBot(t, token, agent.id, bot);
    telegram.pushMessage(bot, { chatId: ALICE.id, from: ALICE, text: 'When are you open?' });
    await telegram.waitForSent(bot, 1);
    await channelsIdle(t);
    await telegram.waitForPoll(bot);

    telegram.revoke(bot);
    const url = `/api/chatbots/${agent.id}/channels`;
    await vi.waitFor(async () => expect((await sendExpect(t.app, token, 'GET', url))[0].state).toBe('error'), {
      timeout: 10_000,
    });
    const [channel] = await sendExpect(t.app, token, 'GET', url);
    expect(channel.error).toBe('Telegram: Unauthorized');
    const polls = telegram.callsOf(bot, 'getUpdates');

    // a teammate's reply while the channel is down waits in the outbox
    const [conversation] = await sendExpect(t.app, token, 'GET', `/api/chat/conversations/${agent.id}`);
    const base = `/api/chat/conversations/${agent.id}/${conversation.id}`;
    await sendExpect(t.app, token, 'POST', `${base}/take`, {}, 200);
    await sendExpect(t.app, token, 'POST', `${base}/reply`, { message: 'Sorry for the wait!' }, 201);
    await channelsIdle(t);

    // another bot of another agent goes on being answered meanwhile: time passes, the revoked one is not polled again
    const other = await accountWithAgent(t.app);
    const otherBot = botToken(7);
    telegram.addBot({ token: otherBot, username: 'other_bot' });
    await connectBot(t, other.token, other.agent.id, otherBot);
    telegram.pushMessage(otherBot, { chatId: 42, from: { id: 42, first_name: 'Bob' }, text: 'Hello?' });
    await telegram.waitForSent(otherBot, 1);
    await telegram.waitForPoll(otherBot);
    expect(telegram.callsOf(bot, 'getUpdates')).toBe(polls);
    expect(telegram.callsOf(bot, 'sendMessage')).toBe(1);
    const notices = t.database.sqlite
      .prepare("SELECT subject, body FROM mail_outbox WHERE kind = 'account_notice' AND subject LIKE '%telegram%'")
      .all() as Json[];
    expect(notices).toHaveLength(1);
    expect(notices[0]!.body).toContain('Telegram: Unauthorized');
    expect(notices[0]!.body).not.toContain(bot.split(':')[1]);

    // BotFather's new token for the same bot: connected again, the waiting reply goes out
    const renewed = botToken(6, 'B');
    telegram.addBot({ token: renewed, id: 100000006, username: 'revoked_bot' });
    expect((await connectBot(t, token, agent.id, renewed)).state).toBe('connected');
    const sent = await telegram.waitForSent(renewed, 1);
    expect(sent[0]).toMatchObject({ chat_id: ALICE.id, text: 'Sorry for the wait!' });
  });
});
