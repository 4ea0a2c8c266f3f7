import { randomBytes } from 'node:crypto';

/** What `rawMail` builds a message from. */
export interface RawMailFields {
  /** `alice@example.test` or `Alice Liddell <alice@example.test>` (a non-ASCII name is encoded) */
  from: string;
  to: string;
  subject: string;
  /** the text/plain body as it is (end it with a line break for one at the end); line ends become CRLF */
  text: string;
  /** `<id@host>`; a fresh one when left out */
  messageId?: string;
  inReplyTo?: string;
  /** message ids, oldest first */
  references?: string | string[];
  /** defaults to now */
  date?: Date;
  /**
   * more headers (`Auto-Submitted`, `List-Id`, `Precedence`, `Return-Path`, ...), after the usual
   * ones; a name that matches a usual one (any case) replaces it, and `null` drops it
   */
  headers?: Record<string, string | null>;
}

/**
 * An RFC 5322 message (CRLF line ends) as a mail client sends it: Date, From, To, Subject,
 * Message-ID, In-Reply-To / References when given, MIME-Version and a text/plain; charset=utf-8 body,
 * 7bit when it is short-lined ASCII, quoted-printable otherwise. For normal mails, auto-replies
 * (`headers: { 'Auto-Submitted': 'auto-replied' }`), list mail (`List-Id`) and bounces alike.
 */
export function rawMail(fields: RawMailFields): string {
  const text = fields.text.replace(/\r\n|\r|\n/g, '\r\n');
  const plain = /^[\x20-\x7e\r\n\t]*$/.test(text) && text.split('\r\n').every((line) => line.length <= 998);
  const references =
    typeof fields.references === 'string' ? [fields.references] : fields.references?.length ? fields.references : [];
  const usual: Array<[string, string | undefined]> = [
    ['Date', mailDate(fields.date ?? new Date())],
    ['From', address(fields.from)],
    [
      'To',
      fields.to
        .split(',')
        .map((a) => address(a.trim()))
        .join(', '),
    ],
    ['Subject', encodeWord(fields.subject)],
    ['Message-ID', fields.messageId ?? `<${randomBytes(8).toString('hex')}@example.test>`],
    ['In-Reply-To', fields.inReplyTo],
    ['References', references.length ? references.join('\r\n ') : undefined],
    ['MIME-Version', '1.0'],
    ['Content-Type', 'text/plain; charset=utf-8'],
    ['Content-Transfer-Encoding', plain ? '7bit' : 'quoted-printable'],
  ];
  const extra = Object.entries(fields.headers ?? {});
  const replaced = (name: string) => extra.some(([n]) => n.toLowerCase() === name.toLowerCase());
  const lines: string[] = [];
  for (const [name, value] of usual) if (value !== undefined && !replaced(name)) lines.push(`${name}: ${value}`);
  for (const [name, value] of extra) if (value !== null) lines.push(`${name}: ${value}`);
  return `${lines.join('\r\n')}\r\n\r\n${plain ? text : quotedPrintable(text)}`;
}

/** `Sat, 28 Nov 2026 04:13:13 +0000` */
function mailDate(date: Date): string {
  return date.toUTCString().replace(/GMT$/, '+0000');
}

/** RFC 2047 B-encoding of a value with non-ASCII characters, in words of at most 45 bytes of text */
function encodeWord(value: string): string {
  if (/^[\x20-\x7e]*$/.test(value)) return value;
  const words: string[] = [];
  let chunk = '';
  for (const ch of value) {
    if (Buffer.byteLength(chunk + ch) > 45) {
      words.push(chunk);
      chunk = '';
    }
    chunk += ch;
  }
  words.push(chunk);
  return words.map((w) => `=?UTF-8?B?${Buffer.from(w).toString('base64')}?=`).join('\r\n ');
}

/** `Name <addr>` with the name encoded when it is not ASCII; a bare address as it is */
function address(value: string): string {
  const match = /^(.*?)\s*<([^>]+)>$/.exec(value);
  if (!match?.[1]) return value;
  const name = match[1].replace(/^"(.*)"$/, '$1');
  return `${/^[\x20-\x7e]*$/.test(name) ? `"${name.replace(/(["\\])/g, '\\$1')}"` : encodeWord(name)} <${match[2]}>`;
}

/** RFC 2045 quoted-printable of UTF-8 text with CRLF line ends (soft breaks keep lines at 76) */
function quotedPrintable(text: string): string {
  return text
    .split('\r\n')
    .map((line) => {
      const bytes = Buffer.from(line, 'utf8');
      const out: string[] = [];
      let current = '';
      bytes.forEach((byte, i) => {
        const last = i === bytes.length - 1;
        const literal = (byte >= 33 && byte <= 126 && byte !== 61) || ((byte === 32 || byte === 9) && !last);
        const piece = literal ? String.fromCharCode(byte) : `=${byte.toString(16).toUpperCase().padStart(2, '0')}`;
        if (current.length + piece.length > 75) {
          out.push(`${current}=`);
          current = '';
        }
        current += piece;
      });
      out.push(current);
      return out.join('\r\n');
    })
    .join('\r\n');
}
