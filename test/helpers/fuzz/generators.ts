import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { SignJWT } from 'jose';
import type { RouteInfo } from '../../../src/platform/http/index.js';
import { multipartForm, PASSWORD, type TestApp } from '../app.js';
import { PARAM_KIND, type Account, type IdPool, type Victim } from './fixtures.js';
import type { Rng } from './rng.js';
import { BODY_METHODS, routeKey } from './routes.js';

/** The fuzz run's request builders: path parameters, query strings, bodies, headers and credentials. */

export interface Ctx {
  rng: Rng;
  t: TestApp;
  a: Victim;
  b: Account & { ids: IdPool };
  /** the first account (admin), never A or B */
  operator: Account;
  /** a throwaway account the operator may change */
  c: Account;
  /** every id of A's, flat */
  aIdList: string[];
  /** A's ids and email (lower-case) with what each is */
  aIdLabels: Map<string, string>;
}

/**
 * Path parameter values. A raw `../` is resolved by the injector's URL parsing before the router
 * sees it (as a browser would), so traversal is also sent percent-encoded, which arrives as is.
 */
export const HOSTILE_IDS = [
  ...['..', '.', '%2e%2e', '..%2F..%2F..%2Fetc%2Fpasswd', '..%5C..%5Cwindows'],
  ...[
    '%zz',
    '%',
    '%00',
    '%C0%AF',
    '%ED%A0%80',
    '%FF%FE',
    '%F0%9F%92%A9',
    '%E2%80%AE',
    '%20',
    '%09',
    '%0D%0A',
    '%5B%5D',
    '%7B%7D',
    '*',
    '%2A',
    '%25',
    '%2525',
  ],
  ...['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString'],
  ...['-1', '0', '1e309', 'NaN', 'Infinity', 'null', 'undefined', 'true'],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, sent as plain text
  ...["' OR '1'='1' --", '" OR ""="', '1; DROP TABLE chatbots; --', '<script>alert(1)</script>', '${7*7}{{7*7}}'].map(
    encodeURIComponent,
  ),
  ...['export.csv', 'me', 'users'],
];

/** A string of odd characters: control, combining, astral, RTL, zero-width, lone surrogates. */
export function unicodeJunk(rng: Rng, length: number): string {
  const pieces = [
    'é',
    'ü',
    '漢',
    '字',
    '🙂',
    '👩‍👩‍👧',
    '\u0301',
    '\u200b',
    '\u202e',
    '\ufeff',
    '\ud800',
    '\udfff',
    '\u0000',
    '\u0007',
    '\n',
    '\t',
    'Ω',
    '\u2028',
    'ﷺ',
    'ß',
  ];
  let s = '';
  while (s.length < length) s += rng.pick(pieces);
  return s;
}

