import { useState } from 'preact/hooks';
import { ApiError } from './api.js';

/** A form's own refusal (two passwords that differ), worded for the owner: shown as it is. */
export class FormError extends Error {}

export function errorText(err: unknown): string {
  if (err instanceof ApiError || err instanceof FormError) return err.message;
  return 'Something went wrong. Please try again.';
}

/**
 * A form's submit: `busy` while `action` runs, and the error's text when it fails (the form shows
 * it); the browser's own submit is prevented. With `keepBusy` the form stays busy after a success:
 * the page moves on (logged in, agent created) and a second click must not send it again.
 */
export function useSubmit(
  action: () => Promise<void>,
  options: { keepBusy?: boolean } = {},
): {
  busy: boolean;
  error: string | null;
  submit: (e?: Event) => Promise<void>;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e?: Event) => {
    e?.preventDefault();
    setBusy(true);
    setError(null);
    let done = false;
    try {
      await action();
      done = true;
    } catch (err) {
      setError(errorText(err));
    }
    if (!done || !options.keepBusy) setBusy(false);
  };
  return { busy, error, submit };
}

/**
 * A button's action outside a form (a lead's status, an export, a plan change): `busy` while one
 * runs, and a failure's text handed to `onFailure` (the pages toast it).
 */
export function useBusy(onFailure: (text: string) => void): {
  busy: boolean;
  run: (action: () => Promise<unknown>) => Promise<void>;
} {
  const [busy, setBusy] = useState(false);
  const run = async (action: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await action();
    } catch (err) {
      onFailure(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return { busy, run };
}
