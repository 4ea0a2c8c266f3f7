import { Field, inputValue } from '../../ui.js';
import { Toggle } from './inputs.js';
import { nullIfEmpty, type SectionProps } from './model.js';
import { Section } from './section.js';
import { FIELD_MAX } from '../../field-limits.js';

/** What the server answers when the agent has no no-answer message of its own. */
const DEFAULT_NO_ANSWER = 'I could not find that in our information.';
/** What the server tells visitors when the account's messages for the month are used up, unless the agent says otherwise. */
const DEFAULT_UNAVAILABLE = 'This assistant is unavailable right now, please try again later.';

export function GeneralSection(common: SectionProps) {
  return (
    <Section id="general" {...common}>
      {(d, set) => (
        <>
          <Field label="Name">
            <input
              required
              maxLength={FIELD_MAX.agent.name}
              value={d.name}
              onInput={(e) => set('name', inputValue(e))}
            />
          </Field>
          <Field label="Description" hint="For you; visitors do not see it.">
            <input
              maxLength={FIELD_MAX.agent.description}
              value={d.description ?? ''}
              onInput={(e) => set('description', nullIfEmpty(inputValue(e)))}
            />
          </Field>
          <Field label="Welcome message" hint="The first message visitors see.">
            <textarea
              rows={2}
              maxLength={FIELD_MAX.agent.welcome_message}
              value={d.welcome_message}
              onInput={(e) => set('welcome_message', inputValue(e))}
            />
          </Field>
          <Field
            label="No-answer message"
            hint="What visitors read when nothing in the knowledge answers their question (when the agent answers from its knowledge alone, without an AI provider). Empty for the default."
          >
            <textarea
              rows={2}
              maxLength={FIELD_MAX.agent.no_answer_message}
              value={d.no_answer_message ?? ''}
              placeholder={DEFAULT_NO_ANSWER}
              onInput={(e) => set('no_answer_message', nullIfEmpty(inputValue(e)))}
            />
          </Field>
          <Field
            label="Unavailable message"
            hint="What visitors read when this month’s messages are used up. Empty for the default."
          >
            <textarea
              rows={2}
              maxLength={FIELD_MAX.agent.unavailable_message}
              value={d.unavailable_message ?? ''}
              placeholder={DEFAULT_UNAVAILABLE}
              onInput={(e) => set('unavailable_message', nullIfEmpty(inputValue(e)))}
            />
          </Field>
          <Toggle
            label="Show sources to visitors"
            hint="Answers list the documents and pages they come from. Try it shows them to you either way."
            checked={d.show_sources !== false}
            onChange={(v) => set('show_sources', v)}
          />
          <Toggle
            label="Public access"
            hint="Visitors can reach the agent through the widget and the share link."
            checked={!!d.public_access}
            onChange={(v) => set('public_access', v)}
          />
        </>
      )}
    </Section>
  );
}
