import { describe, expect, it } from 'vitest';
import { registerUser, say, useTestApps } from '../helpers/app.js';
import { answerPassage as passage } from '../helpers/answer-passage.js';
import { agentKnowing, answerFrom } from '../helpers/knowledge-answer-text.js';

/**
 * Issue 33: a question turning on a word the agent's whole knowledge never says ("Do you ship to
 * Canada?" of a shop that ships to the USA and Mexico, "Can I pay by PayPal?" of one that takes
 * cards) gets the no-answer message, not a quote sharing its other word. A misspelt word the
 * knowledge holds ("Mexcio") or a word of the owner's synonyms is no such word.
 */

const SHIPPING = 'We ship to the USA and Mexico within five working days.';
const PAYMENT = 'You can pay by credit card or bank transfer when you order.';
const HOURS = 'The shop is open Monday to Saturday from 9 to 18.';

describe('a question word the knowledge holds nowhere weighs heavily', () => {
  it('with the word known to be absent from the knowledge, a two-word question sharing one word is not answered', () => {
    // without knowing the agent's vocabulary the absent word weighs the mean: half the question is held
    expect(answerFrom('Do you ship to Canada?', [SHIPPING, HOURS]).found).toBe(true);
    const answer = answerFrom('Do you ship to Canada?', [SHIPPING, HOURS], { unknownWords: new Set(['canada']) });
    expect(answer.found).toBe(false);
    expect(answer.used).toEqual([]);
  });

  it('a longer question with one stray word is still answered', () => {
    const answer = answerFrom('Can I pay by credit card when I order online?', [PAYMENT, HOURS], {
      unknownWords: new Set(['online']),
    });
    expect(answer.found).toBe(true);
    expect(answer.text).toContain(PAYMENT);
  });

  it('a verb that only frames the question ("What does ... say?") is no word the knowledge must hold', () => {
    const notes = passage(
      ['Policy note 4: returns within 14 days.', 'Policy note 5: refunds go to the card used.'].join('\n\n'),
    );
    for (const question of ['What does Policy note 5 say?', 'Can you tell me about Policy note 5?']) {
      const answer = answerFrom(question, [notes, HOURS], { unknownWords: new Set(['say', 'tell']) });
      expect(answer.found, question).toBe(true);
      expect(answer.text, question).toContain('Policy note 5: refunds go to the card used.');
    }
  });
});

describe('through the public chat with no provider key', () => {
  const apps = useTestApps({ env: { EMBEDDINGS: 'none' } });

  it('unknown words get the fallback; typos and synonyms are still answered', async () => {
    const t = await apps.start();
    const owner = await registerUser(t.app);
    const agent = await agentKnowing(
      t,
      owner.token,
      { Shipping: SHIPPING, Payment: PAYMENT, Hours: HOURS },
      { synonyms: ['paypal = credit card'] },
    );
    // another agent's knowledge saying "Canada" does not make it this agent's word
    await agentKnowing(t, owner.token, { Shipping: 'We ship to Canada by air mail.' });

    for (const q of ['Do you ship to Canada?', 'Is there a discount for students?']) {
      const answer = await say(t, agent.id, q, q);
      expect(answer.sources, q).toEqual([]);
      expect(answer.message, q).not.toContain('We ship');
    }
    const typo = await say(t, agent.id, 'typo', 'Do you ship to Mexcio?');
    expect(typo.message).toContain(SHIPPING);
    const synonym = await say(t, agent.id, 'synonym', 'Can I pay by PayPal?');
    expect(synonym.message).toContain(PAYMENT);
  });
});
