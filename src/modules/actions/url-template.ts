/**
 * An action's URL template: `https://shop.example/orders/{order_id}?lang={{user.id}}`. Placeholders
 * may stand only in the path and the query; every value is percent-encoded, and a value that is a
 * dot segment ("." or "..") is refused, so no value can change the scheme, the host or the path's
 * structure. The rendered URL is checked again against the template's origin and segment count.
 */

/** `{name}`: a parameter the model (or the visitor's form) fills; `{{user.id}}`: the verified visitor's */
const PLACEHOLDER = /\{\{\s*user\.(id|name|email)\s*\}\}|\{([a-zA-Z_][a-zA-Z0-9_]{0,63})\}/g;

export type UserField = 'id' | 'name' | 'email';

export interface ParsedTemplate {
  /** parameter names, in order of appearance */
  parameters: string[];
  /** user fields used ({{user.id}} ...) */
  userFields: UserField[];
}

/** The template's problem in words, or the names it uses. */
export function parseTemplate(template: string): ParsedTemplate | { error: string } {
  const parameters: string[] = [];
  const userFields: UserField[] = [];
  let index = 0;
  const marked = template.replace(PLACEHOLDER, (_m, user: string | undefined, name: string | undefined) => {
    if (user) userFields.push(user as UserField);
    else if (name && !parameters.includes(name)) parameters.push(name);
    return `zzph${index++}zz`;
  });
  if (/[{}]/.test(marked)) return { error: 'a brace that is not a {parameter} or {{user.id|name|email}} placeholder' };
  let url: URL;
  try {
    url = new URL(marked);
  } catch {
    return { error: 'not an absolute URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { error: 'only http and https URLs' };
  if (/zzph\d+zz/.test(`${url.username}${url.password}${url.host}`))
    return { error: 'placeholders may stand only in the path and the query, not in the host' };
  if (/zzph\d+zz/.test(url.hash)) return { error: 'placeholders may stand only in the path and the query' };
  if (url.username || url.password) return { error: 'no user name or password in the URL' };
  return { parameters, userFields };
}

export type TemplateValues = { params: Record<string, string>; user?: Partial<Record<UserField, string>> };

/**
 * The template with every placeholder replaced by its percent-encoded value. Throws
 * TemplateValueError naming the placeholder when a value is missing or would change the URL's shape.
 */
export function renderTemplate(template: string, values: TemplateValues): URL {
  const shape = new URL(template.replace(PLACEHOLDER, 'x'));
  const rendered = template.replace(PLACEHOLDER, (_m, user: string | undefined, name: string | undefined) => {
    const label = user ? `user.${user}` : (name as string);
    const value = user ? values.user?.[user as UserField] : values.params[name as string];
    if (value === undefined || value === '') throw new TemplateValueError(label, 'has no value');
    if (/^\.{1,2}$/.test(value.trim())) throw new TemplateValueError(label, 'may not be "." or ".."');
    return encodeURIComponent(value);
  });
  const url = new URL(rendered);
  if (url.origin !== shape.origin || segments(url) !== segments(shape))
    throw new TemplateValueError('URL', 'would change the address');
  return url;
}

function segments(url: URL): number {
  return url.pathname.split('/').length;
}

export class TemplateValueError extends Error {
  constructor(
    readonly placeholder: string,
    reason: string,
  ) {
    super(`${placeholder} ${reason}`);
    this.name = 'TemplateValueError';
  }
}
