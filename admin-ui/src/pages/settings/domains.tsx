import { api } from '../../api.js';
import type { Agent } from '../../types.js';
import { Field, Notice, inputValue, toast, useSubmit } from '../../ui.js';
import { domainList, type SectionProps, same } from './model.js';

/** A text box of host patterns, one per line (its draft is the text: a list cannot be edited line by line). */
export function AllowedDomains({ agent, onSaved, drafts, updateDrafts }: SectionProps) {
  const text = drafts.domains ?? agent.allowed_domains.join('\n');
  const setText = (v: string) => updateDrafts((all) => ({ ...all, domains: v }));
  const list = domainList(text);
  const dirty = !same(list, agent.allowed_domains);
  const { busy, error, submit } = useSubmit(async () => {
    const updated = await api<Agent>('PUT', `/api/chatbots/${encodeURIComponent(agent.id)}`, {
      allowed_domains: list,
    });
    onSaved(updated);
    // the box shows what was stored (hosts, not pasted addresses), unless it was edited meanwhile
    updateDrafts((all) => (all.domains === text ? { ...all, domains: undefined } : all));
    toast('Allowed domains saved');
  });
  return (
    <form class="card section" onSubmit={submit} method="post" aria-labelledby="section-domains">
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
