import { useState } from 'preact/hooks';
import { type ApiPath, api } from '../../api.js';
import type { SettingView } from '../../types.js';
import { Badge, Notice, errorText, formatDate, toast } from '../../ui.js';

/** The state of one setting as a badge. */
export function StateBadge({ view }: { view: SettingView }) {
  if (view.source === 'environment') return <Badge kind="info">From the environment</Badge>;
  if (view.stored === 'unreadable') return <Badge kind="bad">Stored, but unreadable</Badge>;
  if (view.source === 'database') return <Badge kind="ok">Saved here</Badge>;
  return <Badge kind="off">Not set</Badge>;
}

/** The state of one setting in words: where it comes from, and what to do. */
export function StateText({ view, what }: { view: SettingView; what: string }) {
  if (view.source === 'environment') {
    return (
      <p class="small" data-state="environment">
        Set by <code>{view.env_variable}</code> on the server; change it there. The environment wins over anything saved
        here.
        {view.stored !== 'none' && ' A value saved here is kept, unused.'}
      </p>
    );
  }
  if (view.stored === 'unreadable') {
    return (
      <Notice kind="warning">
        Stored, but unreadable: the server cannot decrypt the saved {what} (its settings-key file was lost or replaced).
        Enter it again.
      </Notice>
    );
  }
  if (view.source === 'database') {
    return (
      <p class="small muted" data-state="database">
        Saved here, stored encrypted on the server{view.updated_at ? ` (${formatDate(view.updated_at)})` : ''}.
      </p>
    );
  }
  return (
    <p class="small muted" data-state="none">
      Not set: save one here, or set <code>{view.env_variable}</code> on the server.
    </p>
  );
}

/** The answer of a test call, shown under the card's buttons. */
type Outcome = { kind: 'success' | 'error'; text: string } | null;

export function useAction(onDone: () => Promise<void>) {
  const [busy, setBusy] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome>(null);
  /** a change (save, remove) is told by a toast and reloads the settings; a test's answer stays on the card */
  const run = async (label: string, fn: () => Promise<string>, change = false) => {
    setBusy(label);
    setOutcome(null);
    try {
      const text = await fn();
      if (change) {
        toast(text);
        await onDone();
      } else setOutcome({ kind: 'success', text });
    } catch (err) {
      setOutcome({ kind: 'error', text: errorText(err) });
    } finally {
      setBusy(null);
    }
  };
  return { busy, outcome, run };
}

/** Deletes a stored setting and says what went. */
export async function removeStored(path: ApiPath<'DELETE'>, done: string): Promise<string> {
  await api('DELETE', path);
  return done;
}

/** Removes what the database holds for a card (the environment's value is never touched). */
export function RemoveButton({ disabled, onRemove }: { disabled: boolean; onRemove: () => unknown }) {
  return (
    <button type="button" class="btn btn-danger-text" disabled={disabled} onClick={() => void onRemove()}>
      Remove
    </button>
  );
}
