import { describe, expect, it } from 'vitest';
import { knowledgeOnlyAnswer } from '../../src/modules/chat/knowledge-answer.js';
import { createAgent, registerUser, say, useTestApps } from '../helpers/app.js';
import { answerPassage } from '../helpers/answer-passage.js';
import { oneOfEachFormat } from '../helpers/documents.js';
import { listSources, uploadFile } from '../helpers/sources.js';

/**
 * The no-key answer weighs question words that stand together in the question and in a sentence
 * ("Item 12") above the same words apart: a price list whose rows all say "Item" and "Price" and
 * hold numbers in every column, beside notes that say "costs" (the lexicon's word for "price").
 * Found by the single executable checked with one file of each format: "What is the price of Item
 * 12?" quoted the rows of Item 4 and 5 (Stock: 12), or nothing.
 */

const rows = (from: number, to: number) =>
  Array.from(
    { length: to - from },
    (_, k) => `Product: Item ${from + k} | Price: ${((from + k) * 2.5).toFixed(2)} | Stock: ${(from + k) * 3}`,
  ).join('\n');
const notes = Array.from(
  { length: 20 },
  (_, i) => `Manual note ${i}: order ${1000 + i} of customer ${7 * i} costs $${(i * 1.25).toFixed(2)}.`,
).join('\n\n');
const passages = [
  answerPassage(rows(0, 30), { sourceName: 'prices.xlsx' }),
  answerPassage(notes, { sourceName: 'manual.pdf' }),
  answerPassage(rows(30, 60), { sourceName: 'prices.xlsx' }),
];

describe('words that stand together', () => {
  it("quote the row naming the item, not a row holding the item's number in another column", () => {
    for (const question of ['What is the price of Item 12?', 'How much does Item 12 cost?', 'Item 12 price']) {
      const answer = knowledgeOnlyAnswer(question, passages, { showSources: false });
      expect(answer.found, question).toBe(true);
      expect(answer.text, question).toContain('Product: Item 12 | Price: 30.00 | Stock: 36');
      expect(answer.text, question).not.toContain('Item 4 |');
    }
  });
});

describe('through the public chat with no provider key', () => {
  const apps = useTestApps({ env: { EMBEDDINGS: 'none' } });

  it('the keyword search finds the passage holding "Item 12" among passages holding "12" elsewhere', {
    timeout: 60_000,
  }, async () => {
    const t = await apps.start();
    const owner = await registerUser(t.app);
    const agent = await createAgent(t.app, owner.token);
    // the checklist's set: a 300-row price sheet (xlsx and csv) beside notes whose every sentence
    // "costs" (the lexicon's word for "price") in a PDF, a DOCX and a text file
    for (const file of await oneOfEachFormat())
      expect((await uploadFile(t, owner.token, agent.id, file.name, file.content)).statusCode).toBe(201);
    await expect
      .poll(async () => (await listSources(t, owner.token, agent.id)).map((s) => s.status), { timeout: 30_000 })
      .toEqual(['completed', 'completed', 'completed', 'completed', 'completed']);
    for (const question of ['What is the price of Item 12?', 'How much does Item 12 cost?']) {
      const answer = await say(t, agent.id, question, question);
      expect(answer.message, question).toContain('Product: Item 12 | Price: 30.00 | Stock: 36');
    }
  });
});
