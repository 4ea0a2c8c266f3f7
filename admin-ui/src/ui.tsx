import type { ComponentChildren, JSX } from 'preact';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.js';
import { FIELD_MAX } from './field-limits.js';
import { errorText } from './submit.js';

export { errorText, FormError, useBusy, useSubmit } from './submit.js';

// Every piece of API text is rendered as a text node by Preact (never as HTML): agent names,
// transcripts and lead notes come from visitors.

export interface AsyncState<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  reload: () => Promise<void>;
  setData: (v: T) => void;
  /** counts finished loads (success or failure), so an effect can follow every answer */
  settled: number;
}

/** Loads with `fn` when `deps` change; a stale answer (deps changed meanwhile) is dropped. */
export function useAsync<T>(fn: () => Promise<T>, deps: unknown[]): AsyncState<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [settled, setSettled] = useState(0);
  const generation = useRef(0);
  // What had keyboard focus when a load began. A button that is `disabled` while it loads (a
  // Refresh) loses focus to <body> in Chromium, and a keyboard user is thrown back to the top of
  // the page; once the load is over and the button is enabled again, focus goes back to it. Only
  // when focus is on <body> by then: anything the user focused meanwhile keeps it.
  const focusAtStart = useRef<Element | null>(null);
  const run = useCallback(async () => {
    const mine = ++generation.current;
    focusAtStart.current = document.activeElement;
    setLoading(true);
    try {
      const v = await fn();
      if (mine !== generation.current) return;
      setData(v);
      setError(null);
    } catch (err) {
      if (mine !== generation.current) return;
      if (err instanceof ApiError && err.status === 401) return; // on its way to the login page
      setError(errorText(err));
    } finally {
      if (mine === generation.current) {
        setLoading(false);
        setSettled((n) => n + 1);
      }
    }
  }, deps);
  useEffect(() => {
    void run();
    return () => {
      generation.current++; // the page was left: ignore what arrives now
    };
  }, [run]);
  useLayoutEffect(() => {
    if (loading) return;
    const el = focusAtStart.current;
    focusAtStart.current = null;
    if (!(el instanceof HTMLElement) || el === document.body || !el.isConnected) return;
    const now = document.activeElement;
    if (now !== null && now !== document.body) return;
    if ((el as HTMLButtonElement).disabled) return;
    el.focus({ preventScroll: true });
  }, [loading, settled]);
  return { data, error, loading, reload: run, setData, settled };
}

type NoticeKind = 'error' | 'info' | 'success' | 'warning';

