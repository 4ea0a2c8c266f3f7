import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { href } from '../../router.js';
import type { AgentAction, AgentActionWithSecret } from '../../types.js';
import { Field, Notice, inputValue, useSubmit } from '../../ui.js';
import { WholeNumberInput } from '../settings/inputs.js';
import {
  type ActionDraft,
  bodyOf,
  draftOf,
  KINDS,
  LIMITS,
  namesVisitor,
  newParameter,
  type ParameterDraft,
} from './model.js';

/**
 * Adds an action (`action` absent) or changes one. The kind is chosen first and then fixed (the
 * server keeps an action's kind); the server checks the rest and its 400 is shown above the buttons.
 */
export function ActionForm({
  agentId,
  action,
  onCreated,
  onSaved,
  onCancel,
}: {
  agentId: string;
  action?: AgentAction;
  onCreated?: (created: AgentActionWithSecret) => Promise<void>;
  onSaved?: (saved: AgentAction) => Promise<void>;
  onCancel: () => void;
}) {
  const [d, setDraft] = useState<ActionDraft>(() => draftOf(action));
  const set = <K extends keyof ActionDraft>(key: K, value: ActionDraft[K]) => setDraft((s) => ({ ...s, [key]: value }));
  const base = `/api/chatbots/${encodeURIComponent(agentId)}/actions` as const;
  const { busy, error, submit } = useSubmit(async () => {
    const body = bodyOf(d);
    if (action) {
      const { type: _kept, ...patch } = body;
      await onSaved?.(await api<AgentAction>('PUT', `${base}/${encodeURIComponent(action.id)}`, patch));
    } else await onCreated?.(await api<AgentActionWithSecret>('POST', base, body));
  });
  const title = action ? `Edit action ${action.name}` : 'Add action';
  return (
    <form class="stack action-form" onSubmit={submit} aria-label={title}>
      <fieldset class="stack">
        <legend class="field-label">Kind</legend>
        {KINDS.map((k) => (
          <label class="toggle" key={k.type}>
            <input
              type="radio"
              name={`action-kind-${action?.id ?? 'new'}`}
              value={k.type}
              checked={d.type === k.type}
              disabled={!!action && action.type !== k.type}
              onChange={() => set('type', k.type)}
            />
            <span>
              {k.label}
              <span class="field-hint block">{k.what}</span>
            </span>
          </label>
        ))}
        {action && (
          <span class="field-hint">An action keeps its kind: for another, delete this one and add a new one.</span>
        )}
      </fieldset>
      <div class="grid-2">
        <Field label="Name" hint="What the agent calls it by: lower-case letters, digits and _, e.g. order_status">
          <input
            required
            maxLength={LIMITS.name}
            pattern="[a-z][a-z0-9_]*"
            autoCapitalize="off"
            spellcheck={false}
            value={d.name}
            onInput={(e) => set('name', inputValue(e))}
            placeholder={d.type === 'booking' ? 'book_call' : d.type === 'do' ? 'cancel_order' : 'order_status'}
          />
        </Field>
        <Field
          label="Description"
          hint="What it does and when to use it, in a sentence: the agent reads it to decide, the visitor sees it on the button."
        >
          <textarea
            rows={2}
            required
            maxLength={LIMITS.description}
            value={d.description}
            onInput={(e) => set('description', inputValue(e))}
          />
        </Field>
      </div>
      {d.type === 'booking' ? <BookingFields d={d} set={set} agentId={agentId} /> : <EndpointFields d={d} set={set} />}
      {/* beside the buttons: a long form's top is out of sight when Save is pressed */}
      {error && <Notice kind="error">{error}</Notice>}
      <div class="actions">
        <button type="button" class="btn" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
        <button type="submit" class="btn btn-primary" disabled={busy}>
          {busy ? 'Saving…' : action ? 'Save action' : 'Add action'}
        </button>
      </div>
    </form>
  );
}

type SetField = <K extends keyof ActionDraft>(key: K, value: ActionDraft[K]) => void;

