import { MORE_TEXTS, TEXTS, type Lang, type TextKey } from '../../../../widget/src/i18n.js';
import { Field, inputValue } from '../../ui.js';
import { same, type SectionProps, type WidgetLanguage } from './model.js';
import { Section } from './section.js';
import { FIELD_MAX } from '../../field-limits.js';

/** The widget's languages, as the language select names them. */
const LANGUAGE_NAMES: Array<[WidgetLanguage, string]> = [
  ['auto', 'Automatic (visitor’s browser)'],
  ['en', 'English'],
  ['es', 'Español'],
  ['fr', 'Français'],
  ['de', 'Deutsch'],
  ['it', 'Italiano'],
  ['pt', 'Português'],
  ['nl', 'Nederlands'],
];

/**
 * The widget's texts the owner can reword, with what each is. The consent sentence is not here:
 * the lead section edits it (`lead_consent_text`).
 */
const TEXT_LABELS: Array<[TextKey, string, string?]> = [
  ['placeholder', 'Message box'],
  ['send', 'Send button'],
  ['online', 'Status: online'],
  ['offline', 'Status: offline'],
  ['new_conversation', 'New conversation button'],
  ['close', 'Close button'],
  ['open_chat', 'Chat button', '{name} is the agent’s name'],
  ['lead_intro', 'Lead form: introduction'],
  ['lead_name', 'Lead form: name'],
  ['lead_phone', 'Lead form: phone'],
  ['lead_submit', 'Lead form: send button'],
  ['lead_skip', 'Lead form: skip button', 'Shown when the form is asked after answers'],
  ['privacy_policy', 'Privacy policy link'],
  ['lead_phone_missing', 'Lead form: no phone number'],
  ['lead_failed', 'Lead form: could not be sent'],
  ['sources', 'Sources heading'],
  ['retry', 'Retry button'],
  ['error_network', 'Error: connection problem'],
  ['error_busy', 'Error: too many messages', '{wait} is when to try again'],
  ['error_offline', 'Error: assistant offline'],
  ['error_unavailable', 'Error: chat not available'],
  ['error_generic', 'Error: something went wrong'],
  ['error_too_long', 'Error: message too long', '{max} is the longest message'],
];

/** The language whose default texts the placeholders show: the chosen one, English for automatic. */
export const shownLanguage = (language: WidgetLanguage | undefined): Lang =>
  language && language !== 'auto' ? language : 'en';

/** The texts in the widget's order, empty ones dropped (the server drops them too: "the language's own"). */
function normalTexts(texts: Partial<Record<TextKey, string>>): Partial<Record<TextKey, string>> {
  return Object.fromEntries(
    TEXT_LABELS.map(([k]) => [k, texts[k]]).filter(([, v]) => typeof v === 'string' && v.trim() !== ''),
  );
}

export function TextsSection(common: SectionProps) {
  const { agent, drafts } = common;
  // the default lead-form texts follow the timing being chosen, before it is saved
  const timing = drafts.sections.leads?.lead_form_timing ?? agent.lead_form_timing;
  return (
    <Section
      id="texts"
      description="The language of the widget’s own texts (buttons, labels, error messages), and your wording for any of them. The welcome message and answers are yours and the model’s."
      {...common}
    >
      {(d, set) => {
        const texts = d.widget_texts ?? {};
        const shown = shownLanguage(d.language);
        const setText = (key: TextKey, value: string) => {
          const next = normalTexts({ ...texts, [key]: value });
          // the stored texts in whatever order the server has them: back to them is no change
          set('widget_texts', same(normalTexts(agent.widget_texts ?? {}), next) ? agent.widget_texts : next);
        };
        const defaultText = (key: TextKey) =>
          timing === 'after_messages' && key === 'lead_intro'
            ? MORE_TEXTS[shown].lead_intro_later
            : timing === 'after_messages' && key === 'lead_submit'
              ? MORE_TEXTS[shown].lead_submit_later
              : TEXTS[shown][key];
        return (
          <>
            <Field
              label="Language"
              hint="Automatic: the visitor’s browser language when it is one of these, otherwise English. A language chosen here is also the one the knowledge base is searched in (word forms such as plurals); Automatic searches it as English."
            >
              <select value={d.language ?? 'auto'} onChange={(e) => set('language', inputValue(e) as WidgetLanguage)}>
                {LANGUAGE_NAMES.map(([code, label]) => (
                  <option key={code} value={code}>
                    {label}
                  </option>
                ))}
              </select>
            </Field>
            <p class="muted small">
              Each box shows the default text
              {d.language === 'auto' ? ' (in English; visitors see it in their language)' : ''}. Type your own wording
              to replace it in every language; leave a box empty for the default.
            </p>
            <div class="grid-2">
              {TEXT_LABELS.map(([key, label, hint]) => (
                <Field key={key} label={label} hint={hint}>
                  <input
                    maxLength={FIELD_MAX.agent.widget_text}
                    value={texts[key] ?? ''}
                    placeholder={defaultText(key)}
                    onInput={(e) => setText(key, inputValue(e))}
                  />
                </Field>
              ))}
            </div>
          </>
        );
      }}
    </Section>
  );
}
