import { describe, expect, it } from 'vitest';
import {
  accountWithAgent,
  joinAs,
  ManualClock,
  makeDataDir,
  ROOMY_PLAN,
  say,
  send,
  sendExpect,
  type TestApp,
  uniqueEmail,
  useTestApps,
  writePlansFile,
} from '../helpers/app.js';
import { addText, appWithFakeLlm, uploadFile } from '../helpers/sources.js';

/**
 * Issue 38.3: test questions per agent (docs/API-NOTES.md "Test questions"): made by hand, from an
 * answer, an answered gap, a Q&A source or CSV; run by hand (the model's answer with a key, else
 * the quoted one) and by themselves after the knowledge changed; regressions told to the owner.
 */

type Json = Record<string, any>;
const apps = useTestApps();

const SHIPPING = 'Parcels ship within two working days. Returns are free for thirty days.';

async function setup(opts: { env?: Record<string, string>; clock?: ManualClock } = {}) {
  const t = await apps.start({ env: { EMBEDDINGS: 'none', ...opts.env }, clock: opts.clock });
  const { token, agent } = await accountWithAgent(t.app);
  return { t, token, agent, base: `/api/chatbots/${agent.id}/tests` };
}

const addTest = (t: TestApp, token: string, agentId: string, body: Json) =>
  send(t.app, token, 'POST', `/api/chatbots/${agentId}/tests`, body);

