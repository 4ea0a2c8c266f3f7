// Shared by the widget and the admin UI's preview (admin-ui/src/preview.tsx), so the preview
// picks the same text color as the widget it pictures.

/** Black or white text, whichever reads better on `hex` (WCAG relative luminance). */
export function textOn(hex: string): string {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(hex);
  if (!m) return '#fff';
  let v = m[1]!;
  if (v.length === 3) v = v.replace(/./g, (c) => c + c);
  const lin = (i: number) => {
    const c = parseInt(v.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const lum = 0.2126 * lin(0) + 0.7152 * lin(2) + 0.0722 * lin(4);
  return lum > 0.4 ? '#111827' : '#fff';
}
