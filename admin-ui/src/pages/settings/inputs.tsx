import { followingColor } from '../../preview.js';
import { inputValue } from '../../ui.js';

export function Toggle({
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
 * The secondary or accent colour: it follows the primary until the owner sets it (docs/API-NOTES.md
 * "Agents"); while it follows, the box shows the colour it takes and cannot be edited.
 */
export function FollowingColorField(props: {
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

export function ColorField({
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

/**
 * A whole-number field: what is typed, truncated (the server's 400 says when it is out of range).
 * With `emptyIsNone` an emptied box means "none" (null); otherwise it is sent as 0, as typed.
 */
export function WholeNumberInput(
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
export function LinesInput({
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