function count(t: TestApp, table: string): number {
  return (t.database.sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
}

describe('test questions: create, list, edit, delete', () => {
  it('stores a test (201), lists it, edits its phrases and deletes it (204)', async () => {
    const { t, token, agent, base } = await setup();
    const source = await addText(t, token, agent.id, 'Shipping', SHIPPING);
    const res = await addTest(t, token, agent.id, {
      question: '  How fast do parcels ship? ',
      expected_phrases: ['two working days', ' ', 'two working days'],
      expected_source_id: source.id,
    });
    expect(res.statusCode, res.body).toBe(201);
    const test = res.json();
    expect(test).toMatchObject({
      question: 'How fast do parcels ship?',
      expected_phrases: ['two working days'],
      expected_source_id: source.id,
      expected_source_name: 'Shipping',
      origin: 'manual',
      chatbot_id: agent.id,
    });
    expect(await sendExpect(t.app, token, 'GET', base)).toEqual([test]);
    const edited = await sendExpect(t.app, token, 'PATCH', `${base}/${test.id}`, {
      expected_phrases: ['two working days', 'parcels'],
      expected_source_id: null,
    });
    expect(edited).toMatchObject({ expected_phrases: ['two working days', 'parcels'], expected_source_id: null });
    expect((await send(t.app, token, 'DELETE', `${base}/${test.id}`)).statusCode).toBe(204);
    expect(await sendExpect(t.app, token, 'GET', base)).toEqual([]);
  });

  it('refuses bad input with a 400 naming the field, storing nothing', async () => {
    const { t, token, agent, base } = await setup();
    const other = await accountWithAgent(t.app);
    const theirs = await addText(t, other.token, other.agent.id, 'Theirs', SHIPPING);
    const cases: Array<[Json, string]> = [
      [{ expected_phrases: ['x'] }, ''],
      [{ question: '   ', expected_phrases: ['x'] }, 'question'],
      [{ question: 'Q?', expected_phrases: 'x' }, ''],
      [{ question: 'Q?', expected_phrases: ['x'], expected_source_id: theirs.id }, 'expected_source_id'],
      [{ question: 'Q?', expected_phrases: Array.from({ length: 21 }, (_, i) => `p${i}`) }, 'expected_phrases'],
      [{ from: { message_id: 'nope', gap_id: 'x' } }, ''],
    ];
    for (const [body, field] of cases) {
      const res = await addTest(t, token, agent.id, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().detail, JSON.stringify(body)).toContain(field);
    }
    expect(await sendExpect(t.app, token, 'GET', base)).toEqual([]);
    expect(count(t, 'agent_tests')).toBe(0);
  });

  it("answers another account's agent, test and run as missing (404), and leaves them as they were", async () => {
    const { t, token, agent, base } = await setup();
    const test = (await addTest(t, token, agent.id, { question: 'Q?', expected_phrases: ['a'] })).json();
    const run = await sendExpect(t.app, token, 'POST', `${base}/run`);
    const other = await accountWithAgent(t.app);
    const theirs = `/api/chatbots/${other.agent.id}/tests`;
    const calls: Array<[string, string, Json?]> = [
      ['GET', base],
      ['POST', base, { question: 'Q?', expected_phrases: [] }],
      ['PATCH', `${base}/${test.id}`, { question: 'Changed?' }],
      ['DELETE', `${base}/${test.id}`],
      ['POST', `${base}/run`],
      ['POST', `${base}/import`, { csv: 'question\nQ?' }],
      ['GET', `${base}/runs`],
      ['GET', `${base}/runs/${run.id}`],
      ['GET', `${base}/settings`],
      ['PUT', `${base}/settings`, { auto_run_with_model: true }],
      // B's own agent, A's ids
      ['PATCH', `${theirs}/${test.id}`, { question: 'Changed?' }],
      ['DELETE', `${theirs}/${test.id}`],
      ['GET', `${theirs}/runs/${run.id}`],
    ];
    for (const [method, url, body] of calls) {
      const res = await send(t.app, other.token, method as 'GET', url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
    expect(await sendExpect(t.app, token, 'GET', base)).toEqual([test]);
    expect(await sendExpect(t.app, token, 'GET', `${base}/settings`)).toEqual({ auto_run_with_model: false });
  });

  it('lets a manager manage and run the tests; an operator is refused (403)', async () => {
    const { t, token, agent, base } = await setup();
    const manager = await joinAs(t, token, 'manager', uniqueEmail('manager'));
    const operator = await joinAs(t, token, 'operator', uniqueEmail('operator'));
    expect((await addTest(t, manager, agent.id, { question: 'Q?', expected_phrases: [] })).statusCode).toBe(201);
    expect((await send(t.app, manager, 'POST', `${base}/run`)).statusCode).toBe(200);
    for (const [method, url] of [
      ['GET', base],
      ['POST', `${base}/run`],
      ['GET', `${base}/runs`],
    ] as const)
      expect((await send(t.app, operator, method, url)).statusCode, `${method} ${url}`).toBe(403);
    expect((await addTest(t, operator, agent.id, { question: 'Q2?', expected_phrases: [] })).statusCode).toBe(403);
    expect(count(t, 'agent_tests')).toBe(1);
  });

  it("refuses a test past the plan's max_tests_per_agent with 403 and the limit detail", async () => {
    const dataDir = makeDataDir();
    const plans = writePlansFile(dataDir, { free: { ...ROOMY_PLAN, max_tests_per_agent: 2 } as typeof ROOMY_PLAN });
    const { t, token, agent } = await setup({ env: { PLANS_FILE: plans } });
    for (const q of ['One?', 'Two?'])
      expect((await addTest(t, token, agent.id, { question: q, expected_phrases: [] })).statusCode).toBe(201);
    const res = await addTest(t, token, agent.id, { question: 'Three?', expected_phrases: [] });
    expect(res.statusCode).toBe(403);
    expect(res.json().detail).toMatchObject({ current: 2, max: 2, upgrade_required: true });
    // an import past the cap stores none of its rows
    const imported = await send(t.app, token, 'POST', `/api/chatbots/${agent.id}/tests/import`, {
      csv: 'question\nThree?',
    });
    expect(imported.statusCode).toBe(403);
    expect(count(t, 'agent_tests')).toBe(2);
  });
});

describe('running the tests', () => {
  it('without a key judges the quoted answer: a passing test, a failing one with its reason; nothing counted', async () => {
    const { t, token, agent, base } = await setup();
    const source = await addText(t, token, agent.id, 'Shipping', SHIPPING);
    const pass = (
      await addTest(t, token, agent.id, {
        question: 'How fast do parcels ship?',
        expected_phrases: ['TWO  working   days'],
        expected_source_id: source.id,
      })
    ).json();
    const fail = (
      await addTest(t, token, agent.id, { question: 'How fast do parcels ship?', expected_phrases: ['overnight'] })
    ).json();
    const usage = async () => (await sendExpect(t.app, token, 'GET', '/api/usage')).messages.used;
    const usedBefore = await usage();

    const run = await sendExpect(t.app, token, 'POST', `${base}/run`);
    expect(run).toMatchObject({ passed: 1, failed: 1, trigger: 'manual', with_model: false, regressions: [] });
    const [first, second] = run.results;
    expect(first).toMatchObject({ test_id: pass.id, passed: true, reason: null });
    expect(first.answer).toContain('two working days');
    expect(first.sources).toEqual([{ source_id: source.id, name: 'Shipping' }]);
    expect(second).toMatchObject({ test_id: fail.id, passed: false, reason: "missing: 'overnight'" });

    // no conversation, no message, no quota, no analytics, no answer gap
    expect(count(t, 'conversations')).toBe(0);
    expect(count(t, 'messages')).toBe(0);
    expect(count(t, 'answer_gaps')).toBe(0);
    expect(await usage()).toBe(usedBefore);
    const analytics = await sendExpect(t.app, token, 'GET', `/api/analytics/chatbot/${agent.id}`);
    expect(analytics).toMatchObject({ total_conversations: 0, total_messages: 0, top_unanswered: [] });

    // the history
    const runs = await sendExpect(t.app, token, 'GET', `${base}/runs`);
    expect(runs).toEqual([expect.objectContaining({ id: run.id, passed: 1, failed: 1, trigger: 'manual' })]);
    expect(runs[0].results).toBeUndefined();
    expect(await sendExpect(t.app, token, 'GET', `${base}/runs/${run.id}`)).toEqual(run);
  });

  it("with a key judges the model's answer; the source counts among the passages it read", async () => {
    const { f, t, token, agent } = await appWithFakeLlm(apps, 'sk-test-key', {
      behaviour: { reply: 'Your parcel ships in 2 days, and returns are free.' },
    });
    const source = await addText(t, token, agent.id, 'Shipping', SHIPPING);
    const base = `/api/chatbots/${agent.id}/tests`;
    await addTest(t, token, agent.id, {
      question: 'How fast do parcels ship?',
      expected_phrases: ['returns are free'],
      expected_source_id: source.id,
    });
    await addTest(t, token, agent.id, {
      question: 'How fast do parcels ship?',
      expected_phrases: ['two working days'],
    });
    const run = await sendExpect(t.app, token, 'POST', `${base}/run`);
    expect(run).toMatchObject({ passed: 1, failed: 1, with_model: true });
    expect(run.results[0]).toMatchObject({
      passed: true,
      answer: 'Your parcel ships in 2 days, and returns are free.',
    });
    expect(run.results[1]).toMatchObject({ passed: false, reason: "missing: 'two working days'" });
    expect(f.requests.filter((r) => r.kind === 'chat')).toHaveLength(2);
    expect(count(t, 'conversations')).toBe(0);
    expect(count(t, 'messages')).toBe(0);
  });
});

describe('tests made from what the agent already has', () => {
  it('from an answer (the visitor question before it), an answered gap and a Q&A source', async () => {
    const { t, token, agent, base } = await setup();
    await addText(t, token, agent.id, 'Shipping', SHIPPING);
    const answer = await say(t, agent.id, 's1', 'How fast do parcels ship?');
    await t.app.inject({
      method: 'POST',
      url: `/api/public/chat/${agent.id}/feedback`,
      payload: { session_id: 's1', message_id: answer.message_id, value: -1 },
    });
    const fromAnswer = (await addTest(t, token, agent.id, { from: { message_id: answer.message_id } })).json();
    expect(fromAnswer).toMatchObject({
      question: 'How fast do parcels ship?',
      expected_phrases: [],
      expected_source_id: null,
      origin: 'thumbs_down',
    });

    await say(t, agent.id, 's2', 'Where can I park my car?');
    const [gap] = await sendExpect(t.app, token, 'GET', `/api/chatbots/${agent.id}/gaps`);
    const answered = await sendExpect(
      t.app,
      token,
      'POST',
      `/api/chatbots/${agent.id}/gaps/${gap.id}/answer`,
      { answer: 'Free parking is behind the shop. Ask at the desk for a pass.' },
      201,
    );
    const fromGap = (await addTest(t, token, agent.id, { from: { gap_id: gap.id } })).json();
    expect(fromGap).toMatchObject({
      question: 'Where can I park my car?',
      expected_phrases: ['Free parking is behind the shop'],
      expected_source_id: answered.source.id,
      origin: 'gap',
    });

    const qa = await sendExpect(
      t.app,
      token,
      'POST',
      `/api/sources/chatbot/${agent.id}/qa`,
      { question: 'Do you gift wrap?', answer: 'Yes, gift wrapping costs 2 euros.' },
      201,
    );
    const fromQa = (await addTest(t, token, agent.id, { from: { source_id: qa.id } })).json();
    expect(fromQa).toMatchObject({
      question: 'Do you gift wrap?',
      expected_phrases: ['Yes, gift wrapping costs 2 euros'],
      expected_source_id: qa.id,
      origin: 'qa',
    });

    // an open gap, a text source, a visitor's message: 400; another account's: 404
    const open = await say(t, agent.id, 's3', 'Do you sell gift cards?');
    const [openGap] = await sendExpect(t.app, token, 'GET', `/api/chatbots/${agent.id}/gaps`);
    expect((await addTest(t, token, agent.id, { from: { gap_id: openGap.id } })).statusCode).toBe(400);
    const text = (await sendExpect(t.app, token, 'GET', `/api/sources/chatbot/${agent.id}`)).find(
      (s: Json) => s.type === 'text',
    );
    expect((await addTest(t, token, agent.id, { from: { source_id: text.id } })).statusCode).toBe(400);
    const other = await accountWithAgent(t.app);
    expect((await addTest(t, other.token, other.agent.id, { from: { message_id: open.message_id } })).statusCode).toBe(
      404,
    );
    expect((await addTest(t, other.token, other.agent.id, { from: { source_id: qa.id } })).statusCode).toBe(404);

    // the three made pass
    const run = await sendExpect(t.app, token, 'POST', `${base}/run`);
    expect(run.results.map((r: Json) => [r.test_id, r.passed])).toEqual([
      [fromAnswer.id, true],
      [fromGap.id, true],
      [fromQa.id, true],
    ]);

    // erasing the conversation takes the test that holds the visitor's words with it
    expect(fromAnswer.conversation_id).toBe(answer.conversation_id);
    const erased = await send(t.app, token, 'DELETE', `/api/chat/conversations/${agent.id}/${answer.conversation_id}`);
    expect(erased.statusCode, erased.body).toBeLessThan(300);
    expect((await sendExpect(t.app, token, 'GET', base)).map((x: Json) => x.id)).toEqual([fromGap.id, fromQa.id]);
    const after = await sendExpect(t.app, token, 'GET', `${base}/runs/${run.id}`);
    expect(after.results[0]).toMatchObject({ test_id: fromAnswer.id, question: '', answer: '', passed: true });
    expect(after.results[1]).toMatchObject({ test_id: fromGap.id, question: 'Where can I park my car?' });
  });

  it('imports CSV: the good rows stored, the bad ones listed by line', async () => {
    const { t, token, agent, base } = await setup();
    const source = await addText(t, token, agent.id, 'Shipping', SHIPPING);
    const csv = [
      'question,expected_phrases,expected_source',
      'How fast do parcels ship?,two working days|ship,Shipping',
      ',orphan phrase,',
      `"Are returns free?","free; thirty days",${source.id}`,
      'Who are you?,,No such source',
      '"Multi',
      'line?",x,',
    ].join('\r\n');
    const res = await sendExpect(t.app, token, 'POST', `${base}/import`, { csv });
    expect(res.imported).toBe(3);
    expect(res.errors).toEqual([
      { line: 3, detail: 'question: must not be empty' },
      { line: 5, detail: "expected_source_id: 'No such source' is no source of this agent" },
    ]);
    const tests = await sendExpect(t.app, token, 'GET', base);
    expect(tests.map((x: Json) => [x.question, x.expected_phrases, x.expected_source_id, x.origin])).toEqual([
      ['How fast do parcels ship?', ['two working days', 'ship'], source.id, 'csv'],
      ['Are returns free?', ['free', 'thirty days'], source.id, 'csv'],
      ['Multi\r\nline?', ['x'], null, 'csv'],
    ]);
    const bad = await send(t.app, token, 'POST', `${base}/import`, { csv: 'phrases\nx' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().detail).toContain('question');
  });
});

describe('runs by themselves after the knowledge changed', () => {
  it('runs 60 s after the last change; deleting the source a test depends on is a regression the owner is told about', async () => {
    const clock = new ManualClock();
    const { t, token, agent, base } = await setup({ clock, env: { ALLOW_PRIVATE_URLS: 'true' } });
    await sendExpect(
      t.app,
      token,
      'POST',
      '/api/webhooks',
      { url: 'http://127.0.0.1:9/hooks', events: ['tests.regressed'] },
      201,
    );
    const source = await addText(t, token, agent.id, 'Shipping', SHIPPING);
    const test = (
      await addTest(t, token, agent.id, {
        question: 'How fast do parcels ship?',
        expected_phrases: ['two working days'],
        expected_source_id: source.id,
      })
    ).json();
    // a change with tests: a run is due in 60 s, and moves on with every change
    await addText(t, token, agent.id, 'Opening hours', 'We are open Monday to Friday, nine to five.');
    clock.advance(30_000);
    await addText(t, token, agent.id, 'Parking', 'Free parking is behind the shop.');
    clock.advance(45_000);
    await t.app.testJobs.idle();
    expect(await sendExpect(t.app, token, 'GET', `${base}/runs`)).toEqual([]);
    clock.advance(20_000);
    await t.app.testJobs.idle();
    const [first] = await sendExpect(t.app, token, 'GET', `${base}/runs`);
    expect(first).toMatchObject({ trigger: 'auto', with_model: false, passed: 1, failed: 0, regressions: [] });
    expect((await sendExpect(t.app, token, 'GET', '/api/system/status')).tests).toEqual({ regressions: 0 });

    // the source goes: the test fails, a regression
    expect((await send(t.app, token, 'DELETE', `/api/sources/${source.id}`)).statusCode).toBe(204);
    clock.advance(61_000);
    await t.app.testJobs.idle();
    const runs = await sendExpect(t.app, token, 'GET', `${base}/runs`);
    expect(runs).toHaveLength(2);
    expect(runs[0]).toMatchObject({ trigger: 'auto', passed: 0, failed: 1, regressions: [test.id] });
    const detail = await sendExpect(t.app, token, 'GET', `${base}/runs/${runs[0].id}`);
    expect(detail.results[0].reason).toContain("the expected source 'Shipping' no longer exists");
    expect((await sendExpect(t.app, token, 'GET', '/api/system/status')).tests).toEqual({ regressions: 1 });

    const mails = t.database.sqlite
      .prepare("SELECT subject, body FROM mail_outbox WHERE kind = 'account_notice'")
      .all() as Json[];
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toContain('no longer passes');
    expect(mails[0]!.body).toContain('How fast do parcels ship?');
    const deliveries = t.database.sqlite.prepare('SELECT event, payload FROM webhook_deliveries').all() as Json[];
    expect(deliveries.map((d) => d.event)).toEqual(['tests.regressed']);
    expect(JSON.parse(deliveries[0]!.payload).data).toMatchObject({
      chatbot_id: agent.id,
      run: { id: runs[0].id, trigger: 'auto', regressions: [{ test_id: test.id }] },
    });

    // a later run with the test passing again clears the banner
    await addText(t, token, agent.id, 'Shipping again', SHIPPING);
    await sendExpect(t.app, token, 'PATCH', `${base}/${test.id}`, { expected_source_id: null });
    clock.advance(61_000);
    await t.app.testJobs.idle();
    expect((await sendExpect(t.app, token, 'GET', '/api/system/status')).tests).toEqual({ regressions: 0 });
  });

  it('a file source runs them once it has been read, not when it is accepted', async () => {
    const clock = new ManualClock();
    const { t, token, agent, base } = await setup({ clock });
    await addTest(t, token, agent.id, {
      question: 'How fast do parcels ship?',
      expected_phrases: ['two working days'],
    });
    const res = await uploadFile(t, token, agent.id, 'shipping.txt', new TextEncoder().encode(SHIPPING));
    expect(res.statusCode, res.body).toBe(201);
    expect(t.database.sqlite.prepare('SELECT auto_run_after FROM agent_test_settings').all()).toEqual([]);
    await t.app.jobs.idle();
    clock.advance(61_000);
    await t.app.testJobs.idle();
    const [run] = await sendExpect(t.app, token, 'GET', `${base}/runs`);
    expect(run).toMatchObject({ trigger: 'auto', passed: 1, failed: 0 });
  });

  it('asks the model in automatic runs only when the owner turned it on', async () => {
    const clock = new ManualClock();
    const { f, t, token, agent } = await appWithFakeLlm(apps, 'sk-test-key', {
      clock,
      behaviour: { reply: 'Parcels ship within two working days.' },
    });
    const base = `/api/chatbots/${agent.id}/tests`;
    await addTest(t, token, agent.id, {
      question: 'How fast do parcels ship?',
      expected_phrases: ['two working days'],
    });
    await addText(t, token, agent.id, 'Shipping', SHIPPING);
    clock.advance(61_000);
    await t.app.testJobs.idle();
    expect((await sendExpect(t.app, token, 'GET', `${base}/runs`))[0]).toMatchObject({ with_model: false, passed: 1 });
    expect(f.requests.filter((r) => r.kind === 'chat')).toHaveLength(0);

    expect(await sendExpect(t.app, token, 'PUT', `${base}/settings`, { auto_run_with_model: true })).toEqual({
      auto_run_with_model: true,
    });
    await addText(t, token, agent.id, 'Returns', 'Returns are free.');
    clock.advance(61_000);
    await t.app.testJobs.idle();
    expect((await sendExpect(t.app, token, 'GET', `${base}/runs`))[0]).toMatchObject({ with_model: true, passed: 1 });
    expect(f.requests.filter((r) => r.kind === 'chat')).toHaveLength(1);
  });
});
