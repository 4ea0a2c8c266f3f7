import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, registerUser, uniqueEmail, type TestApp } from '../helpers/app.js';
import type { FakeLlm } from '../helpers/fake-llm.js';
import type { TestSmtp } from '../helpers/smtp.js';
import { appWithMailAndLlm } from '../helpers/mail-app.js';

/**
 * Erasure of one visitor (GDPR art. 17, issue 22.6): the owner deletes a conversation and, in the
 * same request and transaction, the widget leads its visitor left in the same session of that
 * agent and every alert e-mail about them (sent, pending or held). Checked in the SQLite file
 * itself, read by a connection of its own: every table, every row. Another visitor's data, the
 * same session on another agent and a lead sent without a session stay.
 */

type Json = Record<string, any>;

let t: TestApp;
let smtp: TestSmtp;
let fake: FakeLlm;

/** lower-case letters and digits: no escaping can hide it from a search of the file */
const marker = (label: string) => `zq${label}${randomBytes(5).toString('hex')}`;

async function call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, token?: string, payload?: Json) {
  return t.app.inject({ method, url, headers: token ? auth(token) : {}, ...(payload ? { payload } : {}) });
}

async function ok(method: 'GET' | 'POST' | 'PUT', url: string, token?: string, payload?: Json): Promise<any> {
  const res = await call(method, url, token, payload);
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
  return res.json();
}

async function agentWithAlerts(token: string, name: string, alertsTo: string): Promise<string> {
  const agent = await ok('POST', '/api/chatbots', token, { name, provider: 'openai', model: 'gpt-4o-mini' });
  await ok('PUT', `/api/chatbots/${agent.id}`, token, { email_alerts_enabled: true, email_alert_address: alertsTo });
  return agent.id;
}

/** A visitor: two messages through the widget's route with their name and e-mail, then a lead, all with one session. */
async function visitor(agentId: string, label: string, opts: { lead?: boolean } = {}) {
  const v = {
    session: marker(`${label}session`),
    name: marker(`${label}name`),
    email: `${marker(`${label}email`)}@example.com`,
    phone: `+31 20 ${label.length}00 4567`,
    words: marker(`${label}words`),
  };
  let conversationId = '';
  for (const n of [1, 2]) {
    const res = await ok('POST', `/api/public/chat/${agentId}`, undefined, {
      message: `Question ${n} ${v.words}`,
      session_id: v.session,
      user_name: v.name,
      user_email: v.email,
    });
    conversationId = res.conversation_id;
  }
  const lead =
    opts.lead === false
      ? null
      : await ok('POST', `/api/public/lead/${agentId}`, undefined, {
          name: `Lead ${v.name}`,
          phone: v.phone,
          session_id: v.session,
        });
  return { ...v, conversationId, lead };
}

