import { Field, inputValue } from '../../ui.js';
import { LinesInput, WholeNumberInput } from './inputs.js';
import { nullIfEmpty, type SectionProps } from './model.js';
import { Section } from './section.js';
import { FIELD_MAX } from '../../field-limits.js';

export function EngagementSection(common: SectionProps) {
  return (
    <Section
      id="engagement"
      description="What the widget offers before the first message, and when a conversation goes to a person or is closed."
      {...common}
    >
      {(d, set) => (
        <>
          <Field
            label="Starter questions"
            hint="One per line, at most 6 of up to 120 characters: shown as buttons before the visitor’s first message."
          >
            <LinesInput rows={4} lines={d.starter_questions} onChange={(v) => set('starter_questions', v)} />
          </Field>
          <Field
            label="Greeting bubble"
            hint="Shown once beside the closed chat button after the delay below. Empty for none."
          >
            <input
              maxLength={FIELD_MAX.agent.greeting_message}
              value={d.greeting_message ?? ''}
              onInput={(e) => set('greeting_message', nullIfEmpty(inputValue(e)))}
            />
          </Field>
          <Field label="Greeting delay (seconds)" hint="1 to 120.">
            <WholeNumberInput
              min={1}
              max={120}
              value={d.greeting_delay_s ?? 5}
              onChange={(v) => set('greeting_delay_s', v)}
            />
          </Field>
          <Field label="Resolve idle conversations after (hours)" hint="1 to 720. Empty: never by themselves.">
            <WholeNumberInput
              min={1}
              max={720}
              value={d.auto_resolve_after_h}
              emptyIsNone
              onChange={(v) => set('auto_resolve_after_h', v)}
            />
          </Field>
          <Field
            label="Hand-over words"
            hint="One per line, at most 20: a visitor message containing one of them (as a whole word) marks the conversation escalated."
          >
            <LinesInput rows={3} lines={d.escalation_keywords} onChange={(v) => set('escalation_keywords', v)} />
          </Field>
          <Field
            label="Wait for a person (seconds)"
            hint="15 to 3600. When nobody takes an escalated conversation over within this time, the visitor is told and asked for their name and phone number."
          >
            <WholeNumberInput
              min={15}
              max={3600}
              value={d.handoff_wait_s ?? 120}
              onChange={(v) => set('handoff_wait_s', v)}
            />
          </Field>
        </>
      )}
    </Section>
  );
}
