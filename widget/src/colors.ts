import { widgetPalette, type AgentColors } from './shared/contrast.js';

/**
 * The owner's colours on the widget's root, as custom properties (CSSOM setProperty: an invalid
 * value is dropped by the parser, it can never inject rules), with what reads on them: text on
 * the primary and on the header's gradient, and the primary and the accent where they are text,
 * per scheme, each made to reach 4.5:1 (shared/contrast.ts; styles.ts picks the scheme's).
 */
export function applyColors(root: HTMLElement, colors: AgentColors): void {
  const palette = widgetPalette(colors);
  const set = (name: string, value: string) => root.style.setProperty(name, value);
  set('--primary', colors.primary_color);
  set('--secondary', palette.headerEnd);
  set('--accent', colors.accent_color);
  set('--on-primary', palette.onPrimary);
  set('--on-header', palette.onHeader);
  set('--primary-text-light', palette.primaryText.light);
  set('--primary-text-dark', palette.primaryText.dark);
  set('--link-light', palette.link.light);
  set('--link-dark', palette.link.dark);
}
