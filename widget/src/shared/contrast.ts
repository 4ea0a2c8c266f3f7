// Shared by the widget (its colours), the admin UI (its preview and the settings form's warnings)
// and the server (the warnings of an agent's save answer), so all three apply one rule.
// WCAG 2.1: relative luminance and contrast ratio (1.4.3 asks 4.5:1 for text).

/** What text needs against its background (WCAG 2.1 1.4.3, AA, normal-size text). */
export const TEXT_CONTRAST = 4.5;

/** The widget's two text colours on the owner's colours: near-black (its body text) and white. */
export const DARK_TEXT = '#111827';
export const LIGHT_TEXT = '#ffffff';

/** The backgrounds text sits on in each scheme: the window and the messages' bubbles (widget/src/styles.ts). */
export const SCHEME_BACKGROUNDS = {
  light: ['#ffffff', '#f3f4f6'],
  dark: ['#111827', '#1f2937'],
} as const;
export type Scheme = keyof typeof SCHEME_BACKGROUNDS;

type Rgb = [number, number, number];

/** `#rgb` or `#rrggbb` as 0-255 channels; null for anything else. */
export function parseHex(hex: string): Rgb | null {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(hex.trim());
  if (!m) return null;
  const v = m[1]!.length === 3 ? m[1]!.replace(/./g, (c) => c + c) : m[1]!;
  return [0, 2, 4].map((i) => parseInt(v.slice(i, i + 2), 16)) as Rgb;
}

