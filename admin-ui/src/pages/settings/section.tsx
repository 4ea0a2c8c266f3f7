import type { ComponentChildren } from 'preact';
import { api } from '../../api.js';
import { Notice, toast, useSubmit } from '../../ui.js';
import {
  type AgentSettings,
  type SectionProps,
  changedFields,
  type Draft,
  pick,
  SECTIONS,
  type SectionId,
  type Setter,
  same,
} from './model.js';

/**
 * One section of the settings: its own draft of some of the agent's fields and its own Save,
 * which sends only the fields that changed (PUT changes only what it is sent).
 */
export function Section(
  props: SectionProps & {
    id: SectionId;
    description?: ComponentChildren;
    children: (draft: Draft, set: Setter) => ComponentChildren;
    aside?: (draft: Draft) => ComponentChildren;
  },
) {
  const { title, keys } = SECTIONS[props.id];
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

  const { busy, error, submit } = useSubmit(async () => {
    if (!dirty) return;
    const updated = await api<AgentSettings>('PUT', `/api/chatbots/${encodeURIComponent(props.agent.id)}`, changed);
    props.onSaved(updated);
    // the saved fields now show the server's values (trimmed names, hosts); anything typed
    // while the request was out stays a change
    update((d) => {
      const next = { ...d };
      for (const k of Object.keys(changed) as Array<keyof AgentSettings>) if (same(next[k], changed[k])) delete next[k];
      return next;
    });
    toast(`${title} saved`);
  });

  const id = `section-${title.toLowerCase().replace(/[^a-z]+/g, '-')}`;
  return (
    <form class="card section" onSubmit={submit} method="post" aria-labelledby={id}>
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
