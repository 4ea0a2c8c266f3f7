import { describe, expect, it } from 'vitest';
import { WIDGET_LANGUAGES, WIDGET_TEXT_KEYS } from '../../src/modules/agents/schemas.js';
import { fill, LANGUAGES, MORE_TEXTS, pickLanguage, TEXTS, textsFor } from '../../widget/src/i18n.js';

/**
 * The widget's fixed texts (widget/src/i18n.ts) against the server's list of the keys an owner may
 * reword (WIDGET_TEXT_KEYS, issue 22.7): the same keys, in every language the server accepts.
 */

const holes = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('widget texts', () => {
  it('the widget speaks exactly the languages an agent can be set to (besides auto)', () => {
    expect([...LANGUAGES].sort()).toEqual(WIDGET_LANGUAGES.filter((l) => l !== 'auto').sort());
  });

  it.each(LANGUAGES)('%s has every text key of the server, and no other, each a non-empty text', (lang) => {
    expect(Object.keys(TEXTS[lang]).sort()).toEqual([...WIDGET_TEXT_KEYS].sort());
    for (const key of WIDGET_TEXT_KEYS) expect(TEXTS[lang][key].trim(), `${lang}.${key}`).not.toBe('');
  });

  it.each(LANGUAGES)(
    '%s has the texts only screen readers hear, and every text keeps the holes of the English one',
    (lang) => {
      expect(Object.keys(MORE_TEXTS[lang]).sort()).toEqual(Object.keys(MORE_TEXTS.en).sort());
      for (const [key, text] of Object.entries(TEXTS[lang]))
        expect(holes(text), `${lang}.${key}`).toEqual(holes(TEXTS.en[key as keyof typeof TEXTS.en]));
      for (const [key, text] of Object.entries(MORE_TEXTS[lang]))
        expect(holes(text), `${lang}.${key}`).toEqual(holes(MORE_TEXTS.en[key as keyof typeof MORE_TEXTS.en]));
    },
  );

  it('the agent’s language wins; auto takes the first browser language we speak, else English', () => {
    expect(pickLanguage('de', ['fr-FR'])).toBe('de');
    expect(pickLanguage('auto', ['fr-FR', 'en-US'])).toBe('fr');
    expect(pickLanguage(null, ['ja-JP', 'pt-BR', 'es'])).toBe('pt');
    expect(pickLanguage('auto', ['NL_be'])).toBe('nl');
    expect(pickLanguage('auto', ['ja', 'zh-CN'])).toBe('en');
    expect(pickLanguage('auto', [])).toBe('en');
  });

  it("the owner's wording replaces a text of the chosen language, key by key", () => {
    const texts = textsFor('de', { placeholder: 'Ihre Frage…', lead_submit: '', unknown: 'x', send: 3 });
    expect(texts.placeholder).toBe('Ihre Frage…');
    expect(texts.lead_submit).toBe(TEXTS.de.lead_submit); // empty: the language's own
    expect(texts.send).toBe(TEXTS.de.send);
    expect(texts).not.toHaveProperty('unknown');
    expect(textsFor('fr', undefined)).toEqual(TEXTS.fr);
  });

  it('fills the waiting time and the limits into the sentences', () => {
    expect(fill(TEXTS.en.error_busy, { wait: fill(MORE_TEXTS.en.wait_seconds, { n: 20 }) })).toBe(
      'Too many messages right now. Please wait 20 seconds and try again.',
    );
    expect(fill(TEXTS.de.error_busy, { wait: fill(MORE_TEXTS.de.wait_minutes, { n: 5 }) })).toBe(
      'Gerade kommen zu viele Nachrichten. Bitte versuchen Sie es in etwa 5 Minuten erneut.',
    );
    expect(fill('Hello {name}, {missing}', { name: 'Ada' })).toBe('Hello Ada, {missing}');
  });
});
