import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Api, GrammyError } from 'grammy';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeTelegram, startFakeTelegram } from '../helpers/fake-telegram.js';

// The fake Telegram Bot API driven through grammY's real `Api` class, as the Telegram channel uses it.

const TOKEN = '123456789:AAFakeTokenForTheTests_0123456789abc';
const ALICE = { id: 4242, first_name: 'Alice', last_name: 'Liddell', username: 'alice' };

let fake: FakeTelegram;
let api: Api;

beforeEach(async () => {
  fake = await startFakeTelegram();
  fake.addBot({ token: TOKEN, username: 'fake_shop_bot', first_name: 'Fake Shop' });
  api = new Api(TOKEN, { apiRoot: fake.root });
}, 10_000);

afterEach(async () => {
  await fake.close();
}, 10_000);

/** the GrammyError a call fails with */
async function grammyError(call: Promise<unknown>): Promise<GrammyError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GrammyError);
  return error as GrammyError;
}

const textOf = (update: { message?: { text?: string } }) => update.message?.text;

describe('fake Telegram Bot API through grammY', () => {
  it('getMe answers the bot User, its id from the token', async () => {
    expect(await api.getMe()).toEqual({
      id: 123456789,
      is_bot: true,
      first_name: 'Fake Shop',
      username: 'fake_shop_bot',
      can_join_groups: true,
      can_read_all_group_messages: false,
      supports_inline_queries: false,
    });
    expect(fake.callsOf(TOKEN, 'getme')).toBe(1);
    expect(fake.calls[0]).toMatchObject({ token: TOKEN, method: 'getMe' });
  });

  it('getUpdates redelivers until an offset confirms, and forgets what it confirmed', async () => {
    const first = fake.pushMessage(TOKEN, { chatId: ALICE.id, from: ALICE, text: 'hello' });
    const second = fake.pushMessage(TOKEN, {
      chatId: ALICE.id,
      from: ALICE,
      contact: { phone_number: '+15550100', first_name: 'Alice', user_id: ALICE.id },
    });
    expect(second).toBe(first + 1);

    const all = await api.getUpdates();
    expect(all.map((u) => u.update_id)).toEqual([first, second]);
    expect(all[0]!.message).toMatchObject({
      message_id: 1,
      chat: { id: ALICE.id, type: 'private', first_name: 'Alice', last_name: 'Liddell', username: 'alice' },
      from: { ...ALICE, is_bot: false },
      text: 'hello',
    });
    expect(typeof all[0]!.message!.date).toBe('number');
    expect(all[1]!.message!.contact).toEqual({ phone_number: '+15550100', first_name: 'Alice', user_id: ALICE.id });

    // not confirmed: a crash here loses nothing, the next poll gets both again
    expect((await api.getUpdates()).map((u) => u.update_id)).toEqual([first, second]);
    expect((await api.getUpdates({ limit: 1 })).map((u) => u.update_id)).toEqual([first]);
    // offset = first + 1 confirms the first for good
    expect((await api.getUpdates({ offset: first + 1 })).map((u) => u.update_id)).toEqual([second]);
    expect((await api.getUpdates()).map((u) => u.update_id)).toEqual([second]);
    expect(await api.getUpdates({ offset: second + 1 })).toEqual([]);
    expect(await api.getUpdates()).toEqual([]);
  });

  it('a long poll is held until a message arrives, then answers at once', async () => {
    const poll = api.getUpdates({ timeout: 2 });
    await fake.waitForPoll(TOKEN);
    const id = fake.pushMessage(TOKEN, { chatId: ALICE.id, from: ALICE, text: 'are you there?' });
    const updates = await poll;
    expect(updates.map((u) => [u.update_id, textOf(u)])).toEqual([[id, 'are you there?']]);
  });

  it('a long poll with nothing to answer times out with []', async () => {
    const started = Date.now();
    expect(await api.getUpdates({ timeout: 1 })).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('a second concurrent poll ends the first with 409 Conflict', async () => {
    const first = grammyError(api.getUpdates({ timeout: 2 }));
    await fake.waitForPoll(TOKEN);
    const second = api.getUpdates({ timeout: 2 });
    const error = await first;
    expect(error.error_code).toBe(409);
    expect(error.description).toBe(
      'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
    );
    await fake.waitForPoll(TOKEN);
    fake.pushMessage(TOKEN, { chatId: ALICE.id, from: ALICE, text: 'second one gets it' });
    expect((await second).map(textOf)).toEqual(['second one gets it']);
  });

  it('getUpdates answers 409 while a webhook is set, and setWebhook ends a held poll with it', async () => {
    const conflict =
      "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first";
    const held = grammyError(api.getUpdates({ timeout: 2 }));
    await fake.waitForPoll(TOKEN);
    expect(await api.setWebhook('http://127.0.0.1:9/hook')).toBe(true);
    expect((await held).description).toBe(conflict);
    const error = await grammyError(api.getUpdates());
    expect([error.error_code, error.description]).toEqual([409, conflict]);

    expect(await api.deleteWebhook()).toBe(true);
    expect(await api.getUpdates()).toEqual([]);
  });

  it('a revoked token answers 401 to everything, a held poll included', async () => {
    const held = grammyError(api.getUpdates({ timeout: 2 }));
    await fake.waitForPoll(TOKEN);
    fake.revoke(TOKEN);
    const error = await held;
    expect([error.error_code, error.description]).toEqual([401, 'Unauthorized']);
    expect((await grammyError(api.getMe())).error_code).toBe(401);

    const raw = await fetch(`${fake.root}/bot${TOKEN}/getMe`, { method: 'POST' });
    expect(raw.status).toBe(401);
    expect(await raw.json()).toEqual({ ok: false, error_code: 401, description: 'Unauthorized' });
    const stranger = new Api('999:NotAToken', { apiRoot: fake.root });
    expect((await grammyError(stranger.getMe())).error_code).toBe(401);
    expect(fake.callsOf(TOKEN, 'getUpdates')).toBe(1);
    expect(fake.callsOf(TOKEN, 'getMe')).toBe(2);
  });

  it('an unknown method is 404 Not Found; query strings work as bodies do', async () => {
    const unknown = await fetch(`${fake.root}/bot${TOKEN}/makeCoffee`, { method: 'POST' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ ok: false, error_code: 404, description: 'Not Found' });
    const id = fake.pushMessage(TOKEN, { chatId: ALICE.id, from: ALICE, text: 'by query' });
    const byQuery = await fetch(`${fake.root}/bot${TOKEN}/GETUPDATES?offset=${id}&limit=5`);
    const { result } = (await byQuery.json()) as { result: Array<{ message?: { text?: string } }> };
    expect(result.map(textOf)).toEqual(['by query']);
  });

  it('sendMessage answers a real Message and is recorded; failSends fails the next sends', async () => {
    const asked = fake.pushMessage(TOKEN, { chatId: ALICE.id, from: ALICE, text: 'price?' });
    const [update] = await api.getUpdates({ offset: asked });
    const question = update!.message!.message_id;

    const keyboard = { inline_keyboard: [[{ text: 'Talk to a person', callback_data: 'handover' }]] };
    const message = await api.sendMessage(ALICE.id, '<b>10 €</b>', {
      parse_mode: 'HTML',
      reply_markup: keyboard,
      reply_parameters: { message_id: question },
    });
    expect(message).toMatchObject({
      message_id: question + 1,
      from: { id: 123456789, is_bot: true, username: 'fake_shop_bot' },
      chat: { id: ALICE.id, type: 'private' },
      text: '<b>10 €</b>',
      reply_to_message: { message_id: question, text: 'price?' },
      reply_markup: keyboard,
    });
    const [sent] = await fake.waitForSent(TOKEN, 1);
    expect(sent).toMatchObject({ chat_id: ALICE.id, text: '<b>10 €</b>', parse_mode: 'HTML', reply_markup: keyboard });

    fake.failSends(TOKEN, 1, { error_code: 429, description: 'Too Many Requests: retry after 3', retry_after: 3 });
    fake.failSends(TOKEN, 1, { error_code: 403, description: 'Forbidden: bot was blocked by the user' });
    const limited = await grammyError(api.sendMessage(ALICE.id, 'one'));
    expect([limited.error_code, limited.parameters.retry_after]).toEqual([429, 3]);
    const blocked = await grammyError(api.sendMessage(ALICE.id, 'two'));
    expect([blocked.error_code, blocked.description]).toEqual([403, 'Forbidden: bot was blocked by the user']);
    expect(blocked.parameters).toEqual({});
    await api.sendMessage(ALICE.id, 'three');
    expect(fake.sent(TOKEN).map((m) => m.text)).toEqual(['<b>10 €</b>', 'three']);

    expect((await grammyError(api.sendMessage(777, 'who?'))).description).toBe('Bad Request: chat not found');
    expect((await grammyError(api.sendMessage(ALICE.id, 'x'.repeat(4097)))).description).toBe(
      'Bad Request: message is too long',
    );
    await expect(fake.waitForSent(TOKEN, 3, 50)).rejects.toThrow(/waited 50 ms for 3 message\(s\) sent/);
  });

  it('a webhook is set, shown, and delivered to with its secret token', async () => {
    const received: Array<{ secret: string | undefined; body: any }> = [];
    let status = 200;
    const server = http.createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (b: Buffer) => parts.push(b));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(parts).toString('utf8'));
        received.push({ secret: req.headers['x-telegram-bot-api-secret-token'] as string | undefined, body });
        // a webhook reply: Telegram carries out the method the answer names
        const reply = { method: 'sendMessage', chat_id: body.message.chat.id, text: `echo: ${body.message.text}` };
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/telegram/hook`;
    try {
      fake.pushMessage(TOKEN, { chatId: ALICE.id, from: ALICE, text: 'pending' });
      await api.setWebhook(url, { secret_token: 'hook-Secret_1', allowed_updates: ['message', 'callback_query'] });
      expect(fake.webhook(TOKEN)).toEqual({
        url,
        secret_token: 'hook-Secret_1',
        allowed_updates: ['message', 'callback_query'],
        max_connections: 40,
      });
      expect(await api.getWebhookInfo()).toEqual({
        url,
        has_custom_certificate: false,
        pending_update_count: 1,
        ip_address: '127.0.0.1',
        max_connections: 40,
        allowed_updates: ['message', 'callback_query'],
      });

      expect(await fake.deliverWebhook(TOKEN, { chatId: ALICE.id, from: ALICE, text: 'via webhook' })).toBe(200);
      expect(received).toHaveLength(1);
      expect(received[0]!.secret).toBe('hook-Secret_1');
      expect(received[0]!.body).toMatchObject({ message: { chat: { id: ALICE.id }, text: 'via webhook' } });
      expect(typeof received[0]!.body.update_id).toBe('number');
      expect((await fake.waitForSent(TOKEN, 1))[0]!.text).toBe('echo: via webhook');

      status = 500;
      expect(await fake.deliverWebhook(TOKEN, { chatId: ALICE.id, from: ALICE, text: 'again' })).toBe(500);
      expect(await api.getWebhookInfo()).toMatchObject({
        last_error_message: 'Wrong response from the webhook: 500 Internal Server Error',
      });

      expect(await api.deleteWebhook({ drop_pending_updates: true })).toBe(true);
      expect(fake.webhook(TOKEN)).toBeUndefined();
      expect(await api.getWebhookInfo()).toEqual({ url: '', has_custom_certificate: false, pending_update_count: 0 });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
