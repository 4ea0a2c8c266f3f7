import { describe, expect, it, vi } from 'vitest';
import {
  accountWithAgent,
  makeDataDir,
  ManualClock,
  ROOMY_PLAN,
  send,
  sendExpect,
  writePlansFile,
} from '../helpers/app.js';
import { botToken, channelsIdle, connectBot, useChannelApps } from '../helpers/channels.js';

type Json = Record<string, any>;
const ALICE = { id: 5001, first_name: 'Alice', last_name: 'Liddell' };
const TOO_FAST = 'You are sending messages faster than I can answer. Please wait a moment.';

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
    // every channel of the catalog is listed (WhatsApp: channels-whatsapp.test.ts; e-mail: channels-email.test.ts)
    expect(await sendExpect(t.app, token, 'GET', `/api/chatbots/${agent.id}/channels`)).toEqual([
      expect.objectContaining({ channel: 'telegram', state: 'not_connected', account_name: null }),
      expect.objectContaining({ channel: 'whatsapp', state: 'not_connected', account_name: null }),
      expect.objectContaining({ channel: 'email', state: 'not_connected', account_name: null }),
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
    expect(listed.json()).toEqual([
      connected,
      expect.objectContaining({ channel: 'whatsapp', state: 'not_connected' }),
      expect.objectContaining({ channel: 'email', state: 'not_connected' }),
    ]);
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

    // erased (GDPR): the chat's records go with the conversation; her next message starts afresh
    const erased = await send(t.app, token, 'DELETE', `/api/chat/conversations/${agent.id}/${conversation.id}`);
    expect(erased.statusCode).toBe(204);
    const count = (table: string) => t.database.sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get();
    for (const table of ['channel_chats', 'channel_inbound', 'channel_outbox']) expect(count(table)).toEqual({ n: 0 });
    telegram.pushMessage(bot, { chatId: ALICE.id, from: ALICE, text: 'Hello again' });
    await telegram.waitForSent(bot, 3);
    await channelsIdle(t);
    const conversations = await sendExpect(t.app, token, 'GET', `/api/chat/conversations/${agent.id}`);
    expect(conversations).toHaveLength(1);
    expect(conversations[0].id).not.toBe(conversation.id);
    expect(conversations[0].session_id).not.toBe(conversation.session_id);
  });

  it("the lead form, the channel's way: the share-your-phone button after the first answer, a shared number is a lead", async () => {
    const fields = { lead_capture_enabled: true, lead_form_timing: 'after_messages', lead_form_after_messages: 1 };
    const { t, telegram, token, agent } = await channels.start({}, fields);
    const bot = botToken(8);
    telegram.addBot({ token: bot, username: 'leads_bot' });
    await connectBot(t, token, agent.id, bot);
    telegram.pushMessage(bot, { chatId: ALICE.id, from: ALICE, text: 'When are you open on Saturdays?' });
    const [answer, ask] = await telegram.waitForSent(bot, 2);
    expect(answer!.reply_markup).toBeUndefined();
    expect(ask!.text).toMatch(/share your phone number/);
    expect(ask!.reply_markup).toMatchObject({ keyboard: [[{ request_contact: true }]], one_time_keyboard: true });

    telegram.pushMessage(bot, {
      chatId: ALICE.id,
      from: ALICE,
      contact: { phone_number: '+31204004567', first_name: 'Alice', user_id: ALICE.id },
    });
    const sent = await telegram.waitForSent(bot, 3);
    expect(sent[2]!.text).toMatch(/^Thank you/);
    telegram.pushMessage(bot, { chatId: ALICE.id, from: ALICE, text: 'And on Sundays?' });
    await telegram.waitForSent(bot, 4);
    await channelsIdle(t);
    // asked once: no second button
    expect(telegram.sent(bot).filter((m) => m.reply_markup)).toHaveLength(1);
    const [conversation] = await sendExpect(t.app, token, 'GET', `/api/chat/conversations/${agent.id}`);
    const leads = await sendExpect(t.app, token, 'GET', `/api/chatbot-leads/${agent.id}`);
    expect(leads).toEqual([
      expect.objectContaining({ name: 'Alice Liddell', phone: '+31204004567', session_id: conversation.session_id }),
    ]);
  });

  it("the owner's plan rate per Telegram user, as the widget's is per address: one short notice, no answer", async () => {
    // the owner's own API calls count too (under the account), a few of them
    const plans = writePlansFile(makeDataDir(), { free: { ...ROOMY_PLAN, requests_per_minute: 5 } });
    const { t, telegram, token, agent } = await channels.start({ env: { PLANS_FILE: plans, DEFAULT_PLAN: 'free' } });
    const bot = botToken(9);
    telegram.addBot({ token: bot, username: 'busy_bot' });
    await connectBot(t, token, agent.id, bot);
    const BOB = { id: 6001, first_name: 'Bob' };
    for (let i = 1; i <= 6; i++)
      telegram.pushMessage(bot, { chatId: ALICE.id, from: ALICE, text: `Open on day ${i}?` });
    telegram.pushMessage(bot, { chatId: BOB.id, from: BOB, text: 'When are you open?' });
    await telegram.waitForSent(bot, 7);
    await channelsIdle(t);
    const toAlice = telegram.sent(bot).filter((m) => m.chat_id === ALICE.id);
    expect(toAlice.slice(0, 5).every((m) => m.text !== TOO_FAST)).toBe(true);
    expect(toAlice.slice(5).map((m) => m.text)).toEqual([TOO_FAST]);
    // another person of the same bot has an allowance of their own
    expect(
      telegram
        .sent(bot)
        .filter((m) => m.chat_id === BOB.id)
        .map((m) => m.text),
    ).not.toContain(TOO_FAST);
    const stored = t.database.sqlite.prepare("SELECT count(*) AS n FROM messages WHERE role = 'user'").get();
    expect(stored).toEqual({ n: 6 });
  });

  it('Telegram down for a while: the answer waits in the outbox and goes out once, after backoff; a blocked chat is not retried', async () => {
    const clock = new ManualClock(new Date().toISOString());
    const { t, telegram, token, agent } = await channels.start({ clock });
    const bot = botToken(10);
    telegram.addBot({ token: bot, username: 'outage_bot' });
    await connectBot(t, token, agent.id, bot);
    telegram.failSends(bot, 1, { error_code: 502, description: 'Bad Gateway' });
    telegram.failSends(bot, 1, { error_code: 429, description: 'Too Many Requests: retry after 40', retry_after: 40 });
    telegram.pushMessage(bot, { chatId: ALICE.id, from: ALICE, text: 'When are you open on Saturdays?' });
    await telegram.waitForCall(bot, 'sendMessage', 1);
    await channelsIdle(t);
    const outbox = () => t.database.sqlite.prepare('SELECT state, attempts, error FROM channel_outbox').get();
    expect(outbox()).toEqual({ state: 'queued', attempts: 1, error: 'Telegram: Bad Gateway' });
    // the first retry is 5 s later: not before
    clock.advance(4_000);
    await channelsIdle(t);
    expect(telegram.callsOf(bot, 'sendMessage')).toBe(1);
    clock.advance(1_000);
    await telegram.waitForCall(bot, 'sendMessage', 2);
    await channelsIdle(t);
    expect(outbox()).toMatchObject({ state: 'queued', attempts: 2 });
    // Telegram's retry_after wins over the schedule
    clock.advance(39_000);
    await channelsIdle(t);
    expect(telegram.callsOf(bot, 'sendMessage')).toBe(2);
    clock.advance(1_000);
    const [sent] = await telegram.waitForSent(bot, 1);
    expect(sent!.text).toMatch(/Saturdays the shop opens at 10/);
    await channelsIdle(t);
    expect(outbox()).toMatchObject({ state: 'sent' });
    expect(telegram.callsOf(bot, 'sendMessage')).toBe(3);

    // the person blocked the bot: failed for good, no retry
    telegram.failSends(bot, 1, { error_code: 403, description: 'Forbidden: bot was blocked by the user' });
    telegram.pushMessage(bot, { chatId: ALICE.id, from: ALICE, text: 'And on Sundays?' });
    await telegram.waitForCall(bot, 'sendMessage', 4);
    await channelsIdle(t);
    clock.advance(86_400_000);
    await channelsIdle(t);
    expect(telegram.callsOf(bot, 'sendMessage')).toBe(4);
    const blocked = t.database.sqlite.prepare("SELECT error FROM channel_outbox WHERE state = 'failed'").all();
    expect(blocked).toEqual([{ error: 'Telegram: Forbidden: bot was blocked by the user' }]);
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
