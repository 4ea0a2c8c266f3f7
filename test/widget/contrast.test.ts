import { describe, expect, it } from 'vitest';
import {
  colorWarnings,
  contrastRatio,
  DARK_TEXT,
  formatRatio,
  LIGHT_TEXT,
  luminance,
  readableOn,
  SCHEME_BACKGROUNDS,
  textOn,
  widgetPalette,
} from '../../widget/src/shared/contrast.js';

/**
 * The contrast rule the widget, the admin UI and the server share (widget/src/shared/contrast.ts),
 * on pairs whose WCAG contrast is known (the measurements, WebAIM's checker's figures).
 */

const ratio = (a: string, b: string) => Math.round(contrastRatio(a, b) * 100) / 100;

describe('contrast ratio', () => {
  it('matches known pairs', () => {
    expect(ratio('#000000', '#ffffff')).toBe(21);
    expect(ratio('#fff', '#000')).toBe(21); // order and #rgb do not matter
    expect(ratio('#777777', '#ffffff')).toBe(4.48);
    expect(ratio('#767676', '#ffffff')).toBe(4.54);
    expect(ratio('#ffffff', '#10b981')).toBe(2.54); // emerald with white: the 2.53:1, rounded down
    expect(formatRatio(contrastRatio('#ffffff', '#10b981'))).toBe('2.53:1');
    expect(ratio('#ec4899', '#f3f4f6')).toBe(3.21); // the default pink link on the light bubble
    expect(ratio('#ec4899', '#1f2937')).toBe(4.16); // and on the dark one
    expect(ratio('#f59e0b', '#f3f4f6')).toBe(1.95); // amber links
    expect(ratio('#ffffff', '#ffffff')).toBe(1);
  });

  it('luminance runs 0 to 1, the crossover of black and white text near 0.18', () => {
    expect(luminance('#000')).toBe(0);
    expect(luminance('#fff')).toBe(1);
    expect(luminance('#10b981')).toBeCloseTo(0.363, 2); // above 0.18: dark text wins, yet under the old 0.4 threshold
  });

  it('formats a ratio rounded down, never up to the threshold', () => {
    expect(formatRatio(4.499)).toBe('4.49:1');
    expect(formatRatio(21)).toBe('21.00:1');
  });
});

describe('text on a colour', () => {
  it('picks whichever of white and near-black contrasts more', () => {
    expect(textOn('#7c3aed')).toBe(LIGHT_TEXT); // the default purple
    for (const saturated of ['#10b981', '#14b8a6', '#06b6d4', '#f97316', '#f59e0b']) {
      // emerald, teal, cyan, orange, amber: white was 2.2-2.8:1, dark text reads at 6.3:1 or more
      expect(textOn(saturated), saturated).toBe(DARK_TEXT);
      expect(contrastRatio(DARK_TEXT, saturated), saturated).toBeGreaterThan(6.3);
    }
    expect(textOn('#0f766e')).toBe(LIGHT_TEXT);
  });

  it('reaches 4.5:1 on every colour, with pure black at the mid-tones where near-black falls short', () => {
    expect(textOn('#777777')).toBe('#000000');
    for (let v = 0; v < 256; v += 5) {
      const grey = `#${v.toString(16).padStart(2, '0').repeat(3)}`;
      expect(contrastRatio(textOn(grey), grey), grey).toBeGreaterThanOrEqual(4.5);
    }
  });

  it('on a gradient, reads on both ends', () => {
    expect(textOn('#10b981', '#f59e0b')).toBe(DARK_TEXT);
    expect(textOn('#0f766e', '#1d4ed8')).toBe(LIGHT_TEXT);
  });
});

describe('a colour made readable on a background', () => {
  it('is unchanged when it already reads at 4.5:1', () => {
    expect(readableOn('#b45309', SCHEME_BACKGROUNDS.light)).toBe('#b45309');
  });

  it('darkens on the light scheme and lightens on the dark one, just enough', () => {
    const light = readableOn('#ec4899', SCHEME_BACKGROUNDS.light);
    const dark = readableOn('#ec4899', SCHEME_BACKGROUNDS.dark);
    for (const bg of SCHEME_BACKGROUNDS.light) expect(contrastRatio(light, bg)).toBeGreaterThanOrEqual(4.5);
    for (const bg of SCHEME_BACKGROUNDS.dark) expect(contrastRatio(dark, bg)).toBeGreaterThanOrEqual(4.5);
    expect(luminance(light)).toBeLessThan(luminance('#ec4899'));
    expect(luminance(dark)).toBeGreaterThan(luminance('#ec4899'));
    expect(contrastRatio(light, '#f3f4f6')).toBeLessThan(5); // the smallest step, not black
  });
});

