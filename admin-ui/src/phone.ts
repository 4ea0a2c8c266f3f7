/**
 * Whether a phone, as the visitor typed it, looks like a phone number: digits with the usual
 * separators (spaces, `-`, `.`, `/`, brackets), `+` only in front, an extension allowed at the end
 * (`ext. 12`, `x12`), and 6 to 15 digits (E.164 numbers have at most 15). The phone is stored in
 * any format (the spec); this only decides whether the admin shows a warning beside it.
 *
 * A library such as libphonenumber-js could check the length per country, but only for numbers
 * written with their country code, and it would add about 30 KB gzipped to an admin bundle of 70.
 */
export function looksLikePhone(phone: string): boolean {
  const main = phone.trim().replace(/\s*(?:ext\.?|x|#)\s*\d{1,6}$/i, '');
  if (!/^\+?[\d\s().\-/]+$/.test(main)) return false;
  const digits = main.replace(/\D/g, '').length;
  return digits >= 6 && digits <= 15;
}
