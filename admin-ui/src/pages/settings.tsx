import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, get } from '../api.js';
import { followingColor, WidgetPreview } from '../preview.js';
import { useSession } from '../session.js';
import type { Agent, Provider } from '../types.js';
import { Field, Notice, errorText, formatDate, toast, inputValue } from '../ui.js';
import { MORE_TEXTS, TEXTS, type Lang, type TextKey } from '../../../widget/src/i18n.js';
import { PROVIDERS } from './agents.js';

/** The widget's language: `auto` follows the visitor's browser. */
type WidgetLanguage = 'auto' | Lang;

/** The agent with the settings of issue 22 (lead form timing and consent, widget language and texts). */
export type AgentSettings = Agent & {
  lead_form_timing: 'before_chat' | 'after_messages';
  lead_form_after_messages: number;
  lead_consent_text: string | null;
  privacy_policy_url: string | null;
  language: WidgetLanguage;
  widget_texts: Partial<Record<TextKey, string>>;
  unavailable_message: string | null;
  // issue 23: starter questions, greeting bubble, idle resolution, escalation words
  starter_questions: string[];
  greeting_message: string | null;
  greeting_delay_s: number;
  auto_resolve_after_h: number | null;
  escalation_keywords: string[];
  /** live handoff: seconds an escalation waits for a person before the visitor is asked for contact details */
  handoff_wait_s: number;
};

type Draft = Partial<AgentSettings>;
type Setter = <K extends keyof AgentSettings>(key: K, value: AgentSettings[K]) => void;

const pick = (agent: AgentSettings, keys: Array<keyof AgentSettings>): Draft =>
  Object.fromEntries(keys.map((k) => [k, agent[k]])) as Draft;

/**
 * Unsaved edits of the settings, per section: only the fields that differ from the stored agent.
 * They are kept by the agent page, above its tabs (see AgentPage), so they outlive this tab and
 * any other section's Save; a section's own Save or Discard is what ends them.
 */
export interface SettingsDrafts {
  sections: Partial<Record<SectionId, Draft>>;
  /** the allowed-domains box's text (a list cannot be edited line by line) */
  domains?: string;
}
export type UpdateDrafts = (change: (drafts: SettingsDrafts) => SettingsDrafts) => void;
export const NO_DRAFTS: SettingsDrafts = { sections: {} };

/** The sections with a draft of the agent's fields: id, title (also the form's name) and fields. */
const SECTIONS = {
  general: {
    title: 'General',
    keys: [
      'name',
      'description',
      'welcome_message',
      'no_answer_message',
      'unavailable_message',
      'show_sources',
      'public_access',
    ],
  },
  behaviour: { title: 'Behaviour', keys: ['provider', 'model', 'instructions', 'temperature', 'max_tokens'] },
  appearance: {
    title: 'Appearance',
    keys: [
      'primary_color',
      'secondary_color',
      'secondary_follows_primary',
      'accent_color',
      'accent_follows_primary',
      'widget_position',
      'widget_theme',
      'widget_size',
      'bubble_style',
      'font_family',
      'font_size',
      'logo_url',
      'avatar_url',
      'auto_expand',
      'powered_by_text',
    ],
  },
  texts: { title: 'Language and texts', keys: ['language', 'widget_texts'] },
  leads: {
    title: 'Lead capture and e-mail alerts',
    keys: [
      'lead_capture_enabled',
      'lead_form_timing',
      'lead_form_after_messages',
      'lead_consent_text',
      'privacy_policy_url',
      'email_alerts_enabled',
      'email_alert_address',
    ],
  },
  rate: { title: 'Rate limit', keys: ['rate_limit_enabled', 'messages_per_hour', 'daily_message_limit'] },
  engagement: {
    title: 'Starters, greeting and hand-over',
    keys: [
      'starter_questions',
      'greeting_message',
      'greeting_delay_s',
      'auto_resolve_after_h',
      'escalation_keywords',
      'handoff_wait_s',
    ],
  },
} satisfies Record<string, { title: string; keys: Array<keyof AgentSettings> }>;
type SectionId = keyof typeof SECTIONS;

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The fields of a section's draft that differ from the stored agent. */
function changedFields(agent: AgentSettings, keys: Array<keyof AgentSettings>, draft: Draft | undefined): Draft {
  if (!draft) return {};
  return Object.fromEntries(
    keys.filter((k) => k in draft && !same(draft[k], agent[k])).map((k) => [k, draft[k]]),
  ) as Draft;
}

const domainList = (text: string) =>
  text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);

