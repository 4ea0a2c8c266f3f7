import { type ColorWarning, colorWarnings } from '../../../widget/src/shared/contrast.js';
import type { UpdateAgentInput } from './schemas.js';
import type { ChatbotRow } from './tables.js';

/** An agent's widget colours: the secondary and accent follow the primary until the owner sets them. */

/** A new agent's primary colour, whose secondary and accent are pink until set (the spec's defaults). */
export const DEFAULT_PRIMARY = '#7c3aed';
const DEFAULT_PINK = '#ec4899';

/**
 * The colour a secondary or accent colour the owner never set takes (docs/API-NOTES.md "Agents"): the
 * primary itself, so that setting only the primary gives a header and focus rings of that colour;
 * the default purple keeps its default pink.
 */
export function followingColor(primary: string): string {
  return primary.toLowerCase() === DEFAULT_PRIMARY ? DEFAULT_PINK : primary;
}

/**
 * The secondary and accent colours and whether they follow the primary, after `input`:
 * `*_follows_primary` when sent decides; else a null colour makes it follow again, and a colour
 * sets it, unless it is the very colour it shows while following (a settings form sent back whole:
 * changing only the primary moves it along); unsent, it keeps following or stays as set. A
 * following colour is rewritten from `primary`.
 */
export function followingColors(
  primary: string,
  input: Pick<
    UpdateAgentInput,
    'secondary_color' | 'accent_color' | 'secondary_follows_primary' | 'accent_follows_primary'
  >,
  current?: ChatbotRow,
): Pick<ChatbotRow, 'secondary_color' | 'secondary_follows_primary' | 'accent_color' | 'accent_follows_primary'> {
  const resolve = (
    sent: string | null | undefined,
    follows: boolean | undefined,
    following: boolean,
    shown: string | undefined,
  ) => {
    if (follows !== undefined) following = follows;
    else if (sent === null) following = true;
    else if (sent !== undefined && !(following && sent.toLowerCase() === shown?.toLowerCase())) following = false;
    return { following, color: following ? followingColor(primary) : (sent ?? shown ?? followingColor(primary)) };
  };
  const secondary = resolve(
    input.secondary_color,
    input.secondary_follows_primary,
    current?.secondary_follows_primary ?? true,
    current?.secondary_color,
  );
  const accent = resolve(
    input.accent_color,
    input.accent_follows_primary,
    current?.accent_follows_primary ?? true,
    current?.accent_color,
  );
  return {
    secondary_color: secondary.color,
    secondary_follows_primary: secondary.following,
    accent_color: accent.color,
    accent_follows_primary: accent.following,
  };
}

/** What decides how the widget's colours read: a save that sends one of these is told (`warnings`). */
const COLOR_INPUTS = [
  'primary_color',
  'secondary_color',
  'accent_color',
  'secondary_follows_primary',
  'accent_follows_primary',
  'widget_theme',
] as const;

/**
 * For the save answer's `warnings`: when the save sent a colour or the theme, the saved agent's
 * colours the widget cannot show as chosen at 4.5:1 (the rule the widget itself applies,
 * widget/src/shared/contrast.ts; [] when all read); undefined when it sent none.
 */
export function saveColorWarnings(
  saved: ChatbotRow,
  body: Partial<Record<(typeof COLOR_INPUTS)[number], unknown>>,
): ColorWarning[] | undefined {
  return COLOR_INPUTS.some((k) => body[k] !== undefined) ? colorWarnings(saved, saved.widget_theme) : undefined;
}