describe('the widget palette', () => {
  it('the defaults: white on purple, the header ending on a deeper pink, links darker and lighter pink', () => {
    const p = widgetPalette({ primary_color: '#7c3aed', secondary_color: '#ec4899', accent_color: '#ec4899' });
    expect(p).toMatchObject({ onPrimary: LIGHT_TEXT, onHeader: LIGHT_TEXT });
    // white on #ec4899 is 3.53:1: the gradient's pink end is deepened until the white title reads there
    expect(ratio(LIGHT_TEXT, '#ec4899')).toBe(3.53);
    expect(contrastRatio(LIGHT_TEXT, p.headerEnd)).toBeGreaterThanOrEqual(4.5);
    expect(contrastRatio(LIGHT_TEXT, p.headerEnd)).toBeLessThan(4.8);
    expect(contrastRatio(p.link.light, '#f3f4f6')).toBeGreaterThanOrEqual(4.5);
    expect(contrastRatio(p.link.dark, '#1f2937')).toBeGreaterThanOrEqual(4.5);
  });

  it('a dark primary and a light secondary: the light end moves so the white title reads on it', () => {
    const p = widgetPalette({ primary_color: '#1e3a8a', secondary_color: '#fde047', accent_color: '#1e3a8a' });
    expect(p.onHeader).toBe(LIGHT_TEXT);
    expect(p.headerEnd).not.toBe('#fde047');
    expect(contrastRatio(LIGHT_TEXT, p.headerEnd)).toBeGreaterThanOrEqual(4.5);
    expect(contrastRatio(LIGHT_TEXT, '#1e3a8a')).toBeGreaterThanOrEqual(4.5);
  });
});

describe('warnings about an owner’s colours', () => {
  it('the default pink chosen as accent: the link is named in each scheme the theme shows, with what is shown instead', () => {
    const pink = { primary_color: '#7c3aed', secondary_color: '#7c3aed', accent_color: '#ec4899' };
    const light = colorWarnings(pink, 'light');
    expect(light).toEqual([expect.objectContaining({ field: 'accent_color' })]);
    expect(light[0]!.message).toContain('#ec4899 is 3.20:1 as link text on the light scheme'); // 3.208, rounded down
    // the dark scheme also lightens the purple where it is text (starter questions)
    const dark = colorWarnings(pink, 'dark');
    expect(dark.map((w) => w.field)).toEqual(['primary_color', 'accent_color']);
    expect(dark[1]!.message).toContain('#ec4899 is 4.16:1 as link text on the dark scheme');
    expect(colorWarnings(pink, 'auto')).toHaveLength(3);
  });

  it('none for colours that follow the primary (a new agent): the owner chose none of them', () => {
    const following = {
      primary_color: '#7c3aed',
      secondary_color: '#ec4899',
      accent_color: '#ec4899',
      secondary_follows_primary: true,
      accent_follows_primary: true,
    };
    expect(colorWarnings(following, 'light')).toEqual([]);
    // the purple itself, as the starter questions' text, is lightened on the dark scheme: said once
    expect(colorWarnings(following, 'auto').map((w) => w.field)).toEqual(['primary_color']);
  });

  it('emerald and amber: the primary and accent as text are named, with the shades the widget uses', () => {
    const warnings = colorWarnings(
      { primary_color: '#10b981', secondary_color: '#10b981', accent_color: '#f59e0b' },
      'light',
    );
    expect(warnings.map((w) => w.field)).toEqual(['primary_color', 'accent_color']);
    const palette = widgetPalette({ primary_color: '#10b981', secondary_color: '#10b981', accent_color: '#f59e0b' });
    expect(warnings[1]!.message).toContain('#f59e0b is 1.95:1 as link text');
    expect(warnings[1]!.message).toContain(`shows it there as ${palette.link.light}`);
  });

  it('a gradient no text reads on: the secondary is named', () => {
    const warnings = colorWarnings(
      { primary_color: '#1e3a8a', secondary_color: '#fde047', accent_color: '#1e3a8a' },
      'light',
    );
    expect(warnings.map((w) => w.field)).toEqual(['secondary_color']);
    expect(warnings[0]!.message).toMatch(/ends the gradient on #[0-9a-f]{6} instead/);
  });

  it('none for colours that read as chosen', () => {
    expect(
      colorWarnings({ primary_color: '#0f766e', secondary_color: '#1d4ed8', accent_color: '#b45309' }, 'light'),
    ).toEqual([]);
  });
});