function toHex(rgb: Rgb): string {
  return `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;
}

/** WCAG relative luminance, 0 (black) to 1 (white); an unreadable colour counts as black. */
export function luminance(hex: string): number {
  const rgb = parseHex(hex) ?? [0, 0, 0];
  const [r, g, b] = rgb.map((c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as Rgb;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio of two colours, 1 to 21, whichever is lighter. */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** The lowest contrast `color` has against any of `backgrounds`. */
function worstContrast(color: string, backgrounds: readonly string[]): number {
  return Math.min(...backgrounds.map((bg) => contrastRatio(color, bg)));
}

/** A ratio as people read it, rounded down (4.49 is never shown as 4.5): "2.53:1". */
export function formatRatio(ratio: number): string {
  return `${(Math.floor(ratio * 100) / 100).toFixed(2)}:1`;
}

/**
 * The text colour for `backgrounds` (one colour, or both ends of a gradient): of near-black and
 * white, whichever has the higher worst contrast; pure black when neither reaches 4.5:1 and black
 * does better (mid-tones near the 0.18 luminance crossover, where near-black falls short).
 */
export function textOn(...backgrounds: string[]): string {
  const valid = backgrounds.filter((bg) => parseHex(bg));
  if (!valid.length) return LIGHT_TEXT;
  const best = [LIGHT_TEXT, DARK_TEXT].reduce((a, b) => (worstContrast(b, valid) > worstContrast(a, valid) ? b : a));
  if (worstContrast(best, valid) >= TEXT_CONTRAST) return best;
  return worstContrast('#000000', valid) > worstContrast(best, valid) ? '#000000' : best;
}

/**
 * `color` moved toward black or white, away from `backgrounds` (all light or all dark), by the
 * smallest step that makes it reach `min` against each; unchanged when it already does.
 */
export function readableOn(color: string, backgrounds: readonly string[], min = TEXT_CONTRAST): string {
  const rgb = parseHex(color);
  if (!rgb) return color;
  const hex = toHex(rgb);
  if (worstContrast(hex, backgrounds) >= min) return hex;
  const lightBackgrounds = backgrounds.every((bg) => luminance(bg) > 0.18);
  const target = lightBackgrounds ? 0 : 255;
  for (let step = 1; step <= 100; step++) {
    const t = step / 100;
    const moved = toHex(rgb.map((c) => c + (target - c) * t) as Rgb);
    if (worstContrast(moved, backgrounds) >= min) return moved;
  }
  return lightBackgrounds ? '#000000' : '#ffffff';
}

export interface AgentColors {
  primary_color: string;
  secondary_color: string;
  accent_color: string;
}

/** The colours the widget paints with, all derived from the owner's three so that each reads at 4.5:1. */
export interface WidgetPalette {
  /** text and icons on the primary (launcher, visitor's bubbles, Send and the forms' buttons) */
  onPrimary: string;
  /** the header's gradient, primary to `headerEnd` (the secondary, moved when the title would not read on it) */
  headerEnd: string;
  /** the header's title, status and buttons, readable on both ends of its gradient */
  onHeader: string;
  /** the primary where it is text on the window (starter questions, action buttons), per scheme */
  primaryText: Record<Scheme, string>;
  /** links (answers, sources, privacy policy): the accent, per scheme */
  link: Record<Scheme, string>;
}

/** The widget's colours for an agent's three (docs/ACCESSIBILITY.md says what each becomes). */
export function widgetPalette(colors: AgentColors): WidgetPalette {
  const primary = colors.primary_color;
  let onHeader = textOn(primary, colors.secondary_color);
  let headerEnd = colors.secondary_color;
  if (worstContrast(onHeader, [primary, headerEnd]) < TEXT_CONTRAST) {
    // the primary's text colour stays; the secondary end moves away from it until the title reads there
    onHeader = textOn(primary);
    headerEnd = readableOn(colors.secondary_color, [onHeader]);
  }
  const perScheme = (color: string) => ({
    light: readableOn(color, SCHEME_BACKGROUNDS.light),
    dark: readableOn(color, SCHEME_BACKGROUNDS.dark),
  });
  return {
    onPrimary: textOn(primary),
    headerEnd,
    onHeader,
    primaryText: perScheme(primary),
    link: perScheme(colors.accent_color),
  };
}

export interface ColorWarning {
  field: 'primary_color' | 'secondary_color' | 'accent_color';
  message: string;
}

/** The schemes a widget theme shows: `auto` follows the visitor's system, so both. */
function schemesOf(theme: string): Scheme[] {
  return theme === 'light' ? ['light'] : theme === 'dark' ? ['dark'] : ['light', 'dark'];
}

/**
 * What the owner is told about their colours (the settings form, and `warnings` in the save
 * answer): each colour they chose (not one following the primary) that cannot be shown as chosen
 * at 4.5:1 where the widget uses it, and what the widget shows instead. Nothing is refused.
 */
export function colorWarnings(
  colors: AgentColors & { secondary_follows_primary?: boolean; accent_follows_primary?: boolean },
  theme: string,
): ColorWarning[] {
  if (![colors.primary_color, colors.secondary_color, colors.accent_color].every((c) => parseHex(c))) return [];
  const palette = widgetPalette(colors);
  const warnings: ColorWarning[] = [];
  const primary = colors.primary_color;
  // a colour that follows the primary was not chosen: the primary's own warning covers it
  if (!colors.secondary_follows_primary && palette.headerEnd !== toHex(parseHex(colors.secondary_color)!)) {
    const text = palette.onHeader === LIGHT_TEXT ? 'white' : 'dark';
    warnings.push({
      field: 'secondary_color',
      message:
        `No text colour reads at 4.5:1 on both ends of the header's gradient from ${primary} to ${colors.secondary_color} ` +
        `(${text} text is ${formatRatio(contrastRatio(palette.onHeader, colors.secondary_color))} on ${colors.secondary_color}). ` +
        `The widget ends the gradient on ${palette.headerEnd} instead, where its ${text} title reads at ` +
        `${formatRatio(contrastRatio(palette.onHeader, palette.headerEnd))}.`,
    });
  }
  const asText = (
    field: 'primary_color' | 'accent_color',
    color: string,
    use: string,
    shown: Record<Scheme, string>,
  ) => {
    for (const scheme of schemesOf(theme)) {
      const ratio = worstContrast(color, SCHEME_BACKGROUNDS[scheme]);
      if (ratio >= TEXT_CONTRAST) continue;
      warnings.push({
        field,
        message:
          `${color} is ${formatRatio(ratio)} as ${use} on the ${scheme} scheme's background, under the 4.5:1 text needs. ` +
          `The widget shows it there as ${shown[scheme]} (${formatRatio(worstContrast(shown[scheme], SCHEME_BACKGROUNDS[scheme]))}).`,
      });
    }
  };
  asText('primary_color', primary, 'the text of the starter questions and action buttons', palette.primaryText);
  if (!colors.accent_follows_primary) asText('accent_color', colors.accent_color, 'link text', palette.link);
  return warnings;
}