/** Percent-encodes every UTF-8 byte (lone surrogates, which encodeURIComponent refuses, included). */
export function pct(s: string): string {
  return [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

export function hostileId(ctx: Ctx): string {
  const { rng } = ctx;
  return rng.weighted<() => string>([
    [6, () => rng.pick(HOSTILE_IDS)],
    [
      3,
      () =>
        `0191${rng.string(4, '0123456789abcdef')}-${rng.string(4, '0123456789abcdef')}-7${rng.string(3, '0123456789abcdef')}-8${rng.string(3, '0123456789abcdef')}-${rng.string(12, '0123456789abcdef')}`,
    ],
    [3, () => encodeURIComponent(rng.string(rng.int(1, 40))) || 'x'],
    [2, () => 'a'.repeat(rng.int(300, 3000))],
    [1, () => encodeURIComponent(rng.string(rng.int(90, 120), 'abcdef0123456789'))],
    [2, () => pct(unicodeJunk(rng, rng.int(1, 20)))],
    [1, () => pct(unicodeJunk(rng, 5)).replace(/%/g, '%25')],
    [1, () => `..%2F${rng.pick(ctx.aIdList)}`],
  ])();
}

/** A's id in a disguise: case, padding, encoding, appended junk. */
export function disguisedId(ctx: Ctx, id: string): string {
  const { rng } = ctx;
  return rng.pick([
    id.toUpperCase(),
    `${id}%00`,
    `${id}%20`,
    `%20${id}`,
    `${id}%0A`,
    encodeURIComponent(`${id}'--`),
    `${id}.json`,
    `${id}%2F..`,
    id
      .split('')
      .map((ch) => `%${ch.charCodeAt(0).toString(16).padStart(2, '0')}`)
      .join(''),
    `${id}${id}`,
    id.slice(0, -1),
  ]);
}

/** A value for a path parameter: A's ids (as they are, or disguised), B's own, or junk. */
export function paramValue(ctx: Ctx, name: string, caller: Caller): string {
  const { rng, a, b } = ctx;
  const kind = PARAM_KIND[name];
  // a parameter that names no id (a file, a hash): traversal and junk, and ids all the same
  if (kind === undefined && rng.chance(0.4))
    return rng.chance(0.5) ? encodeURIComponent(wildcardValue(ctx)) : wildcardValue(ctx);
  if (caller === 'operator') {
    // the operator may only change itself and the throwaway account (see `Caller`)
    return rng.weighted<() => string>([
      [3, () => ctx.c.userId],
      [1, () => ctx.operator.userId],
      [2, () => hostileId(ctx)],
    ])();
  }
  const victims = kind && a.ids[kind].length > 0 ? a.ids[kind] : ctx.aIdList;
  const own = kind && b.ids[kind].length > 0 ? b.ids[kind] : b.ids.agent;
  return rng.weighted<() => string>([
    [33, () => rng.pick(victims)],
    [7, () => rng.pick(ctx.aIdList)],
    [20, () => rng.pick(own)],
    [5, () => disguisedId(ctx, rng.pick(victims))],
    [35, () => hostileId(ctx)],
  ])();
}

export function wildcardValue(ctx: Ctx): string {
  const { rng, t } = ctx;
  const up = '../'.repeat(rng.int(3, 20));
  const dbFile = t.config.databaseFile.replace(/^\//, '');
  return rng.pick([
    'index.html',
    'swagger-ui.css',
    'swagger-ui-bundle.js',
    'favicon-32x32.png',
    'does-not-exist.js',
    `${up}etc/passwd`,
    `${up}${dbFile}`,
    `${up}${path.join(t.dataDir, 'jwt-secret').replace(/^\//, '')}`,
    encodeURIComponent(`${up}${dbFile}`),
    `..%2f..%2f..%2f..%2f${encodeURIComponent(dbFile)}`,
    `%2e%2e/%2e%2e/%2e%2e/package.json`,
    '..%5c..%5cpackage.json',
    '%00',
    '.env',
    'a'.repeat(rng.int(300, 2000)),
    pct(unicodeJunk(rng, 10)),
    '%zz',
  ]);
}

export const DAYS = [
  '',
  '0',
  '1',
  '7',
  '30',
  '365',
  '366',
  '-1',
  '1.5',
  '1e2',
  '1e309',
  '0x10',
  'abc',
  '%00',
  'NaN',
  'Infinity',
  ' 30',
  '30%20',
  '９',
  '9'.repeat(400),
  '[]',
  '%5B1%5D',
  'null',
];

export function queryString(ctx: Ctx, r: RouteInfo): string {
  const { rng } = ctx;
  const parts: string[] = [];
  if (
    r.url.startsWith('/api/analytics/') && r.url !== '/api/analytics/dashboard' ? rng.chance(0.8) : rng.chance(0.08)
  ) {
    parts.push(
      rng.weighted<() => string>([
        [6, () => `days=${rng.pick(DAYS)}`],
        [1, () => `days=${rng.pick(DAYS)}&days=${rng.pick(DAYS)}`],
        [1, () => `days[]=${rng.pick(DAYS)}`],
        [1, () => `days[$gt]=1`],
        [1, () => `days`],
        [1, () => `DAYS=7`],
      ])(),
    );
  }
  if (rng.chance(0.15)) {
    parts.push(
      rng.pick([
        'public=true',
        `user_id=${rng.pick(ctx.a.ids.user)}`,
        `chatbot_id=${rng.pick(ctx.a.ids.agent)}`,
        '__proto__[admin]=1',
        'constructor[prototype][admin]=1',
        `q=${'x'.repeat(rng.int(100, 5000))}`,
        '%zz=%zz',
        'a=1&a=2&a=3',
        `limit=-1&offset=${rng.pick(DAYS)}`,
        'format=csv',
        pct(unicodeJunk(rng, 8)),
        '&&&==&',
      ]),
    );
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

/** Random JSON of any shape. */
export function randomJson(rng: Rng, depth = 0): unknown {
  const leaf = () =>
    rng.pick<unknown>([
      null,
      true,
      false,
      0,
      -1,
      1.5,
      1e308,
      -1e308,
      Number.MAX_SAFE_INTEGER + 2,
      2 ** 53,
      '',
      ' ',
      'NaN',
      'Infinity',
      '-0',
      '1e309',
      'null',
      'true',
      '0x1f',
      rng.string(rng.int(1, 30)),
      unicodeJunk(rng, rng.int(1, 10)),
      'x'.repeat(rng.int(300, 5000)),
      '\u0000',
      '../../etc/passwd',
      '<img src=x onerror=alert(1)>',
      "' OR 1=1 --",
    ]);
  if (depth > 3 || rng.chance(0.5)) return leaf();
  if (rng.chance(0.5)) return Array.from({ length: rng.int(0, 4) }, () => randomJson(rng, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = rng.int(0, 4); i > 0; i--)
    o[rng.pick(['name', 'message', 'id', 'x', 'user_id', 'role', rng.string(5)])] = randomJson(rng, depth + 1);
  return o;
}

export const email = (rng: Rng) => `fz${rng.string(8, 'abcdefghijklmnopqrstuvwxyz0123456789')}@example.com`;

/**
 * Addresses a website source is refused for (internal, or not http(s)): the fuzz must not send the
 * crawler to the internet, so no public host is ever generated.
 */
export const INTERNAL_URLS = [
  'http://127.0.0.1/',
  'http://localhost:3000/admin',
  'http://[::1]/',
  'http://10.0.0.1/',
  'http://192.168.1.1/',
  'http://169.254.169.254/latest/meta-data/',
  'http://0.0.0.0/',
  'http://2130706433/',
  'http://0x7f000001/',
  'http://017700000001/',
  'http://127.1/',
  'http://[::ffff:127.0.0.1]/',
  'http://[fd00::1]/',
  'http://100.64.0.1/',
  'file:///etc/passwd',
  'gopher://127.0.0.1:25/',
  'javascript:alert(1)',
  'data:text/html,hi',
  'ftp://10.0.0.1/',
  '//127.0.0.1/',
  'http://user:pass@127.0.0.1/',
  'not a url',
];

/** A body a route would accept in shape (ids from the pools, so sometimes A's). */
export function validBody(ctx: Ctx, key: string): Record<string, unknown> | undefined {
  const { rng, a, b } = ctx;
  const maybe = (p: number, v: () => unknown) => (rng.chance(p) ? v() : undefined);
  const agentId = () =>
    rng.weighted<() => string>([
      [4, () => rng.pick(a.ids.agent)],
      [4, () => rng.pick(b.ids.agent)],
      [2, () => hostileId(ctx)],
    ])();
  // words of A's knowledge (public and private agent alike), so answers quote passages: A's public
  // agent may show its own, never the private agent's
  const question = () =>
    rng.chance(0.35)
      ? rng.pick([
          'Is the shop open on weekdays?',
          'What are the opening hours?',
          'Is there a discount code in the price list?',
          'pricing internal price list',
          'Reference shop open nine five',
        ])
      : rng.string(rng.int(1, 80));
  const strip = (o: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  switch (key) {
    case 'POST /api/auth/register':
      return {
        name: rng.string(rng.int(1, 30)),
        email: rng.chance(0.2) ? a.email : email(rng),
        password: rng.string(rng.int(6, 40)),
      };
    case 'POST /api/auth/login':
      // never B's email: B's failures would lock B out of the re-login after a fuzzed logout
      return {
        email: rng.pick([a.email, a.email.toUpperCase(), ctx.operator.email, email(rng)]),
        password: rng.pick([rng.string(12), '', PASSWORD.slice(1)]),
      };
    case 'POST /api/chatbots':
    case 'PUT /api/chatbots/:chatbot_id':
      return strip({
        name: maybe(0.8, () => rng.string(rng.int(1, 40))),
        description: maybe(0.3, () => rng.string(rng.int(0, 100))),
        instructions: maybe(0.3, () => rng.string(rng.int(0, 200))),
        system_message: maybe(0.1, () => rng.string(20)),
        welcome_message: maybe(0.3, () => rng.string(rng.int(0, 60))),
        model: maybe(0.2, () => rng.pick(['gpt-4o', 'gpt-4o-mini', 'claude-3-5-haiku-latest', rng.string(10)])),
        provider: maybe(0.2, () => rng.pick(['openai', 'anthropic', 'google', 'ollama', 'azure'])),
        temperature: maybe(0.2, () => rng.pick([0, 0.5, 1, 1.5, -0.1])),
        max_tokens: maybe(0.2, () => rng.pick([1, 500, 16384, 16385, 0])),
        ...(key.startsWith('PUT')
          ? {
              status: maybe(0.2, () => rng.pick(['active', 'inactive', 'deleted'])),
              public_access: maybe(0.2, () => rng.chance(0.5)),
              primary_color: maybe(0.15, () => rng.pick(['#fff', '#123456', 'red', '#12345g'])),
              widget_position: maybe(0.1, () => rng.pick(['bottom-right', 'top-left', 'middle'])),
              widget_theme: maybe(0.1, () => rng.pick(['light', 'dark', 'auto', 'neon'])),
              widget_size: maybe(0.1, () => rng.pick(['small', 'large', 'huge'])),
              lead_capture_enabled: maybe(0.1, () => rng.chance(0.5)),
              email_alerts_enabled: maybe(0.1, () => rng.chance(0.5)),
              email_alert_address: maybe(0.1, () => rng.pick([email(rng), 'nope', null])),
              rate_limit_enabled: maybe(0.1, () => rng.chance(0.5)),
              messages_per_hour: maybe(0.1, () => rng.pick([1, 60, 0, -5, 1e9])),
              logo_url: maybe(0.1, () => rng.pick(['https://example.com/logo.png', 'javascript:alert(1)', null])),
              font_family: maybe(0.1, () => rng.pick(['Inter, sans-serif', '"Comic Sans"', 'x;}body{display:none'])),
              font_size: maybe(0.1, () => rng.pick([14, 0, 1000, 14.5])),
              bubble_style: maybe(0.1, () => rng.pick(['rounded', 'square', 'round'])),
              auto_expand: maybe(0.1, () => rng.chance(0.5)),
              powered_by_text: maybe(0.1, () => rng.pick(['Acme', null])),
              allowed_domains: maybe(0.05, () =>
                rng.pick([
                  [],
                  ['example.com'],
                  ['*.example.com:8443'],
                  ['https://www.example.com/x'],
                  ['*'],
                  'example.com',
                  [rng.string(300)],
                ]),
              ),
              daily_message_limit: maybe(0.05, () => rng.pick([null, 1, 0, -1, 1e12, '5'])),
            }
          : {}),
      });
    case 'PATCH /api/admin/users/:user_id':
      return strip({
        role: maybe(0.4, () => rng.pick(['user', 'admin', 'root'])),
        status: maybe(0.4, () => rng.pick(['active', 'suspended', 'banned', 'deleted'])),
        plan_id: maybe(0.4, () => rng.pick(['free', 'starter', 'pro', 'enterprise', ''])),
        plan_expires_at: maybe(0.3, () =>
          rng.pick([null, '2020-01-01T00:00:00Z', '2999-01-01T00:00:00+02:00', 'tomorrow']),
        ),
      });
    case 'POST /api/public/chat/:chatbot_id':
      return strip({
        message: question(),
        session_id: maybe(0.9, () => `fz-${rng.string(rng.int(1, 40), 'abcdef0123456789')}`),
        user_name: maybe(0.3, () => rng.string(rng.int(1, 30))),
        user_email: maybe(0.3, () => email(rng)),
      });
    case 'POST /api/chat':
      return strip({
        message: question(),
        chatbot_id: agentId(),
        session_id: maybe(0.6, () => `fz-${rng.string(rng.int(1, 40), 'abcdef0123456789')}`),
        user_name: maybe(0.3, () => rng.string(rng.int(1, 30))),
        user_email: maybe(0.3, () => email(rng)),
      });
    case 'POST /api/sources/chatbot/:chatbot_id/text':
      return { name: rng.string(rng.int(1, 40)), content: rng.string(rng.int(1, 500)) };
    case 'POST /api/sources/chatbot/:chatbot_id/website':
      return strip({
        url: rng.pick(INTERNAL_URLS),
        max_pages: maybe(0.3, () => rng.pick(['1', '500', '501', '0', 'x', '1.5'])),
        include_paths: maybe(0.2, () => rng.pick(['/docs,/blog', '/a', 'no-slash', ['/x', '/y']])),
        exclude_paths: maybe(0.2, () => rng.pick(['/private', ''])),
      });
    case 'POST /api/public/lead/:chatbot_id':
      return strip({
        name: rng.string(rng.int(1, 30)),
        phone: rng.pick(['+31 6 1234 5678', '555-0100', rng.string(rng.int(1, 60), '0123456789 +-()')]),
        session_id: maybe(0.4, () => `fz-${rng.string(10)}`),
      });
    case 'POST /api/leads':
    case 'PUT /api/leads/:lead_id':
      return strip({
        name: maybe(0.9, () => rng.string(rng.int(1, 40))),
        contact: maybe(0.8, () => rng.pick([email(rng), rng.string(12, '0123456789')])),
        notes: maybe(0.4, () => rng.pick([rng.string(rng.int(0, 100)), null])),
        status: maybe(0.4, () => rng.pick(['New', 'Contacted', 'Closed', 'new', 'Lost'])),
      });
    default:
      return undefined;
  }
}

/** The valid body with one or more faults: wrong types, bad values, smuggled fields. */
export function mutate(ctx: Ctx, base: Record<string, unknown>): Record<string, unknown> {
  const { rng, a } = ctx;
  const out: Record<string, unknown> = { ...base };
  for (let n = rng.int(1, 3); n > 0; n--) {
    const fields = Object.keys(out);
    const field = fields.length ? rng.pick(fields) : 'name';
    rng.weighted<() => void>([
      [5, () => (out[field] = randomJson(rng))],
      [2, () => delete out[field]],
      [2, () => (out[field] = 'x'.repeat(rng.int(101, 20_000)))],
      [2, () => (out[field] = `${String(out[field] ?? '')}\u0000${rng.string(5)}`)],
      [2, () => (out[field] = unicodeJunk(rng, rng.int(1, 50)))],
      [1, () => (out[field] = [out[field]])],
      [1, () => (out[field] = { value: out[field] })],
      // fields no client may set, pointing at A
      [
        3,
        () =>
          Object.assign(
            out,
            rng.pick([
              { user_id: rng.pick(a.ids.user) },
              { id: rng.pick(ctx.aIdList) },
              { role: 'admin' },
              { chatbot_id: rng.pick(a.ids.agent) },
              { messages_count: 1e9, created_at: '1970-01-01' },
              { status: 'banned' },
              { plan_id: 'pro' },
            ]),
          ),
      ],
    ])();
  }
  return out;
}

export interface Body {
  label: string;
  payload?: string | Buffer;
  contentType?: string;
}

export const BOUNDARY = 'fuzz-boundary-9x8y7z';
export const part = (headers: string, value: string) => `--${BOUNDARY}\r\n${headers}\r\n\r\n${value}\r\n`;
export const fieldPart = (name: string, value: string) => part(`Content-Disposition: form-data; name="${name}"`, value);
export const filePart = (name: string, filename: string, value: string, type = 'text/plain') =>
  part(`Content-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: ${type}`, value);

export async function multipartBody(
  ctx: Ctx,
  base: Record<string, unknown> | undefined,
  fileRoute: boolean,
): Promise<Body> {
  const { rng } = ctx;
  const fields = Object.entries(base ?? { name: 'x' }).map(
    ([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)] as [string, string],
  );
  const filename = () =>
    rng.pick([
      'notes.txt',
      'data.csv',
      'doc.pdf',
      'sheet.xlsx',
      'x.docx',
      'evil.exe',
      '../../../../tmp/evil.txt',
      '',
      `${'a'.repeat(300)}.txt`,
      'ünï cödé.txt',
      'CON.txt',
      'x.txt\u0000.pdf',
      '.txt',
    ]);
  const fileContent = () =>
    rng.pick([
      'Plain text file for the knowledge base.',
      '%PDF-1.4 not really',
      'a,b,c\n1,2,3\n',
      rng.bytes(rng.int(0, 400)).toString('latin1'),
      'PK\u0003\u0004garbage',
    ]);
  return rng.weighted<() => Promise<Body>>([
    // well-formed (the platform's own encoder)
    [
      fileRoute ? 5 : 3,
      async () => {
        const form: Record<string, string | { filename: string; content: Uint8Array }> = Object.fromEntries(fields);
        if (fileRoute || rng.chance(0.2))
          form[rng.chance(0.85) ? 'file' : rng.pick(['upload', 'content', 'name'])] = {
            filename: filename(),
            content: Buffer.from(fileContent(), 'latin1'),
          };
        const f = await multipartForm(form);
        return { label: 'multipart', payload: f.payload, contentType: f.headers['content-type'] };
      },
    ],
    // hand-built, with odd parts
    [
      4,
      async () => {
        const parts = fields.map(([k, v]) => fieldPart(k, v));
        rng.weighted<() => void>([
          [1, () => parts.push(fieldPart(fields[0]?.[0] ?? 'name', 'duplicate'))],
          [1, () => parts.unshift(fieldPart('__proto__', '{"admin":true}'))],
          [1, () => parts.push(part('Content-Disposition: form-data', 'no name'))],
          [1, () => parts.push(part('Content-Disposition: attachment; name="x"', 'wrong disposition'))],
          [1, () => parts.push(part(`Content-Disposition: form-data; name="${'n'.repeat(5000)}"`, 'long name'))],
          [
            1,
            () =>
              parts.push(
                part(`X-Junk: ${'h'.repeat(20_000)}\r\nContent-Disposition: form-data; name="h"`, 'big part header'),
              ),
          ],
          [
            1,
            () => parts.push(filePart('file', filename(), fileContent()), filePart('file', filename(), fileContent())),
          ],
          [1, () => parts.push(filePart(fields[0]?.[0] ?? 'content', filename(), fileContent()))],
          [1, () => parts.push(...Array.from({ length: 40 }, (_, i) => fieldPart(`f${i}`, 'v')))],
          [
            1,
            () =>
              parts.push(
                part(
                  'Content-Disposition: form-data; name="content"\r\nContent-Type: text/plain; charset=utf-16',
                  '\u00ff\u00fe',
                ),
              ),
          ],
          [1, () => parts.push(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="cut"\r\n\r\nno end`)],
        ])();
        let payload = `${parts.join('')}--${BOUNDARY}--\r\n`;
        payload = rng.weighted<() => string>([
          [5, () => payload],
          [1, () => payload.slice(0, rng.int(0, payload.length))],
          [1, () => payload.replaceAll('\r\n', '\n')],
          [1, () => payload.replace(`--${BOUNDARY}--`, '')],
        ])();
        const contentType = rng.weighted<() => string>([
          [6, () => `multipart/form-data; boundary=${BOUNDARY}`],
          [1, () => 'multipart/form-data'],
          [1, () => 'multipart/form-data; boundary='],
          [1, () => `multipart/form-data; boundary="${BOUNDARY}"`],
          [1, () => `multipart/form-data; boundary=${'b'.repeat(200)}`],
          [1, () => `multipart/mixed; boundary=${BOUNDARY}`],
          [1, () => `multipart/form-data; boundary=${BOUNDARY}; charset=utf-7`],
        ])();
        return { label: 'multipart (hand-built)', payload: Buffer.from(payload, 'latin1'), contentType };
      },
    ],
  ])();
}

export async function bodyFor(ctx: Ctx, r: RouteInfo): Promise<Body> {
  const { rng } = ctx;
  const key = routeKey(r);
  const takesBody = BODY_METHODS.includes(r.method);
  if (!takesBody && rng.chance(0.9)) return { label: 'none' };
  if (takesBody && validBody(ctx, key) === undefined && rng.chance(0.3)) return { label: 'none' };
  const base = validBody(ctx, key);
  const json = (v: unknown, label: string): Body => ({
    label,
    payload: JSON.stringify(v) ?? 'null',
    contentType: 'application/json',
  });
  const fileRoute = key === 'POST /api/sources/chatbot/:chatbot_id/file';
  if (fileRoute && rng.chance(0.6)) return multipartBody(ctx, undefined, true);
  return rng.weighted<() => Body | Promise<Body>>([
    [base ? 22 : 4, () => json(base ?? {}, 'valid-looking')],
    [base ? 24 : 6, () => json(mutate(ctx, base ?? { name: 'x' }), 'mutated')],
    [8, () => json(randomJson(rng), 'random JSON')],
    [
      2,
      () => ({
        label: 'deep nesting',
        payload: '['.repeat(rng.int(100, 20_000)) + ']'.repeat(rng.int(0, 20_000)),
        contentType: 'application/json',
      }),
    ],
    [
      1,
      () => ({
        label: 'deep object',
        payload: `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`,
        contentType: 'application/json',
      }),
    ],
    [
      5,
      () => ({
        label: '__proto__/constructor',
        payload: rng.pick([
          `{"__proto__":{"admin":true,"role":"admin"},${JSON.stringify(base ?? {}).slice(1)}`,
          `{"constructor":{"prototype":{"isAdmin":true}},"name":"x"}`,
          `${JSON.stringify(base ?? {}).slice(0, -1)}${base && Object.keys(base).length ? ',' : ''}"__proto__":{"user_id":"${ctx.a.userId}"}}`,
          '{"name":{"__proto__":{"polluted":1}}}',
          '[{"__proto__":{}}]',
        ]),
        contentType: 'application/json',
      }),
    ],
    [
      3,
      () => {
        const big = rng.chance(0.12) ? 1_100_000 : rng.int(300, 100_000);
        const field = base && Object.keys(base).length ? rng.pick(Object.keys(base)) : 'name';
        return json({ ...(base ?? {}), [field]: rng.string(big > 1000 ? 1 : 8).repeat(big) }, `long string (${big})`);
      },
    ],
    [
      4,
      () =>
        json(
          Object.fromEntries(
            Object.entries(base ?? { name: 'x' }).map(([k, v]) => [
              k,
              typeof v === 'string' ? `${v}\u0000\u0000${v}` : v,
            ]),
          ),
          'null bytes',
        ),
    ],
    [
      4,
      () => {
        const text = JSON.stringify(base ?? { name: 'x' });
        const cut = rng.int(1, Math.max(1, text.length - 1));
        const bad = Buffer.concat([
          Buffer.from(text.slice(0, cut)),
          rng.pick([
            Buffer.from([0xc0, 0xaf]),
            Buffer.from([0xff, 0xfe, 0xfd]),
            Buffer.from([0xed, 0xa0, 0x80]),
            Buffer.from([0xe2, 0x28, 0xa1]),
            rng.bytes(8),
          ]),
          Buffer.from(text.slice(cut)),
        ]);
        return { label: 'invalid UTF-8', payload: bad, contentType: 'application/json' };
      },
    ],
    [
      5,
      () => ({
        label: 'truncated JSON',
        payload: JSON.stringify(base ?? { name: 'x' }).slice(0, rng.int(0, 20)),
        contentType: 'application/json',
      }),
    ],
    [7, () => multipartBody(ctx, base, fileRoute)],
    [
      4,
      () => ({
        label: 'form-urlencoded',
        payload:
          new URLSearchParams(
            Object.entries(base ?? { name: 'x' }).map(([k, v]) => [k, String(v)] as [string, string]),
          ).toString() + rng.pick(['', '&role=admin', '&__proto__[x]=1', '&&=%zz']),
        contentType: 'application/x-www-form-urlencoded',
      }),
    ],
    [
      3,
      () => ({
        label: 'text/plain',
        payload: rng.chance(0.5) ? JSON.stringify(base ?? {}) : rng.string(rng.int(0, 200)),
        contentType: rng.pick(['text/plain', 'text/plain; charset=utf-8', 'text/html']),
      }),
    ],
    [4, () => ({ label: 'empty JSON body', payload: rng.pick(['', ' ', '\n\r\n']), contentType: 'application/json' })],
    [
      1,
      () => ({ label: 'BOM + JSON', payload: `\ufeff${JSON.stringify(base ?? {})}`, contentType: 'application/json' }),
    ],
    [
      1,
      () => ({ label: 'JSON with comments', payload: `{/* c */"name": "x" // x\n}`, contentType: 'application/json' }),
    ],
    [1, () => ({ label: 'no content-type', payload: JSON.stringify(base ?? {}) })],
  ])();
}

export const ODD_CONTENT_TYPES = [
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'application/json;;;',
  'application/json, text/plain',
  'application/vnd.api+json',
  'application/problem+json',
  'application/x-www-form-urlencoded',
  'text/plain',
  'image/png',
  'application/octet-stream',
  'multipart/form-data',
  '*/*',
  '',
  'json',
  `application/json; boundary=${'x'.repeat(2000)}`,
];

export const SITES = [
  'https://evil.example',
  'http://localhost:3000',
  'null',
  'https://attacker.test',
  'file://',
  `https://${'a'.repeat(500)}.example`,
  'https://example.com.evil.example',
];

export function headersFor(
  ctx: Ctx,
  r: RouteInfo,
  body: Body,
  authorization: string | undefined,
): Record<string, string> {
  const { rng } = ctx;
  const h: Record<string, string> = {};
  if (authorization !== undefined) h.authorization = authorization;
  if (body.contentType !== undefined) h['content-type'] = body.contentType;
  if (rng.chance(0.1)) h['content-type'] = rng.pick(ODD_CONTENT_TYPES);
  const chat = r.url.includes('/chat') && r.method === 'POST';
  if (rng.chance(chat ? 0.5 : 0.12)) h.accept = 'text/event-stream';
  else if (rng.chance(0.05))
    h.accept = rng.pick([
      'application/xml',
      'text/csv',
      '*/*;q=0',
      'text/event-stream, application/json;q=0.1',
      'x'.repeat(3000),
    ]);
  if (rng.chance(0.2)) h.origin = rng.pick(SITES);
  if (rng.chance(0.2)) {
    const ip = () => `${rng.int(1, 254)}.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 254)}`;
    h['x-forwarded-for'] = rng.pick([
      ip(),
      `${ip()}, ${ip()}, 127.0.0.1`,
      'unknown',
      '::1',
      '127.0.0.1',
      Array.from({ length: 200 }, ip).join(', '),
      'not-an-ip',
    ]);
    if (rng.chance(0.3)) h['x-real-ip'] = ip();
    if (rng.chance(0.3)) h.forwarded = `for=${ip()};proto=https;host=evil.example`;
  }
  if (rng.chance(r.method === 'OPTIONS' ? 0.7 : 0.03)) {
    h['access-control-request-method'] = rng.pick(['POST', 'GET', 'DELETE', 'PUT', 'TRACE', 'x'.repeat(500)]);
    if (rng.chance(0.5))
      h['access-control-request-headers'] = rng.pick([
        'content-type',
        'authorization, content-type',
        'x-evil',
        '*',
        ',,,',
      ]);
  }
  if (rng.chance(0.05))
    h[rng.pick(['x-junk', 'user-agent', 'cookie', 'referer', 'accept-language'])] = 'h'.repeat(rng.int(8_000, 64_000));
  if (rng.chance(0.04))
    Object.assign(
      h,
      rng.pick([
        { 'x-http-method-override': 'DELETE' },
        { 'x-original-url': '/api/admin/users' },
        { 'x-rewrite-url': '/api/admin/users' },
        { 'x-user-id': ctx.a.userId },
        { 'accept-encoding': 'gzip, br, zstd, identity;q=0' },
        { 'transfer-encoding': 'chunked' },
        { 'content-encoding': 'gzip' },
        { expect: '100-continue' },
      ]),
    );
  return h;
}

/**
 * Who sends a request. B sends most, with its own valid token; the rest carry no valid token:
 * none, garbage, another scheme, B's token without the scheme, `alg: none`, B's claims signed
 * with another key, an expired token signed with the real key, and (signed with the real key, so
 * only the server-side session check stands between it and A's data) A's `sub` with B's `sid`.
 * The operator (the first account, admin) only calls the user admin routes, on itself and a
 * throwaway account: an admin legitimately reads and changes every account, so its answers are
 * checked for 5xx only, and it never targets A or B (A's data must stay unchanged, B must keep its
 * rights). Other admin-only routes (whole-server operations) get B and callers without a token.
 */
export type Caller =
  | 'B'
  | 'anonymous'
  | 'garbage'
  | 'basic'
  | 'bare-token'
  | 'alg-none'
  | 'wrong-key'
  | 'expired'
  | 'cross-sub'
  | 'operator';
export const NO_VALID_TOKEN: Caller[] = [
  'anonymous',
  'garbage',
  'basic',
  'bare-token',
  'alg-none',
  'wrong-key',
  'expired',
  'cross-sub',
];

export async function authorizationFor(ctx: Ctx, caller: Caller): Promise<string | undefined> {
  const { rng, b, a, t } = ctx;
  const now = Math.floor(Date.now() / 1000);
  const sign = (claims: Record<string, unknown>, key: Uint8Array, iat: number, exp: number) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(key);
  const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  switch (caller) {
    case 'B':
      // mostly the canonical form; sometimes a variant a server may accept or refuse (either is
      // fine: it is B's own valid token)
      return rng.chance(0.9)
        ? `Bearer ${b.token}`
        : rng.pick([`bearer ${b.token}`, `BEARER ${b.token}`, `Bearer  ${b.token}`, `Bearer ${b.token} `]);
    case 'operator':
      return `Bearer ${ctx.operator.token}`;
    case 'anonymous':
      return undefined;
    case 'garbage':
      return rng.pick([
        'Bearer ',
        'Bearer',
        'Bearer not.a.jwt',
        `Bearer ${rng.string(40)}`,
        `Bearer ${'x'.repeat(rng.int(1000, 20_000))}`,
        'Bearer a.b.c.d',
        `Bearer ${b.token}x`,
        `Bearer ${b.token.slice(0, -2)}`,
        `Bearer ${b.token.split('.').slice(0, 2).join('.')}.`,
        `Bearer ${b.token},${b.token}`,
        'Bearer null',
        'Token abc',
        '',
      ]);
    case 'basic':
      return `Basic ${Buffer.from(`${a.email}:${PASSWORD}`).toString('base64')}`;
    case 'bare-token':
      return b.token;
    case 'alg-none':
      return `Bearer ${enc({ alg: 'none', typ: 'JWT' })}.${enc({ sub: rng.pick([a.userId, b.userId]), sid: rng.pick([a.sessionId, b.sessionId]), iat: now, exp: now + 3600 })}.`;
    case 'wrong-key':
      return `Bearer ${await sign({ sub: rng.pick([a.userId, b.userId]), sid: rng.pick([a.sessionId, b.sessionId]) }, randomBytes(48), now, now + 3600)}`;
    case 'expired':
      return `Bearer ${await sign({ sub: b.userId, sid: b.sessionId }, t.config.jwtSecret, now - 7200, now - 3600)}`;
    case 'cross-sub':
      return `Bearer ${await sign({ sub: a.userId, sid: b.sessionId }, t.config.jwtSecret, now, now + 3600)}`;
  }
}

/** Who sends a request to `r` (see `Caller`). */
export function pickCaller(ctx: Ctx, r: RouteInfo): Caller {
  const { rng } = ctx;
  if (r.url.startsWith('/api/admin/users') && rng.chance(0.4)) return 'operator';
  const noToken = rng.weighted<() => Caller>([
    [4, () => 'anonymous'],
    [2, () => 'garbage'],
    [1, () => 'basic'],
    [1, () => 'bare-token'],
    [1, () => 'alg-none'],
    [1, () => 'wrong-key'],
    [1, () => 'expired'],
    [1, () => 'cross-sub'],
  ]);
  return rng.chance(r.public ? 0.45 : 0.7) ? 'B' : noToken();
}