/** A look-up's or a do's endpoint: the URL template, its parameters, the answer's fields, who may run it. */
function EndpointFields({ d, set }: { d: ActionDraft; set: SetField }) {
  const visitor = namesVisitor(d.url);
  return (
    <>
      <Field
        label="URL template"
        hint={
          <>
            Your endpoint. Put <code>{'{parameter}'}</code> where a parameter's value goes (in the path or the query,
            not in the host), and <code>{'{{user.id}}'}</code>, <code>{'{{user.name}}'}</code> or{' '}
            <code>{'{{user.email}}'}</code> for a verified visitor's details.{' '}
            {d.type === 'lookup'
              ? 'A look-up is a GET: every parameter must be in the URL.'
              : 'A do is a POST with the inputs as JSON.'}
          </>
        }
      >
        <input
          type="text"
          inputMode="url"
          required
          maxLength={LIMITS.url}
          autoCapitalize="off"
          spellcheck={false}
          value={d.url}
          onInput={(e) => set('url', inputValue(e))}
          placeholder="https://shop.example.com/api/orders/{order_id}"
        />
      </Field>
      <ParameterRows rows={d.parameters} onChange={(rows) => set('parameters', rows)} />
      <Field
        label="Response fields"
        hint="The fields of your endpoint's JSON answer the agent may read and tell the visitor, one per line: a name or a dotted path such as order.status. Nothing else of the answer reaches the agent."
      >
        <textarea
          rows={3}
          autoCapitalize="off"
          spellcheck={false}
          value={d.responseFields}
          onInput={(e) => set('responseFields', inputValue(e))}
          placeholder={'status\ndelivery.expected_date'}
        />
      </Field>
      <label class="toggle">
        <input
          type="checkbox"
          checked={d.requiresVerified || visitor}
          disabled={visitor}
          onChange={(e) => set('requiresVerified', e.currentTarget.checked)}
        />
        <span>
          Only for verified visitors
          <span class="field-hint block">
            {visitor
              ? 'Always, as the URL names the visitor: only a visitor your site signed in can run it.'
              : 'Only a visitor your site signed in (a verified visitor) can run it; others are told it is not available.'}
          </span>
        </span>
      </label>
    </>
  );
}

/** A booking's calendar: its feed, the length of a slot, how far ahead. */
function BookingFields({ d, set, agentId }: { d: ActionDraft; set: SetField; agentId: string }) {
  return (
    <>
      <Field
        label="Calendar feed URL"
        hint="The iCalendar (.ics) address of your calendar; your busy times in it are never offered. Most calendars have a secret address in iCal format in their sharing settings."
      >
        <input
          type="url"
          required
          maxLength={LIMITS.url}
          value={d.calendarUrl}
          onInput={(e) => set('calendarUrl', inputValue(e))}
          placeholder="https://calendar.example.com/private/basic.ics"
        />
      </Field>
      <div class="grid-2">
        <Field label="Slot length (minutes)" hint="5 to 480">
          <WholeNumberInput
            value={d.slotMinutes}
            min={LIMITS.slotMinutes.min}
            max={LIMITS.slotMinutes.max}
            required
            onChange={(v) => set('slotMinutes', v)}
          />
        </Field>
        <Field label="Days ahead" hint="How far ahead slots are offered: 1 to 90">
          <WholeNumberInput
            value={d.daysAhead}
            min={LIMITS.daysAhead.min}
            max={LIMITS.daysAhead.max}
            required
            onChange={(v) => set('daysAhead', v)}
          />
        </Field>
      </div>
      <p class="field-hint">
        Slots are offered only within the agent's <a href={href('agents', agentId, 'settings')}>office hours</a>{' '}
        (Settings); without office hours, Monday to Friday 9:00 to 17:00 UTC.
      </p>
    </>
  );
}

/** The parameters the agent fills in (or the visitor, on the button's form): a row each. */
function ParameterRows({ rows, onChange }: { rows: ParameterDraft[]; onChange: (rows: ParameterDraft[]) => void }) {
  const change = (key: number, patch: Partial<ParameterDraft>) =>
    onChange(rows.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  return (
    <fieldset class="stack">
      <legend class="field-label">Parameters</legend>
      <span class="field-hint">
        What the agent asks the visitor for and fills in: a name (letters, digits and _) and what it is, for the agent.
      </span>
      {rows.length === 0 && <span class="muted small">No parameters.</span>}
      {rows.map((r, i) => (
        <div class="param-row" key={r.key} role="group" aria-label={`Parameter ${i + 1}`}>
          <input
            aria-label={`Parameter ${i + 1} name`}
            required
            maxLength={LIMITS.parameterName}
            pattern="[a-zA-Z_][a-zA-Z0-9_]*"
            autoCapitalize="off"
            spellcheck={false}
            value={r.name}
            placeholder="order_id"
            onInput={(e) => change(r.key, { name: inputValue(e) })}
          />
          <input
            aria-label={`Parameter ${i + 1} description`}
            required
            maxLength={LIMITS.parameterDescription}
            value={r.description}
            placeholder="The order number, e.g. 10234"
            onInput={(e) => change(r.key, { description: inputValue(e) })}
          />
          <label class="check small">
            <input
              type="checkbox"
              checked={r.required}
              onChange={(e) => change(r.key, { required: e.currentTarget.checked })}
            />{' '}
            Required
          </label>
          <button
            type="button"
            class="btn btn-small btn-danger-text"
            aria-label={`Remove parameter ${i + 1}`}
            onClick={() => onChange(rows.filter((x) => x.key !== r.key))}
          >
            Remove
          </button>
        </div>
      ))}
      {rows.length < LIMITS.parameters && (
        <div>
          <button type="button" class="btn btn-small" onClick={() => onChange([...rows, newParameter()])}>
            Add parameter
          </button>
        </div>
      )}
    </fieldset>
  );
}