/** The SQLite file as another connection reads it (what a backup or a forensic copy would hold). */
function readFile<T>(fn: (db: Database.Database) => T): T {
  const db = new Database(t.config.databaseFile, { readonly: true, fileMustExist: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** Every row of every ordinary table, as JSON text: a marker found here is still stored. */
function everything(): string {
  return readFile((db) => {
    const tables = db
      .prepare<[], { name: string }>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'",
      )
      .all();
    return tables
      .map(({ name }) => `${name}: ${JSON.stringify(db.prepare(`SELECT * FROM "${name.replace(/"/g, '""')}"`).all())}`)
      .join('\n');
  });
}

/** The rows erasure may touch, for "nothing changed" comparisons. */
function snapshot() {
  return readFile((db) => ({
    conversations: db.prepare('SELECT * FROM conversations ORDER BY id').all(),
    messages: db.prepare('SELECT * FROM messages ORDER BY id').all(),
    widget_leads: db.prepare('SELECT * FROM widget_leads ORDER BY id').all(),
    mail_outbox: db.prepare('SELECT id, status, body FROM mail_outbox ORDER BY id').all(),
    chatbots: db.prepare('SELECT id, messages_count, conversations_count FROM chatbots ORDER BY id').all(),
  }));
}

let close: (() => Promise<void>) | undefined;
beforeAll(async () => {
  ({ t, smtp, fake, close } = await appWithMailAndLlm({
    key: 'sk-test-erasure',
    llm: { reply: 'We are open from nine to five.', chunks: 3 },
  }));
}, 30_000);

afterAll(async () => close?.(), 60_000);

describe('DELETE /api/chat/conversations/{chatbot_id}/{conversation_id}', () => {
  let owner: { token: string; email: string };
  let stranger: { token: string; email: string };
  let shop: string;
  let otherAgent: string;
  let vera: Awaited<ReturnType<typeof visitor>>;
  let walt: Awaited<ReturnType<typeof visitor>>;
  let sessionless: Json;
  let sameSessionElsewhere: Json;

  beforeAll(async () => {
    owner = await registerUser(t.app, { email: uniqueEmail('owner') });
    stranger = await registerUser(t.app);
    // alerts to the account's own e-mail: sent at once (through the SMTP server above)
    shop = await agentWithAlerts(owner.token, 'Shop', owner.email);
    otherAgent = (
      await ok('POST', '/api/chatbots', owner.token, { name: 'Other', provider: 'openai', model: 'gpt-4o-mini' })
    ).id;
    // a webhook: each message and lead becomes a delivery whose body carries the visitor's words
    // (issue 23.6), which erasure must take too
    const hook = await call('POST', '/api/webhooks', owner.token, {
      url: 'https://hooks.example.com/chat-agent',
      events: ['message.created', 'lead.created'],
    });
    expect(hook.statusCode, hook.body).toBe(201);
    vera = await visitor(shop, 'vera');
    walt = await visitor(shop, 'walt');
    // Vera again, by phone to the shop: a lead with no session is not linked to the conversation
    sessionless = await ok('POST', `/api/public/lead/${shop}`, undefined, {
      name: `Lead ${vera.name}`,
      phone: '+31 20 999 0000',
    });
    // the same session id on another agent of the owner: another conversation, not erased with this one
    sameSessionElsewhere = await ok('POST', `/api/public/lead/${otherAgent}`, undefined, {
      name: 'Someone else',
      phone: '020 555 0100',
      session_id: vera.session,
    });
    await smtp.waitFor(3);
    await t.app.mailJobs.idle();
    const statuses = readFile((db) =>
      db
        .prepare<[], { status: string }>('SELECT status FROM mail_outbox')
        .all()
        .map((r) => r.status),
    );
    expect(statuses).toEqual(['sent', 'sent', 'sent']);
    expect(everything()).toContain(vera.words);
  }, 60_000);

  it("another account's conversation, one of another agent, an unknown one and a bad keep_leads: refused, nothing deleted", async () => {
    const before = snapshot();
    const foreign = await call('DELETE', `/api/chat/conversations/${shop}/${vera.conversationId}`, stranger.token);
    const unknown = await call('DELETE', `/api/chat/conversations/${shop}/no-such-conversation`, stranger.token);
    const unknownAgent = await call(
      'DELETE',
      `/api/chat/conversations/no-such-agent/${vera.conversationId}`,
      owner.token,
    );
    const wrongAgent = await call(
      'DELETE',
      `/api/chat/conversations/${otherAgent}/${vera.conversationId}`,
      owner.token,
    );
    for (const res of [foreign, unknown, unknownAgent, wrongAgent]) {
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json()).toEqual({ detail: 'Conversation not found' });
    }
    const foreignLead = await call('DELETE', `/api/chatbot-leads/${shop}/${vera.lead!.id}`, stranger.token);
    const leadOfOtherAgent = await call('DELETE', `/api/chatbot-leads/${otherAgent}/${vera.lead!.id}`, owner.token);
    const unknownLead = await call('DELETE', `/api/chatbot-leads/${shop}/no-such-lead`, owner.token);
    for (const res of [foreignLead, leadOfOtherAgent, unknownLead]) {
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json()).toEqual({ detail: 'Lead not found' });
    }
    const bad = await call(
      'DELETE',
      `/api/chat/conversations/${shop}/${vera.conversationId}?keep_leads=maybe`,
      owner.token,
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.json().detail).toMatch(/keep_leads/);
    expect((await call('DELETE', `/api/chat/conversations/${shop}/${vera.conversationId}`)).statusCode).toBe(401);
    expect(snapshot()).toEqual(before);
  });

  it("erases the conversation, its messages, the visitor's leads of that session and their alert e-mails; the rest stays", async () => {
    const agentBefore = await ok('GET', `/api/chatbots/${shop}`, owner.token);
    const res = await call('DELETE', `/api/chat/conversations/${shop}/${vera.conversationId}`, owner.token);
    expect(res.statusCode, res.body).toBe(204);
    expect(res.body).toBe('');

    // in the file: no row anywhere holds anything of Vera's from this chat
    const stored = everything();
    // (her session id stays only on the other agent's lead, which is not hers)
    for (const value of [
      vera.words,
      vera.email,
      vera.lead!.id,
      vera.conversationId,
      `Lead ${vera.name}","phone":"${vera.phone}`,
    ])
      expect(stored, value).not.toContain(value);
    readFile((db) => {
      expect(
        db.prepare('SELECT count(*) AS n FROM messages WHERE conversation_id = ?').get(vera.conversationId),
      ).toEqual({ n: 0 });
      expect(
        db
          .prepare('SELECT count(*) AS n FROM conversations WHERE id = ? OR session_id = ?')
          .get(vera.conversationId, vera.session),
      ).toEqual({ n: 0 });
      expect(db.prepare('SELECT count(*) AS n FROM widget_leads WHERE id = ?').get(vera.lead!.id)).toEqual({ n: 0 });
      expect(
        db
          .prepare(
            "SELECT count(*) AS n FROM mail_outbox WHERE instr(body, ?) > 0 AND instr(body, '+31 20 400 4567') > 0",
          )
          .get(vera.name),
      ).toEqual({ n: 0 });
    });
    // Walt's chat, lead and alert; the sessionless lead (and its alert); the other agent's lead: all there
    for (const value of [
      walt.words,
      walt.session,
      walt.email,
      walt.lead!.id,
      walt.conversationId,
      sessionless.id,
      sameSessionElsewhere.id,
    ])
      expect(stored, value).toContain(value);
    readFile((db) => {
      expect(db.prepare('SELECT count(*) AS n FROM mail_outbox WHERE instr(body, ?) > 0').get(walt.name)).toEqual({
        n: 1,
      });
      expect(
        db.prepare("SELECT count(*) AS n FROM mail_outbox WHERE instr(body, '+31 20 999 0000') > 0").get(),
      ).toEqual({ n: 1 });
    });

    // through the API: gone from the list, the transcript is 404, the leads list keeps the others
    const list: Json[] = await ok('GET', `/api/chat/conversations/${shop}`, owner.token);
    expect(list.map((c) => c.id)).toEqual([walt.conversationId]);
    expect((await call('GET', `/api/chat/messages/${vera.conversationId}`, owner.token)).statusCode).toBe(404);
    const leads: Json[] = await ok('GET', `/api/chatbot-leads/${shop}`, owner.token);
    expect(leads.map((l) => l.id).sort()).toEqual([walt.lead!.id, sessionless.id].sort());
    expect((await ok('GET', `/api/chatbot-leads/${otherAgent}`, owner.token)).map((l: Json) => l.id)).toEqual([
      sameSessionElsewhere.id,
    ]);

    // the agent's counts and the analytics go down by what was erased, and still agree
    const agentAfter = await ok('GET', `/api/chatbots/${shop}`, owner.token);
    expect(agentAfter.messages_count).toBe(agentBefore.messages_count - 4);
    expect(agentAfter.conversations_count).toBe(agentBefore.conversations_count - 1);
    const analytics = await ok('GET', `/api/analytics/chatbot/${shop}?days=7`, owner.token);
    expect(analytics.total_messages).toBe(agentAfter.messages_count);
    expect(analytics.total_conversations).toBe(agentAfter.conversations_count);

    // erased once: a second request is 404
    const again = await call('DELETE', `/api/chat/conversations/${shop}/${vera.conversationId}`, owner.token);
    expect(again.statusCode).toBe(404);
    await t.app.space.idle();
  });

  it('the erased text is overwritten in the database file, not only unlinked', async () => {
    // once the write-ahead log is copied into the file and emptied, no page of it holds the words
    expect(t.database.sqlite.pragma('wal_checkpoint(TRUNCATE)')).toEqual([{ busy: 0, log: 0, checkpointed: 0 }]);
    const bytes = readFileSync(t.config.databaseFile);
    expect(bytes.includes(Buffer.from(vera.words)), 'the visitor message').toBe(false);
    expect(bytes.includes(Buffer.from(vera.email)), "the visitor's e-mail").toBe(false);
    expect(bytes.includes(Buffer.from(walt.words)), 'the other visitor is still there').toBe(true);
  });

  it('keep_leads=true erases the conversation only; DELETE /api/chatbot-leads/{chatbot_id}/{lead_id} then erases a lead and its held alert', async () => {
    // alerts to an address not yet confirmed are held (they still hold the visitor's name and phone)
    const desk = await agentWithAlerts(owner.token, 'Desk', 'front-desk@example.org');
    const hana = await visitor(desk, 'hana');
    const held = () =>
      readFile((db) =>
        db.prepare("SELECT count(*) AS n FROM mail_outbox WHERE status = 'held' AND instr(body, ?) > 0").get(hana.name),
      );
    expect(held()).toEqual({ n: 1 });

    const res = await call(
      'DELETE',
      `/api/chat/conversations/${desk}/${hana.conversationId}?keep_leads=true`,
      owner.token,
    );
    expect(res.statusCode, res.body).toBe(204);
    expect(everything()).not.toContain(hana.words);
    expect((await ok('GET', `/api/chatbot-leads/${desk}`, owner.token)).map((l: Json) => l.id)).toEqual([
      hana.lead!.id,
    ]);
    expect(held()).toEqual({ n: 1 });

    const stranger404 = await call('DELETE', `/api/chatbot-leads/${desk}/${hana.lead!.id}`, stranger.token);
    expect(stranger404.statusCode).toBe(404);
    const del = await call('DELETE', `/api/chatbot-leads/${desk}/${hana.lead!.id}`, owner.token);
    expect(del.statusCode, del.body).toBe(200);
    expect(del.json()).toEqual({ success: true, message: 'Lead deleted', lead_id: hana.lead!.id });
    expect(held()).toEqual({ n: 0 });
    const stored = everything();
    expect(stored).not.toContain(hana.name);
    expect(stored).not.toContain(hana.lead!.id);
    expect((await call('DELETE', `/api/chatbot-leads/${desk}/${hana.lead!.id}`, owner.token)).statusCode).toBe(404);
    // the other visitors are untouched
    expect(stored).toContain(walt.lead!.id);
  });

  it('an answer still being written when its conversation is erased is not stored, and the visitor still gets it', async () => {
    const agent = (
      await ok('POST', '/api/chatbots', owner.token, { name: 'Streamer', provider: 'openai', model: 'gpt-4o-mini' })
    ).id;
    const first = await ok('POST', `/api/public/chat/${agent}`, undefined, {
      message: 'Hello',
      session_id: 'live-session',
    });
    fake.setBehaviour({ pauseAfterChunks: 1 });
    try {
      const words = marker('live');
      const pending = t.app.inject({
        method: 'POST',
        url: `/api/public/chat/${agent}`,
        headers: { accept: 'text/event-stream' },
        payload: { message: `Still there? ${words}`, session_id: 'live-session' },
      });
      await fake.waitForPause();
      const erased = await call('DELETE', `/api/chat/conversations/${agent}/${first.conversation_id}`, owner.token);
      expect(erased.statusCode, erased.body).toBe(204);
      fake.release();
      const answer = await pending;
      expect(answer.statusCode, answer.body).toBe(200);
      // the stream ends with its `done` event, not an error
      expect(answer.body).toMatch(/event: done\ndata: .*We are open from nine to five\./);
      expect(answer.body).not.toContain('event: error');
      expect(everything()).not.toContain(words);
      expect(await ok('GET', `/api/chat/conversations/${agent}`, owner.token)).toEqual([]);
    } finally {
      fake.setBehaviour({ pauseAfterChunks: undefined });
      fake.release();
    }
  });
});
