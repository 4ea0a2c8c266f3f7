import { describe, expect, it } from 'vitest';
import { coverage, standsOut, wordWeights } from '../../src/modules/chat/answer-gate.js';

/**
 * Issue 33: the no-key answer's gate judges the best sentence with its passage. A sentence holding
 * a third of the question's weight answers when its passage (with its headings) holds most of the
 * question and stands out among the candidates; when another candidate holds nearly as much, it
 * needs half as before.
 */

const words = ['3', '6', 'same', '9', 'calculation'];
const faq = new Set(['why', 'r', 'think', 'number', 'equal', '3', '6', '9', 'same', 'digit']);
const build = new Set(['build', 'python', 'same', 'version']);
const loop = new Set(['loop', 'file', 'calculation', 'result']);

describe('a passage that stands out', () => {
  it('holds most of the question and every other candidate a fifth less', () => {
    const candidates = [faq, build, loop];
    const weights = wordWeights(words, candidates);
    expect(coverage(words, weights, (w) => faq.has(w))).toBeGreaterThanOrEqual(0.65);
    expect(standsOut(words, weights, candidates, 0)).toBe(true);
    expect(standsOut(words, weights, candidates, 1)).toBe(false);
  });

  it('does not stand out beside a candidate holding nearly as much', () => {
    const twin = new Set(['why', 'number', '3', '6', '9', 'same', 'float']);
    const candidates = [faq, twin, loop];
    expect(standsOut(words, wordWeights(words, candidates), candidates, 0)).toBe(false);
  });

  it('does not stand out holding less than two thirds of the question', () => {
    const half = new Set(['3', '6', 'number']);
    const candidates = [half, loop];
    expect(standsOut(words, wordWeights(words, candidates), candidates, 0)).toBe(false);
  });
});
