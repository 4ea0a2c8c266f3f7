import { colorWarnings } from '../../../../widget/src/shared/contrast.js';
import { followingColor } from '../../preview.js';
import { Notice } from '../../ui.js';
import type { Draft } from './model.js';

const FIELD_LABELS = {
  primary_color: 'Primary color',
  secondary_color: 'Secondary color',
  accent_color: 'Accent color',
} as const;

/**
 * The colours being edited that the widget cannot show as chosen at 4.5:1, and what it shows
 * instead, before they are saved: the rule the widget applies and the save answer's `warnings`
 * report (widget/src/shared/contrast.ts). A warning, never a refusal: the owner may keep them.
 */
export function ColorWarnings({ draft }: { draft: Draft }) {
  const primary = draft.primary_color ?? '';
  const warnings = colorWarnings(
    {
      primary_color: primary,
      secondary_color: draft.secondary_follows_primary ? followingColor(primary) : (draft.secondary_color ?? ''),
      accent_color: draft.accent_follows_primary ? followingColor(primary) : (draft.accent_color ?? ''),
      secondary_follows_primary: !!draft.secondary_follows_primary,
      accent_follows_primary: !!draft.accent_follows_primary,
    },
    draft.widget_theme ?? 'auto',
  );
  if (!warnings.length) return null;
  return (
    <Notice kind="warning">
      <div data-testid="color-warnings">
        <p>
          <strong>Some colours cannot be shown as chosen.</strong> Text needs a contrast of 4.5:1 to be readable by
          everyone (WCAG 2.1 AA); the widget adjusts these where they are text. You can keep them, or pick others.
        </p>
        <ul>
          {warnings.map((w) => (
            <li key={w.field + w.message}>
              {FIELD_LABELS[w.field]}: {w.message}
            </li>
          ))}
        </ul>
      </div>
    </Notice>
  );
}
