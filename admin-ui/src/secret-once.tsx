import type { ComponentChildren } from 'preact';
import { CopyButton, Notice } from './ui.js';

/** A signing secret shown once (webhooks, actions): what it is for, the secret to copy, Done. */
export function SecretOnce({
  secret,
  onDone,
  children,
}: {
  secret: string;
  onDone: () => void;
  children: ComponentChildren;
}) {
  return (
    <Notice kind="warning">
      <div class="stack">
        <span>{children}</span>
        <div class="copy-row">
          <input
            type="text"
            readOnly
            value={secret}
            aria-label="Signing secret"
            onFocus={(e) => e.currentTarget.select()}
          />
          <CopyButton text={secret} label="Copy secret" />
          <button type="button" class="btn btn-small" onClick={onDone}>
            Done
          </button>
        </div>
      </div>
    </Notice>
  );
}
