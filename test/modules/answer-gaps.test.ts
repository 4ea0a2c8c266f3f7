import { describe, expect, it } from 'vitest';
import { auth, createAgent, registerUser, say, useTestApps, type TestApp, send, sendExpect } from '../helpers/app.js';
import { startFakeLlm } from '../helpers/fake-llm.js';
import { addText } from '../helpers/sources.js';

/**
 * Issue 23.2: answer gaps (questions the agent could not answer well, grouped with counts) and
 * Q&A sources (the owner's answer, retrieved ahead of other passages).
 */

type Json = Record<string, any>;
const apps = useTestApps();

async function setup(env: Record<string, string> = {}) {
  const t = await apps.start({ env: { EMBEDDINGS: 'none', ...env } });
  const owner = await registerUser(t.app);
  const agent = await createAgent(t.app, owner.token);
  /** a text source of the agent's (201) */
  const know = (name: string, content: string) => addText(t, owner.token, agent.id, name, content);
  return { t, owner, agent, know };
}

async function gaps(t: TestApp, token: string, agentId: string, status = 'open'): Promise<Json[]> {
  const res = await t.app.inject({ url: `/api/chatbots/${agentId}/gaps?status=${status}`, headers: auth(token) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

const addQa = (t: TestApp, token: string, agentId: string, payload: Json) =>
  t.app.inject({ method: 'POST', url: `/api/sources/chatbot/${agentId}/qa`, headers: auth(token), payload });

const putQa = (t: TestApp, token: string, sourceId: string, payload: Json) =>
  send(t.app, token, 'PUT', `/api/sources/${sourceId}/qa`, payload);

describe('recording answer gaps', () => {
  it('records a question with no passage, grouping similar wordings with counts, most asked first', async () => {
    const { t, owner, agent, know } = await setup();
    await know('Shipping', 'We ship to every country in the European Union within three days.');
    await say(t, agent.id, 's1', 'What are your opening hours?');
    await say(t, agent.id, 's2', 'opening hours?');
    await say(t, agent.id, 's3', 'Do you have a parking lot?');
    // answered from the knowledge: no gap
    await say(t, agent.id, 's4', 'Do you ship to the European Union?');
    // the owner's own test chat does not count
    await sendExpect(t.app, owner.token, 'POST', '/api/chat', {
      chatbot_id: agent.id,
      message: 'Where is the parking lot?',
    });

    const open = await gaps(t, owner.token, agent.id);
    expect(open.map((g) => [g.question, g.count, g.reasons])).toEqual([
      ['opening hours?', 2, ['no_passage']],
      ['Do you have a parking lot?', 1, ['no_passage']],
    ]);
    expect(open[0]).toMatchObject({
      status: 'open',
      question_key: 'hours opening',
      source_id: null,
      chatbot_id: agent.id,
    });
    expect(await gaps(t, owner.token, agent.id, 'answered')).toEqual([]);
  });

  it('records thumbs down (the question before the answer) and asking for a person', async () => {
    const { t, owner, agent, know } = await setup();
    await know('Prices', 'The Basic plan costs 10 euros per month. The Pro plan costs 25 euros per month.');
    const a = await say(t, agent.id, 's1', 'How much does the Pro plan cost?');
    expect(await gaps(t, owner.token, agent.id)).toEqual([]);
    const fb = await t.app.inject({
      method: 'POST',
      url: `/api/public/chat/${agent.id}/feedback`,
      payload: { session_id: 's1', message_id: a.message_id, value: -1 },
    });
    expect(fb.statusCode, fb.body).toBe(200);

    await say(t, agent.id, 's2', 'What does the Basic plan cost per month?');
    await sendExpect(t.app, null, 'POST', `/api/public/chat/${agent.id}/escalate`, { session_id: 's2' });

    const open = await gaps(t, owner.token, agent.id);
    expect(open.map((g) => [g.question, g.count, g.reasons]).sort()).toEqual([
      ['How much does the Pro plan cost?', 1, ['thumbs_down']],
      ['What does the Basic plan cost per month?', 1, ['asked_person']],
    ]);
  });

  it('records an answer in which the model says it does not know', async () => {
    const f = await startFakeLlm('openai', { reply: "I'm sorry, I don't know that." });
    apps.before(f);
    const { t, owner, agent, know } = await setup({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: f.baseURL });
    await know('Pets', 'Dogs are welcome in the shop when they are on a leash.');
    await say(t, agent.id, 's1', 'Are dogs welcome in the garden?');
    const open = await gaps(t, owner.token, agent.id);
    expect(open.map((g) => [g.question, g.reasons])).toEqual([['Are dogs welcome in the garden?', ['unsure']]]);
  });
});

describe('answering and dismissing gaps', () => {
  it('answers a gap with a qa source that then answers the next visitor; others get 404', async () => {
    const { t, owner, agent } = await setup();
    await say(t, agent.id, 's1', 'What are your opening hours?');
    const [gap] = await gaps(t, owner.token, agent.id);

    const other = await registerUser(t.app);
    const otherAgent = await createAgent(t.app, other.token);
    const body = {
      answer: 'We are open Monday to Friday from 9 to 17 o’clock; opening hours on Saturday are 10 to 14.',
    };
    for (const [token, agentId, gapId] of [
      [other.token, agent.id, gap!.id],
      [other.token, otherAgent.id, gap!.id],
      [owner.token, agent.id, 'missing'],
    ] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/chatbots/${agentId}/gaps/${gapId}/answer`,
        headers: auth(token),
        payload: body,
      });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ detail: 'Answer gap not found' });
    }
    expect((await t.app.inject({ url: `/api/chatbots/${agent.id}/gaps`, headers: auth(other.token) })).statusCode).toBe(
      404,
    );
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: `/api/chatbots/${agent.id}/gaps/${gap!.id}/dismiss`,
          headers: auth(other.token),
        })
      ).statusCode,
    ).toBe(404);
    const empty = await t.app.inject({
      method: 'POST',
      url: `/api/chatbots/${agent.id}/gaps/${gap!.id}/answer`,
      headers: auth(owner.token),
      payload: { answer: '  ' },
    });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().detail).toMatch(/answer/);

    const res = await t.app.inject({
      method: 'POST',
      url: `/api/chatbots/${agent.id}/gaps/${gap!.id}/answer`,
      headers: auth(owner.token),
      payload: body,
    });
    expect(res.statusCode, res.body).toBe(201);
    const { source, gap: answered } = res.json();
    expect(source).toMatchObject({
      type: 'qa',
      status: 'completed',
      qa_question: 'What are your opening hours?',
      qa_answer: body.answer,
      chatbot_id: agent.id,
    });
    expect(answered).toMatchObject({ id: gap!.id, status: 'answered', source_id: source.id });
    expect(await gaps(t, owner.token, agent.id)).toEqual([]);
    expect((await gaps(t, owner.token, agent.id, 'answered')).map((g) => g.id)).toEqual([gap!.id]);

    const next = await say(t, agent.id, 's2', 'opening hours?');
    // without a model the owner's answer is the answer, word for word, citing the Q&A source
    expect(next.message).toBe(body.answer);
    expect(next.sources).toEqual([
      expect.objectContaining({ source_id: source.id, name: 'What are your opening hours?' }),
    ]);
    // answered: it stays answered
    expect(await gaps(t, owner.token, agent.id)).toEqual([]);
  });

  it('sends the qa passage first to the model', async () => {
    const f = await startFakeLlm('openai', { reply: 'We open at 9.' });
    apps.before(f);
    const { t, owner, agent, know } = await setup({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: f.baseURL });
    await know(
      'Shop',
      'Opening hours of our partner shops vary; the hours of each shop are on its door. Opening hours change on holidays.',
    );
    expect(
      (
        await addQa(t, owner.token, agent.id, {
          question: 'What are your opening hours?',
          answer: 'Monday to Friday, 9 to 17.',
        })
      ).statusCode,
    ).toBe(201);
    await say(t, agent.id, 's1', 'What are your opening hours?');
    const chat = f.requests.filter((r) => r.kind === 'chat').at(-1)!;
    const system = JSON.stringify(chat.body.messages);
    expect(system.indexOf('Q: What are your opening hours?')).toBeGreaterThan(-1);
    expect(system.indexOf('Q: What are your opening hours?')).toBeLessThan(system.indexOf('partner shops'));
  });

  it('dismisses a gap; a new occurrence opens it again', async () => {
    const { t, owner, agent } = await setup();
    await say(t, agent.id, 's1', 'Is there a parking lot?');
    const [gap] = await gaps(t, owner.token, agent.id);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/chatbots/${agent.id}/gaps/${gap!.id}/dismiss`,
      headers: auth(owner.token),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: gap!.id, status: 'dismissed' });
    expect(await gaps(t, owner.token, agent.id)).toEqual([]);
    expect((await gaps(t, owner.token, agent.id, 'dismissed')).length).toBe(1);
    await say(t, agent.id, 's2', 'parking lot?');
    expect((await gaps(t, owner.token, agent.id)).map((g) => [g.id, g.count])).toEqual([[gap!.id, 2]]);
    expect(
      (await t.app.inject({ url: `/api/chatbots/${agent.id}/gaps?status=nope`, headers: auth(owner.token) }))
        .statusCode,
    ).toBe(400);
  });
});

describe('Q&A sources', () => {
  it('creates, validates and edits a qa source; 404 for others and non-qa sources', async () => {
    const { t, owner, agent, know } = await setup();
    let res = await addQa(t, owner.token, agent.id, {
      question: 'Do you deliver on Sundays?',
      answer: 'No, deliveries run Monday to Saturday.',
    });
    expect(res.statusCode, res.body).toBe(201);
    const qa = res.json();
    expect(qa).toMatchObject({
      type: 'qa',
      name: 'Do you deliver on Sundays?',
      qa_question: 'Do you deliver on Sundays?',
      status: 'completed',
    });
    const passages = (await t.app.inject({ url: `/api/sources/${qa.id}/passages`, headers: auth(owner.token) })).json();
    expect(passages.passages.map((p: Json) => p.content)).toEqual([
      'Q: Do you deliver on Sundays?\nA: No, deliveries run Monday to Saturday.',
    ]);

    for (const payload of [
      { question: '', answer: 'x' },
      { question: 'q?', answer: 'x'.repeat(5001) },
      { question: 'q'.repeat(501), answer: 'x' },
      { answer: 'x' },
    ]) {
      res = await addQa(t, owner.token, agent.id, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().detail).toEqual(expect.any(String));
    }

    res = await putQa(t, owner.token, qa.id, { answer: 'Yes, on Sundays from 10 to 12.' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      id: qa.id,
      qa_question: 'Do you deliver on Sundays?',
      qa_answer: 'Yes, on Sundays from 10 to 12.',
    });
    const after = (await t.app.inject({ url: `/api/sources/${qa.id}/passages`, headers: auth(owner.token) })).json();
    expect(after.passages.map((p: Json) => p.content)).toEqual([
      'Q: Do you deliver on Sundays?\nA: Yes, on Sundays from 10 to 12.',
    ]);
    expect((await say(t, agent.id, 's1', 'Do you deliver on Sundays?')).message).toContain('10 to 12');

    const other = await registerUser(t.app);
    res = await putQa(t, other.token, qa.id, { answer: 'hacked' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: 'Source not found' });
    expect((await addQa(t, other.token, agent.id, { question: 'a?', answer: 'b' })).statusCode).toBe(404);
    const text = await know('Notes', 'Some notes about the shop.');
    res = await putQa(t, owner.token, text.id, { answer: 'x' });
    expect(res.statusCode).toBe(404);
    res = await putQa(t, owner.token, qa.id, { question: ' ' });
    expect(res.statusCode).toBe(400);
  });

  it('puts a matching qa passage ahead of a text passage that ranks higher', async () => {
    const f = await startFakeLlm('openai', { reply: 'Here you are.' });
    apps.before(f);
    const { t, owner, agent, know } = await setup({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: f.baseURL });
    const text = await know(
      'Returns',
      'Returns: how to return an item. To return an item, return it within 30 days. Returns of items are free; return items in their box.',
    );
    const qa = (
      await addQa(t, owner.token, agent.id, {
        question: 'How do I return an item?',
        answer: 'Use the return label in your parcel.',
      })
    ).json();
    /** The owner's test chat (200): the ids of the sources the answer was given. */
    const ask = async (message: string) =>
      (await sendExpect(t.app, owner.token, 'POST', '/api/chat', { chatbot_id: agent.id, message })).sources.map(
        (s: Json) => s.source_id,
      );
    // a question the qa does not match (one content word of three in common: "return"; words
    // compare by their stems, so "Return items in a box?" would match "return an item"): the
    // fused ranking, the text passage first
    expect(await ask('Do returns come in a box?')).toEqual([text.id, qa.id]);
    expect(await ask('How do I return an item?')).toEqual([qa.id, text.id]);
  });
});

describe('a gap counts distinct conversations (issue 31 point 2)', () => {
  const rate = (t: TestApp, agentId: string, sessionId: string, messageId: string, value: number) =>
    t.app.inject({
      method: 'POST',
      url: `/api/public/chat/${agentId}/feedback`,
      payload: { session_id: sessionId, message_id: messageId, value },
    });

  it('one visitor toggling thumbs down and clear 20 times counts once', async () => {
    const { t, owner, agent, know } = await setup();
    await know('Prices', 'The Pro plan costs 25 euros per month.');
    const a = await say(t, agent.id, 's1', 'How much does the Pro plan cost?');
    for (let i = 0; i < 20; i++) {
      const down = await rate(t, agent.id, 's1', a.message_id, -1);
      expect(down.statusCode, down.body).toBe(200);
      const clear = await rate(t, agent.id, 's1', a.message_id, 0);
      expect(clear.statusCode, clear.body).toBe(200);
    }
    const open = await gaps(t, owner.token, agent.id);
    expect(open.map((g) => [g.question, g.count, g.reasons])).toEqual([
      ['How much does the Pro plan cost?', 1, ['thumbs_down']],
    ]);
  });

  it('a question asked once stays asked once after a thumbs down and an escalation; another conversation counts', async () => {
    const { t, owner, agent } = await setup();
    const a = await say(t, agent.id, 's1', 'What are your opening hours?');
    expect((await rate(t, agent.id, 's1', a.message_id, -1)).statusCode).toBe(200);
    await sendExpect(t.app, null, 'POST', `/api/public/chat/${agent.id}/escalate`, { session_id: 's1' });
    let open = await gaps(t, owner.token, agent.id);
    expect(open.map((g) => [g.question, g.count, g.reasons])).toEqual([
      ['What are your opening hours?', 1, ['no_passage', 'thumbs_down', 'asked_person']],
    ]);
    // the same visitor asking again in the same conversation is still one conversation
    await say(t, agent.id, 's1', 'opening hours?');
    await say(t, agent.id, 's2', 'Opening hours please?');
    open = await gaps(t, owner.token, agent.id);
    expect(open.map((g) => [g.question, g.count])).toEqual([['Opening hours please?', 2]]);
    // erasing the first conversation takes its part of the count (the wording is the second's)
    const erased = await t.app.inject({
      method: 'DELETE',
      url: `/api/chat/conversations/${agent.id}/${a.conversation_id}`,
      headers: auth(owner.token),
    });
    expect(erased.statusCode, erased.body).toBe(204);
    open = await gaps(t, owner.token, agent.id);
    expect(open.map((g) => [g.question, g.count])).toEqual([['Opening hours please?', 1]]);
  });
});
