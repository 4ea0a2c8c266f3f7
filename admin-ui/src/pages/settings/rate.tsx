import { Field } from '../../ui.js';
import { Toggle, WholeNumberInput } from './inputs.js';
import type { SectionProps } from './model.js';
import { Section } from './section.js';

export function RateSection(common: SectionProps) {
  return (
    <Section id="rate" description="Keeps one visitor, or a bot, from using up your message quota." {...common}>
      {(d, set) => (
        <>
          <Toggle
            label="Limit messages per visitor session"
            checked={!!d.rate_limit_enabled}
            onChange={(v) => set('rate_limit_enabled', v)}
          />
          <div class="grid-2">
            <Field label="Messages per hour per session">
              <WholeNumberInput
                min={1}
                max={10000}
                disabled={!d.rate_limit_enabled}
                value={d.messages_per_hour}
                onChange={(v) => set('messages_per_hour', v)}
              />
            </Field>
            <Field label="Daily message cap for this agent" hint="Empty for no cap.">
              <WholeNumberInput
                min={1}
                max={1000000}
                value={d.daily_message_limit}
                emptyIsNone
                onChange={(v) => set('daily_message_limit', v)}
              />
            </Field>
          </div>
        </>
      )}
    </Section>
  );
}
