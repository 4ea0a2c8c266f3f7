import { PROVIDERS } from '../../providers.js';
import { useSession } from '../../session.js';
import type { Provider } from '../../types.js';
import { Field, inputValue } from '../../ui.js';
import { LinesInput, WholeNumberInput } from './inputs.js';
import type { SectionProps } from './model.js';
import { Section } from './section.js';
import { FIELD_MAX } from '../../field-limits.js';

export function BehaviourSection(common: SectionProps) {
  const { status } = useSession();
  return (
    <Section id="behaviour" description="The model that writes the answers and how it is told to behave." {...common}>
      {(d, set) => {
        const provider = PROVIDERS.find((p) => p.id === d.provider) ?? PROVIDERS[0]!;
        return (
          <>
            <div class="grid-2">
              <Field
                label="Provider"
                hint={
                  status && !status.providers[d.provider as Provider]
                    ? 'No key configured on the server for this provider.'
                    : undefined
                }
              >
                <select value={d.provider} onChange={(e) => set('provider', inputValue(e) as Provider)}>
                  {PROVIDERS.map((p) => (
                    <option key={p.id} value={p.id}>
                      {p.label}
                      {status && !status.providers[p.id] ? ' (no key)' : ''}
                    </option>
                  ))}
                </select>
              </Field>
              <Field label="Model">
                <input
                  required
                  list="model-suggestions"
                  maxLength={FIELD_MAX.agent.model}
                  value={d.model}
                  onInput={(e) => set('model', inputValue(e))}
                />
                <datalist id="model-suggestions">
                  {provider.models.map((m) => (
                    <option key={m} value={m} />
                  ))}
                </datalist>
              </Field>
            </div>
            <Field label="Instructions" hint="The system prompt: who the agent is, what it may talk about, its tone.">
              <textarea
                rows={8}
                maxLength={FIELD_MAX.agent.instructions}
                value={d.instructions}
                onInput={(e) => set('instructions', inputValue(e))}
              />
            </Field>
            <div class="grid-2">
              <Field label={`Temperature: ${Number(d.temperature).toFixed(2)}`} hint="0 is predictable, 1 is creative.">
                <input
                  type="range"
                  min={0}
                  max={1}
                  step={0.05}
                  value={d.temperature}
                  onInput={(e) => set('temperature', Number(inputValue(e)))}
                />
              </Field>
              <Field label="Max tokens per answer">
                <WholeNumberInput
                  min={1}
                  max={16384}
                  required
                  value={d.max_tokens}
                  onChange={(v) => set('max_tokens', v)}
                />
              </Field>
            </div>
            <Field
              label="Synonyms"
              hint={`Words your visitors may use for yours, one group per line, e.g. "cornetto = croissant": a question with one of them also searches the knowledge base for the others. At most ${FIELD_MAX.agent.synonyms} lines.`}
            >
              <LinesInput rows={3} lines={d.synonyms} onChange={(v) => set('synonyms', v)} />
            </Field>
          </>
        );
      }}
    </Section>
  );
}