/** The titles of the sections with unsaved changes, in page order. */
export function unsavedSettings(stored: Agent, drafts: SettingsDrafts): string[] {
  const agent = stored as AgentSettings;
  const titles = (Object.keys(SECTIONS) as SectionId[])
    .filter((id) => Object.keys(changedFields(agent, SECTIONS[id].keys, drafts.sections[id])).length > 0)
    .map((id) => SECTIONS[id].title);
  if (drafts.domains !== undefined && !same(domainList(drafts.domains), agent.allowed_domains))
    titles.push('Allowed domains');
  return titles;
}

/**
 * One section of the settings: its own draft of some of the agent's fields and its own Save,
 * which sends only the fields that changed (PUT changes only what it is sent).
 */
function Section(props: {
  id: SectionId;
  description?: ComponentChildren;
  agent: AgentSettings;
  drafts: SettingsDrafts;
  updateDrafts: UpdateDrafts;
  onSaved: (a: Agent) => void;
  children: (draft: Draft, set: Setter) => ComponentChildren;
  aside?: (draft: Draft) => ComponentChildren;
}) {
  const { title, keys } = SECTIONS[props.id];
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const overrides = props.drafts.sections[props.id];
  const update = (change: (d: Draft) => Draft) =>
    props.updateDrafts((all) => ({
      ...all,
      sections: { ...all.sections, [props.id]: change(all.sections[props.id] ?? {}) },
    }));
  // what the form shows: the stored agent's values under the unsaved ones
  const draft = { ...pick(props.agent, keys), ...overrides } as Draft;
  const set: Setter = (key, value) =>
    update((d) => {
      const next = { ...d };
      // back to the stored value: no longer a change
      if (same(value, props.agent[key])) delete next[key];
      else next[key] = value;
      return next;
    });
  const changed = changedFields(props.agent, keys, overrides);
  const dirty = Object.keys(changed).length > 0;

  const save = async (e: Event) => {
    e.preventDefault();
    if (!dirty) return;
    setBusy(true);
    setError(null);
    try {
      const updated = await api<AgentSettings>('PUT', `/api/chatbots/${encodeURIComponent(props.agent.id)}`, changed);
      props.onSaved(updated);
      // the saved fields now show the server's values (trimmed names, hosts); anything typed
      // while the request was out stays a change
      update((d) => {
        const next = { ...d };
        for (const k of Object.keys(changed) as Array<keyof AgentSettings>)
          if (same(next[k], changed[k])) delete next[k];
        return next;
      });
      toast(`${title} saved`);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  const id = `section-${title.toLowerCase().replace(/[^a-z]+/g, '-')}`;
  return (
    <form class="card section" onSubmit={save} method="post" aria-labelledby={id}>
      <div class="section-head">
        <h2 id={id}>{title}</h2>
        {props.description && <p class="muted">{props.description}</p>}
      </div>
      <div class={props.aside ? 'section-split' : ''}>
        <div class="stack">{props.children(draft, set)}</div>
        {props.aside && <div class="section-aside">{props.aside(draft)}</div>}
      </div>
      {error && <Notice kind="error">{error}</Notice>}
      <div class="actions">
        {dirty && (
          <button type="button" class="btn" onClick={() => update(() => ({}))} disabled={busy}>
            Discard changes
          </button>
        )}
        <button type="submit" class="btn btn-primary" disabled={!dirty || busy}>
          {busy ? 'Saving…' : 'Save'}
        </button>
      </div>
    </form>
  );
}

function Toggle({
  label,
  checked,
  onChange,
  hint,
}: {
  label: string;
  checked: boolean;
  onChange: (v: boolean) => void;
  hint?: string;
}) {
  return (
    <label class="toggle">
      <input type="checkbox" role="switch" checked={checked} onChange={(e) => onChange(e.currentTarget.checked)} />
      <span>
        {label}
        {hint && <span class="field-hint block">{hint}</span>}
      </span>
    </label>
  );
}

/**
 * The secondary or accent colour: it follows the primary until the owner sets it (README
 * "Widget"); while it follows, the box shows the colour it takes and cannot be edited.
 */
function FollowingColorField(props: {
  label: string;
  name: string;
  value: string;
  primary: string;
  following: boolean;
  onChange: (v: string) => void;
  onFollow: (following: boolean, shown: string) => void;
}) {
  const shown = props.following ? followingColor(props.primary) : props.value;
  return (
    <div class="stack-tight">
      <ColorField label={props.label} value={shown} onChange={props.onChange} disabled={props.following} />
      <label class="check small">
        <input
          type="checkbox"
          checked={props.following}
          onChange={(e) => props.onFollow(e.currentTarget.checked, shown)}
        />{' '}
        {props.name} follows the primary
      </label>
    </div>
  );
}

function ColorField({
  label,
  value,
  onChange,
  disabled,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  disabled?: boolean;
}) {
  // <input type=color> only takes #rrggbb; the text box also takes #rgb. Not a <label>: it holds
  // two inputs, each named on its own.
  const full = /^#[0-9a-f]{3}$/i.test(value) ? `#${value.slice(1).replace(/./g, (c) => c + c)}` : value;
  return (
    <div class="field">
      <span class="field-label">{label}</span>
      <span class="color-field">
        <input
          type="color"
          value={/^#[0-9a-f]{6}$/i.test(full) ? full : '#000000'}
          onInput={(e) => onChange(inputValue(e))}
          aria-label={`${label} picker`}
          disabled={disabled}
        />
        <input
          value={value}
          onInput={(e) => onChange(inputValue(e))}
          disabled={disabled}
          maxLength={7}
          pattern="#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})"
          aria-label={label}
        />
      </span>
    </div>
  );
}

interface AlertAddressState {
  address: string | null;
  verified: boolean;
  confirmation_sent_at: string | null;
}

/**
 * Alerts go to the account's own e-mail, or to another address once its reader has confirmed it
 * (so this server cannot be made to mail strangers). Until then they are kept, not lost.
 */
function AlertAddressConfirmation({ agentId }: { agentId: string }) {
  const [state, setState] = useState<AlertAddressState | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const path = `/api/chatbots/${encodeURIComponent(agentId)}/alert-address`;
  useEffect(() => {
    get<AlertAddressState>(path).then(setState, (err) => setError(errorText(err)));
  }, [path]);
  const send = async () => {
    setBusy(true);
    setError(null);
    try {
      setState(await api<AlertAddressState>('POST', `${path}/confirmation`));
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  if (error) return <Notice kind="error">{error}</Notice>;
  if (!state || state.verified) return null;
  return (
    <Notice kind="warning">
      {state.confirmation_sent_at
        ? `A confirmation link was sent to ${state.address} on ${formatDate(state.confirmation_sent_at)}. Alerts are kept until it is opened and confirmed. `
        : `Alerts to ${state.address} are kept until the address is confirmed: it is not this account's e-mail. `}
      <button type="button" class="btn btn-small" onClick={send} disabled={busy}>
        {busy ? 'Sending…' : state.confirmation_sent_at ? 'Send the link again' : 'Send the confirmation link'}
      </button>
    </Notice>
  );
}

const nullIfEmpty = (v: string) => (v.trim() === '' ? null : v);

/** What the server answers when the agent has no no-answer message of its own. */
const DEFAULT_NO_ANSWER = 'I could not find that in our information.';
/** What the server tells visitors when the account's messages for the month are used up, unless the agent says otherwise. */
const DEFAULT_UNAVAILABLE = 'This assistant is unavailable right now, please try again later.';

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
const shownLanguage = (language: WidgetLanguage | undefined): Lang =>
  language && language !== 'auto' ? language : 'en';

/** The texts in the widget's order, empty ones dropped (the server drops them too: "the language's own"). */
function normalTexts(texts: Partial<Record<TextKey, string>>): Partial<Record<TextKey, string>> {
  return Object.fromEntries(
    TEXT_LABELS.map(([k]) => [k, texts[k]]).filter(([, v]) => typeof v === 'string' && v.trim() !== ''),
  );
}

export function SettingsTab(props: {
  agent: Agent;
  onSaved: (a: Agent) => void;
  onDelete: () => void;
  drafts: SettingsDrafts;
  updateDrafts: UpdateDrafts;
}) {
  const { onSaved, onDelete, drafts, updateDrafts } = props;
  const agent = props.agent as AgentSettings;
  // defaults shown as placeholders follow the language being chosen, before it is saved
  const lang = shownLanguage(drafts.sections.texts?.language ?? agent.language);
  const timing = drafts.sections.leads?.lead_form_timing ?? agent.lead_form_timing;
  const { status } = useSession();
  const providerHasKey = status ? status.providers[agent.provider] : true;
  const common = { agent, onSaved, drafts, updateDrafts };
  // every section's unsaved changes, for the preview (language, texts, lead form, starters too)
  const unsaved: Draft = Object.assign({}, ...Object.values(drafts.sections));
  return (
    <div class="stack-lg">
      {status && !providerHasKey && !status.knowledge_only && (
        <Notice kind="warning">
          The server has no key for {agent.provider}: this agent answers from its knowledge base only until one is set,
          or until you pick a configured provider.
        </Notice>
      )}

      <Section id="general" {...common}>
        {(d, set) => (
          <>
            <Field label="Name">
              <input required maxLength={100} value={d.name} onInput={(e) => set('name', inputValue(e))} />
            </Field>
            <Field label="Description" hint="For you; visitors do not see it.">
              <input
                maxLength={2000}
                value={d.description ?? ''}
                onInput={(e) => set('description', nullIfEmpty(inputValue(e)))}
              />
            </Field>
            <Field label="Welcome message" hint="The first message visitors see.">
              <textarea
                rows={2}
                maxLength={1000}
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
                maxLength={1000}
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
                maxLength={500}
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
                    maxLength={100}
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
                  maxLength={20000}
                  value={d.instructions}
                  onInput={(e) => set('instructions', inputValue(e))}
                />
              </Field>
              <div class="grid-2">
                <Field
                  label={`Temperature: ${Number(d.temperature).toFixed(2)}`}
                  hint="0 is predictable, 1 is creative."
                >
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
            </>
          );
        }}
      </Section>

      <Section
        id="appearance"
        description="How the chat looks on your website. The preview follows your changes before you save."
        {...common}
        aside={(d) => <WidgetPreview agent={{ ...agent, ...unsaved, ...d }} />}
      >
        {(d, set) => (
          <>
            <div class="grid-3">
              <ColorField
                label="Primary color"
                value={d.primary_color ?? ''}
                onChange={(v) => set('primary_color', v)}
              />
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
                <select
                  value={d.widget_size}
                  onChange={(e) => set('widget_size', inputValue(e) as Agent['widget_size'])}
                >
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
                <input maxLength={100} value={d.font_family} onInput={(e) => set('font_family', inputValue(e))} />
              </Field>
              <Field label="Font size (px)">
                <WholeNumberInput min={10} max={32} value={d.font_size} onChange={(v) => set('font_size', v)} />
              </Field>
            </div>
            <Field label="Logo URL" hint="https address of an image on your site">
              <input
                type="url"
                maxLength={2000}
                value={d.logo_url ?? ''}
                onInput={(e) => set('logo_url', nullIfEmpty(inputValue(e)))}
                placeholder="https://"
              />
            </Field>
            <Field label="Avatar URL" hint="Shown beside the agent's messages">
              <input
                type="url"
                maxLength={2000}
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
                maxLength={100}
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
                hint="Automatic: the visitor’s browser language when it is one of these, otherwise English."
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
                      maxLength={500}
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

      <Section id="leads" {...common}>
        {(d, set) => (
          <>
            <Field
              label="Ask for name and phone"
              hint="Asked after answers, the form sits in the conversation: visitors can keep chatting or say “Not now”."
            >
              <select
                value={d.lead_capture_enabled ? d.lead_form_timing : 'never'}
                onChange={(e) => {
                  const v = inputValue(e);
                  if (v === 'never') return set('lead_capture_enabled', false);
                  set('lead_capture_enabled', true);
                  set('lead_form_timing', v as AgentSettings['lead_form_timing']);
                }}
              >
                <option value="before_chat">Before the first message</option>
                <option value="after_messages">
                  {d.lead_form_after_messages === 1
                    ? 'After the first answer'
                    : `After ${d.lead_form_after_messages} answers`}
                </option>
                <option value="never">Never</option>
              </select>
            </Field>
            {d.lead_capture_enabled && d.lead_form_timing === 'after_messages' && (
              <Field label="Answers before asking" hint="From 1 to 50.">
                <WholeNumberInput
                  min={1}
                  max={50}
                  required
                  value={d.lead_form_after_messages}
                  onChange={(v) => set('lead_form_after_messages', v)}
                />
              </Field>
            )}
            <Field
              label="Consent text"
              hint="Shown with the form, above its button. Empty for the default, in the widget’s language."
            >
              <textarea
                rows={2}
                maxLength={500}
                value={d.lead_consent_text ?? ''}
                placeholder={agent.widget_texts?.lead_consent || TEXTS[lang].lead_consent}
                onInput={(e) => set('lead_consent_text', nullIfEmpty(inputValue(e)))}
              />
            </Field>
            <Field label="Privacy policy URL" hint="Linked under the form (opens in a new tab). Empty for no link.">
              <input
                type="url"
                maxLength={2000}
                value={d.privacy_policy_url ?? ''}
                onInput={(e) => set('privacy_policy_url', nullIfEmpty(inputValue(e)))}
                placeholder="https://"
              />
            </Field>
            <Toggle
              label="E-mail me when a new lead arrives"
              checked={!!d.email_alerts_enabled}
              onChange={(v) => set('email_alerts_enabled', v)}
            />
            <Field label="Alert address">
              <input
                type="email"
                maxLength={254}
                required={!!d.email_alerts_enabled}
                value={d.email_alert_address ?? ''}
                onInput={(e) => set('email_alert_address', nullIfEmpty(inputValue(e)))}
              />
            </Field>
            {d.email_alerts_enabled && status && !status.mail.configured && (
              <Notice kind="info">
                E-mail is not configured on this server yet: alerts are kept and sent once it is.
              </Notice>
            )}
            {agent.email_alerts_enabled &&
              agent.email_alert_address &&
              d.email_alert_address === agent.email_alert_address && (
                <AlertAddressConfirmation key={agent.email_alert_address} agentId={agent.id} />
              )}
          </>
        )}
      </Section>

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
                maxLength={200}
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

      <AllowedDomains {...common} />

      <section class="card section danger-zone" aria-labelledby="danger-title">
        <h2 id="danger-title">Delete this agent</h2>
        <p class="muted">Removes the agent with its knowledge, conversations and leads.</p>
        <div class="actions">
          <button type="button" class="btn btn-danger" onClick={onDelete}>
            Delete agent…
          </button>
        </div>
      </section>
    </div>
  );
}

/** A text box of host patterns, one per line (its draft is the text: a list cannot be edited line by line). */
function AllowedDomains({
  agent,
  onSaved,
  drafts,
  updateDrafts,
}: {
  agent: Agent;
  onSaved: (a: Agent) => void;
  drafts: SettingsDrafts;
  updateDrafts: UpdateDrafts;
}) {
  const text = drafts.domains ?? agent.allowed_domains.join('\n');
  const setText = (v: string) => updateDrafts((all) => ({ ...all, domains: v }));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const list = domainList(text);
  const dirty = !same(list, agent.allowed_domains);
  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const updated = await api<Agent>('PUT', `/api/chatbots/${encodeURIComponent(agent.id)}`, {
        allowed_domains: list,
      });
      onSaved(updated);
      // the box shows what was stored (hosts, not pasted addresses), unless it was edited meanwhile
      updateDrafts((all) => (all.domains === text ? { ...all, domains: undefined } : all));
      toast('Allowed domains saved');
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card section" onSubmit={save} method="post" aria-labelledby="section-domains">
      <div class="section-head">
        <h2 id="section-domains">Allowed domains</h2>
        <p class="muted">
          Websites that may show this agent, one per line: example.com, or *.example.com for its subdomains. Empty lets
          any site embed it.
        </p>
      </div>
      <Field label="Domains">
        <textarea
          rows={4}
          value={text}
          onInput={(e) => setText(inputValue(e))}
          placeholder={'example.com\n*.example.com'}
        />
      </Field>
      {error && <Notice kind="error">{error}</Notice>}
      <div class="actions">
        <button type="submit" class="btn btn-primary" disabled={!dirty || busy}>
          {busy ? 'Saving…' : 'Save'}
        </button>
      </div>
    </form>
  );
}

/**
 * A whole-number field: what is typed, truncated (the server's 400 says when it is out of range).
 * With `emptyIsNone` an emptied box means "none" (null); otherwise it is sent as 0, as typed.
 */
function WholeNumberInput(
  props: { value: number | null | undefined; min: number; max: number; required?: boolean; disabled?: boolean } & (
    | { emptyIsNone: true; onChange: (value: number | null) => void }
    | { emptyIsNone?: false; onChange: (value: number) => void }
  ),
) {
  const { value, min, max, required, disabled } = props;
  return (
    <input
      type="number"
      min={min}
      max={max}
      step={1}
      required={required}
      disabled={disabled}
      value={value ?? ''}
      onInput={(e) => {
        const text = inputValue(e);
        if (props.emptyIsNone && text.trim() === '') props.onChange(null);
        else props.onChange(Math.trunc(Number(text)));
      }}
    />
  );
}

/** One entry per line (starter questions, hand-over words); the server drops blank ones. */
function LinesInput({
  rows,
  lines,
  onChange,
}: {
  rows: number;
  lines: string[] | undefined;
  onChange: (lines: string[]) => void;
}) {
  return <textarea rows={rows} value={(lines ?? []).join('\n')} onInput={(e) => onChange(inputValue(e).split('\n'))} />;
}
