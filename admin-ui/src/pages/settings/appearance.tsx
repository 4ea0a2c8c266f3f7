import { WidgetPreview } from '../../preview.js';
import type { Agent } from '../../types.js';
import { Field, inputValue } from '../../ui.js';
import { ColorWarnings } from './color-warnings.js';
import { ColorField, FollowingColorField, Toggle, WholeNumberInput } from './inputs.js';
import { type Draft, nullIfEmpty, type SectionProps } from './model.js';
import { Section } from './section.js';
import { FIELD_MAX } from '../../field-limits.js';

export function AppearanceSection(common: SectionProps) {
  const { agent, drafts } = common;
  // every section's unsaved changes, for the preview (language, texts, lead form, starters too)
  const unsaved: Draft = Object.assign({}, ...Object.values(drafts.sections));
  return (
    <Section
      id="appearance"
      description="How the chat looks on your website. The preview follows your changes before you save."
      {...common}
      aside={(d) => <WidgetPreview agent={{ ...agent, ...unsaved, ...d }} />}
    >
      {(d, set) => (
        <>
          <div class="grid-3">
            <ColorField label="Primary color" value={d.primary_color ?? ''} onChange={(v) => set('primary_color', v)} />
            <FollowingColorField
              label="Secondary color"
              name="Secondary"
              value={d.secondary_color ?? ''}
              primary={d.primary_color ?? ''}
              following={!!d.secondary_follows_primary}
              onChange={(v) => set('secondary_color', v)}
              onFollow={(on, shown) => {
                set('secondary_follows_primary', on);
                if (!on) set('secondary_color', shown);
              }}
            />
            <FollowingColorField
              label="Accent color"
              name="Accent"
              value={d.accent_color ?? ''}
              primary={d.primary_color ?? ''}
              following={!!d.accent_follows_primary}
              onChange={(v) => set('accent_color', v)}
              onFollow={(on, shown) => {
                set('accent_follows_primary', on);
                if (!on) set('accent_color', shown);
              }}
            />
          </div>
          <ColorWarnings draft={d} />
          <div class="grid-2">
            <Field label="Position">
              <select
                value={d.widget_position}
                onChange={(e) => set('widget_position', inputValue(e) as Agent['widget_position'])}
              >
                <option value="bottom-right">Bottom right</option>
                <option value="bottom-left">Bottom left</option>
                <option value="top-right">Top right</option>
                <option value="top-left">Top left</option>
              </select>
            </Field>
            <Field label="Theme">
              <select
                value={d.widget_theme}
                onChange={(e) => set('widget_theme', inputValue(e) as Agent['widget_theme'])}
              >
                <option value="auto">Follow the visitor's system</option>
                <option value="light">Light</option>
                <option value="dark">Dark</option>
              </select>
            </Field>
            <Field label="Size">
              <select value={d.widget_size} onChange={(e) => set('widget_size', inputValue(e) as Agent['widget_size'])}>
                <option value="small">Small</option>
                <option value="medium">Medium</option>
                <option value="large">Large</option>
              </select>
            </Field>
            <Field label="Bubble style">
              <select
                value={d.bubble_style}
                onChange={(e) => set('bubble_style', inputValue(e) as Agent['bubble_style'])}
              >
                <option value="rounded">Rounded</option>
                <option value="square">Square</option>
              </select>
            </Field>
            <Field label="Font" hint="A CSS font list, e.g. Georgia, serif">
              <input
                maxLength={FIELD_MAX.agent.font_family}
                value={d.font_family}
                onInput={(e) => set('font_family', inputValue(e))}
              />
            </Field>
            <Field label="Font size (px)">
              <WholeNumberInput min={10} max={32} value={d.font_size} onChange={(v) => set('font_size', v)} />
            </Field>
          </div>
          <Field label="Logo URL" hint="https address of an image on your site">
            <input
              type="url"
              maxLength={FIELD_MAX.agent.url}
              value={d.logo_url ?? ''}
              onInput={(e) => set('logo_url', nullIfEmpty(inputValue(e)))}
              placeholder="https://"
            />
          </Field>
          <Field label="Avatar URL" hint="Shown beside the agent's messages">
            <input
              type="url"
              maxLength={FIELD_MAX.agent.url}
              value={d.avatar_url ?? ''}
              onInput={(e) => set('avatar_url', nullIfEmpty(inputValue(e)))}
              placeholder="https://"
            />
          </Field>
          <Field
            label="Branding text"
            hint="Replaces “Powered by Chat Agent”; needs a plan with custom branding. Empty for the default."
          >
            <input
              maxLength={FIELD_MAX.agent.powered_by_text}
              value={d.powered_by_text ?? ''}
              onInput={(e) => set('powered_by_text', nullIfEmpty(inputValue(e)))}
            />
          </Field>
          <Toggle
            label="Open the chat by itself"
            hint="The chat window opens when the page loads."
            checked={!!d.auto_expand}
            onChange={(v) => set('auto_expand', v)}
          />
        </>
      )}
    </Section>
  );
}
