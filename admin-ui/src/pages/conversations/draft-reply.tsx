import { useEffect, useRef, useState } from 'preact/hooks';
import { api, get } from '../../api.js';
import type { Agent, DraftReply, SystemStatus } from '../../types.js';
import { errorText } from '../../ui.js';

/**
 * A drafted reply (docs/API-NOTES.md "Drafted reply") for the reply box of a taken conversation:
 * asked for when the box opens empty and the agent's provider has a key, filled in unless the
 * teammate began typing meanwhile, and asked for with the button (replacing the box's text; without
 * a key the server quotes the knowledge base, or says a key is needed). Nothing reaches the visitor
 * until the teammate sends it.
 */
export interface DraftState {
  busy: boolean;
  /** the draft last filled in (null: none, or the box was sent or cleared) */
  suggested: DraftReply | null;
  /** why no draft came (no provider key and nothing in the knowledge, a provider failure) */
  error: string | null;
  again: () => void;
  /** the box's text was sent: the suggestion is gone */
  sent: () => void;
}

export function useDraftReply(
  agent: Pick<Agent, 'id' | 'provider'>,
  conversationId: string,
  text: string,
  setText: (text: string) => void,
): DraftState {
  const [busy, setBusy] = useState(false);
  const [suggested, setSuggested] = useState<DraftReply | null>(null);
  const [error, setError] = useState<string | null>(null);
  // the latest request and box text, read when an answer comes back
  const request = useRef(0);
  const current = useRef(text);
  current.current = text;

  const fetchDraft = async (replace: boolean) => {
    const id = ++request.current;
    setBusy(true);
    setError(null);
    try {
      const draft = await api<DraftReply>(
        'POST',
        `/api/chat/conversations/${encodeURIComponent(agent.id)}/${encodeURIComponent(conversationId)}/draft-reply`,
      );
      if (id !== request.current) return;
      // the teammate's own words are never overwritten unless they asked for another draft
      if (!replace && current.current.trim()) return;
      setText(draft.draft);
      setSuggested(draft);
    } catch (err) {
      if (id === request.current) setError(errorText(err));
    } finally {
      if (id === request.current) setBusy(false);
    }
  };

  useEffect(() => {
    setSuggested(null);
    setError(null);
    const id = request.current;
    // asked for by itself only with a model to write it: the answer quoted without one is asked for by the button
    get<SystemStatus>('/api/system/status')
      .then((status) => {
        if (id === request.current && status.providers[agent.provider] && !current.current.trim())
          void fetchDraft(false);
      })
      .catch(() => {
        /* no status: the button still asks */
      });
    return () => {
      request.current++; // another conversation: an answer still on its way is dropped
      setBusy(false);
    };
  }, [agent.id, agent.provider, conversationId]);

  return {
    busy,
    suggested: suggested && text.trim() ? suggested : null,
    error,
    again: () => void fetchDraft(true),
    sent: () => setSuggested(null),
  };
}

/** Under the reply box: the draft's mark, where it comes from, and the button to get another. */
export function DraftNote({ state }: { state: DraftState }) {
  const { busy, suggested, error } = state;
  const sources = suggested?.sources.map((s) => s.title || s.name) ?? [];
  return (
    <div class="draft-note small" aria-live="polite">
      {busy && <span class="muted">Drafting a suggested reply…</span>}
      {!busy && suggested && (
        <span>
          <strong>Suggested reply — edit before sending.</strong>
          {sources.length > 0 && <span class="muted"> From: {sources.join(', ')}.</span>}
        </span>
      )}
      {!busy && error && <span class="muted">No suggested reply: {error}</span>}
      <button type="button" class="btn btn-small" disabled={busy} onClick={state.again}>
        {suggested ? 'Suggest another reply' : 'Suggest a reply'}
      </button>
    </div>
  );
}