export function Notice({ kind = 'info', children }: { kind?: NoticeKind; children: ComponentChildren }) {
  return (
    <div class={`notice notice-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p class="loading" aria-live="polite">
      {label}
    </p>
  );
}

// --- toasts -------------------------------------------------------------------------------------

interface Toast {
  id: number;
  text: string;
  kind: NoticeKind;
}
let toastListener: ((t: Toast[]) => void) | null = null;
let toasts: Toast[] = [];
let toastSeq = 0;

/** A short message in the corner (saved, copied, failed). */
export function toast(text: string, kind: NoticeKind = 'success'): void {
  const t = { id: ++toastSeq, text, kind };
  toasts = [...toasts.slice(-3), t];
  toastListener?.(toasts);
  setTimeout(
    () => {
      toasts = toasts.filter((x) => x.id !== t.id);
      toastListener?.(toasts);
    },
    kind === 'error' ? 7000 : 3500,
  );
}

export function Toasts() {
  const [list, setList] = useState<Toast[]>(toasts);
  useEffect(() => {
    toastListener = setList;
    return () => {
      toastListener = null;
    };
  }, []);
  return (
    <div class="toasts" aria-live="polite">
      {list.map((t) => (
        <div key={t.id} class={`toast toast-${t.kind}`} role={t.kind === 'error' ? 'alert' : 'status'}>
          {t.text}
        </div>
      ))}
    </div>
  );
}

// --- dialogs ------------------------------------------------------------------------------------

/** A modal asking to confirm something irreversible. */
export function ConfirmDialog(props: {
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  /** "Cancel" unless given */
  cancelLabel?: string;
  onConfirm: () => Promise<void> | void;
  onCancel: () => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    cancelRef.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') props.onCancel();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await props.onConfirm();
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };
  return (
    <div class="overlay">
      <div class="dialog" role="dialog" aria-modal="true" aria-labelledby="dialog-title">
        <h2 id="dialog-title">{props.title}</h2>
        <div class="dialog-body">{props.children}</div>
        {error && <Notice kind="error">{error}</Notice>}
        <div class="actions">
          <button type="button" class="btn" ref={cancelRef} onClick={props.onCancel} disabled={busy}>
            {props.cancelLabel ?? 'Cancel'}
          </button>
          <button type="button" class="btn btn-danger" onClick={confirm} disabled={busy}>
            {busy ? 'Working…' : props.confirmLabel}
          </button>
        </div>
      </div>
    </div>
  );
}

// --- small pieces -------------------------------------------------------------------------------

/** Copies text; navigator.clipboard needs a secure context, so plain-http LAN installs fall back. */
async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    /* fall through to the selection fallback */
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'offscreen';
  document.body.appendChild(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      class="btn btn-small"
      onClick={async () => {
        const ok = await copyText(text);
        if (ok) {
          setCopied(true);
          setTimeout(() => setCopied(false), 2000);
        } else toast('Copy failed: select the text and copy it by hand.', 'error');
      }}
    >
      {copied ? 'Copied' : label}
    </button>
  );
}

/**
 * Reloads a list. Never `disabled` while the reload runs (a disabled button drops keyboard focus
 * to <body>): it is marked aria-disabled instead, and ignores presses until it is done,
 * so focus stays on it and Enter works again right after.
 */
export function RefreshButton({
  onRefresh,
  busy,
  label = 'Refresh',
}: {
  onRefresh: () => unknown;
  busy: boolean;
  label?: string;
}) {
  return (
    <button
      type="button"
      class="btn btn-small"
      aria-disabled={busy ? 'true' : undefined}
      onClick={() => {
        if (!busy) void onRefresh();
      }}
    >
      {label}
    </button>
  );
}

export function ProgressBar({ value, label }: { value: number; label: string }) {
  const pct = Math.round(Math.max(0, Math.min(1, value)) * 100);
  return (
    <div
      class="progress"
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={pct}
    >
      <div class="progress-fill" style={{ width: `${pct}%` }} />
    </div>
  );
}

export function Field(props: { label: string; hint?: ComponentChildren; children: ComponentChildren; wide?: boolean }) {
  return (
    <label class={props.wide ? 'field field-wide' : 'field'}>
      <span class="field-label">{props.label}</span>
      {props.children}
      {props.hint && <span class="field-hint">{props.hint}</span>}
    </label>
  );
}

/** A form's primary submit button; while `busy` it is disabled and says `busyLabel`. */
export function SubmitButton(props: { busy: boolean; label: string; busyLabel: string }) {
  return (
    <button type="submit" class="btn btn-primary" disabled={props.busy}>
      {props.busy ? props.busyLabel : props.label}
    </button>
  );
}

/** The length the server accepts for a new password. */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = FIELD_MAX.password;
/** What the server asks of a new password (docs/API.md "Fields and formats"). */
export const PASSWORD_HINT = '8 to 128 characters, not a commonly used password';

/** A new password and its repetition (reset link, Account page); the form compares the two. */
export function NewPasswordFields(props: {
  password: string;
  repeat: string;
  setPassword: (v: string) => void;
  setRepeat: (v: string) => void;
}) {
  return (
    <>
      <Field label="New password" hint={PASSWORD_HINT}>
        <input
          type="password"
          name="new-password"
          autocomplete="new-password"
          required
          minLength={PASSWORD_MIN}
          maxLength={PASSWORD_MAX}
          value={props.password}
          onInput={(e) => props.setPassword(inputValue(e))}
        />
      </Field>
      <Field label="Repeat the new password">
        <input
          type="password"
          name="repeat-password"
          autocomplete="new-password"
          required
          minLength={PASSWORD_MIN}
          maxLength={PASSWORD_MAX}
          value={props.repeat}
          onInput={(e) => props.setRepeat(inputValue(e))}
        />
      </Field>
    </>
  );
}

export function Badge({ kind, children }: { kind: string; children: ComponentChildren }) {
  return <span class={`badge badge-${kind}`}>{children}</span>;
}

export function EmptyState({ children }: { children: ComponentChildren }) {
  return <div class="empty">{children}</div>;
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });
}

export function formatBytes(n: number | null): string {
  if (n === null) return '';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export type InputEvent = JSX.TargetedEvent<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement, Event>;
/** The value of an input/select/textarea change event. */
export const inputValue = (e: InputEvent) => e.currentTarget.value;
