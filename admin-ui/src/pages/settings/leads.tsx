import { useEffect, useState } from 'preact/hooks';
import { TEXTS } from '../../../../widget/src/i18n.js';
import { api, get } from '../../api.js';
import { useSession } from '../../session.js';
import { Field, Notice, errorText, formatDate, inputValue, useSubmit } from '../../ui.js';
import { Toggle, WholeNumberInput } from './inputs.js';
import { type AgentSettings, nullIfEmpty, type SectionProps } from './model.js';
import { Section } from './section.js';
import { shownLanguage } from './texts.js';
import { FIELD_MAX } from '../../field-limits.js';

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
  const path = `/api/chatbots/${encodeURIComponent(agentId)}/alert-address` as const;
  useEffect(() => {
    get<AlertAddressState>(path).then(setState, (err) => setError(errorText(err)));
  }, [path]);
  const sending = useSubmit(async () => {
    setState(await api<AlertAddressState>('POST', `${path}/confirmation`));
  });
  const busy = sending.busy;
  if (error ?? sending.error) return <Notice kind="error">{error ?? sending.error}</Notice>;
  if (!state || state.verified) return null;
  return (
    <Notice kind="warning">
      {state.confirmation_sent_at
        ? `A confirmation link was sent to ${state.address} on ${formatDate(state.confirmation_sent_at)}. Alerts are kept until it is opened and confirmed. `
        : `Alerts to ${state.address} are kept until the address is confirmed: it is not this account's e-mail. `}
      <button type="button" class="btn btn-small" onClick={() => sending.submit()} disabled={busy}>
        {busy ? 'Sending…' : state.confirmation_sent_at ? 'Send the link again' : 'Send the confirmation link'}
      </button>
    </Notice>
  );
}

export function LeadsSection(common: SectionProps) {
  const { agent, drafts } = common;
  // defaults shown as placeholders follow the language being chosen, before it is saved
  const lang = shownLanguage(drafts.sections.texts?.language ?? agent.language);
  const { status } = useSession();
  return (
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
              maxLength={FIELD_MAX.agent.lead_consent_text}
              value={d.lead_consent_text ?? ''}
              placeholder={agent.widget_texts?.lead_consent || TEXTS[lang].lead_consent}
              onInput={(e) => set('lead_consent_text', nullIfEmpty(inputValue(e)))}
            />
          </Field>
          <Field label="Privacy policy URL" hint="Linked under the form (opens in a new tab). Empty for no link.">
            <input
              type="url"
              maxLength={FIELD_MAX.agent.url}
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
              maxLength={FIELD_MAX.email}
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
  );
}
