import { z } from 'zod';
import { badRequest } from '../../platform/http/errors.js';
import { FIELD_MAX } from '../field-limits.js';
import { MAX_QA_ANSWER_CHARS, MAX_QA_QUESTION_CHARS } from './service.js';

// The fields of the requests that add a source (routes.ts, qa-routes.ts): forms and JSON bodies.

const MAX_PATHS = 50;
const MAX_PATH_CHARS = 300;

/**
 * Path prefixes: a JSON array of strings, or (forms, and JSON too) one string holding a JSON array
 * or a comma- or newline-separated list. Blank entries are dropped; absent or null is no paths.
 */
const pathList = z
  .unknown()
  .optional()
  .transform((raw, ctx) => {
    if (raw === undefined || raw === null) return [];
    let items: unknown;
    if (typeof raw === 'string') {
      if (raw.length > 4000) {
        ctx.addIssue({ code: 'custom', message: 'too long (at most 4000 characters)' });
        return z.NEVER;
      }
      if (!raw.trim()) return [];
      try {
        items = raw.trim().startsWith('[') ? JSON.parse(raw) : raw.split(/[,\n]/);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be a JSON array or a comma-separated list of paths' });
        return z.NEVER;
      }
    } else if (Array.isArray(raw)) {
      items = raw;
    } else {
      ctx.addIssue({
        code: 'custom',
        message: `must be an array of paths or a comma-separated list, not ${typeName(raw)}`,
      });
      return z.NEVER;
    }
    if (!Array.isArray(items) || items.some((p) => typeof p !== 'string')) {
      ctx.addIssue({ code: 'custom', message: 'must be a list of paths (strings)' });
      return z.NEVER;
    }
    const paths = items.map((p: string) => p.trim()).filter(Boolean);
    if (paths.length > MAX_PATHS || paths.some((p) => !p.startsWith('/') || p.length > MAX_PATH_CHARS)) {
      ctx.addIssue({
        code: 'custom',
        message: `must be at most ${MAX_PATHS} paths, each starting with / and at most ${MAX_PATH_CHARS} characters`,
      });
      return z.NEVER;
    }
    return paths;
  });

function typeName(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

export const websiteFields = z.object({
  url: z.string().trim().min(1).max(FIELD_MAX.source.website_url),
  // a number (JSON) or a numeric string (forms, JSON); absent, null or blank is the default
  max_pages: z
    .unknown()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) return 1;
      const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : Number.NaN;
      if (!Number.isInteger(n) || n < 1 || n > 500) {
        ctx.addIssue({ code: 'custom', message: 'must be a whole number from 1 to 500' });
        return z.NEVER;
      }
      return n;
    }),
  include_paths: pathList,
  exclude_paths: pathList,
});

export function parseFields<T extends z.ZodType>(schema: T, fields: Record<string, unknown>): z.output<T> {
  const parsed = schema.safeParse(fields);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw badRequest(`${String(issue.path[0] ?? 'body')}: ${issue.message}`);
  }
  return parsed.data;
}

export function jsonFields(body: unknown): Record<string, unknown> {
  if (body && typeof body === 'object' && !Array.isArray(body)) return body as Record<string, unknown>;
  throw badRequest('body: expected multipart/form-data fields or a JSON object');
}

export const textSourceFields = z.object({
  name: z.string().trim().min(1).max(FIELD_MAX.source.text_name),
  // multipart sends line breaks as CRLF; count them once
  content: z
    .string()
    .min(1)
    .transform((s) => s.replace(/\r\n/g, '\n')),
});

export const qaQuestion = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(MAX_QA_QUESTION_CHARS, `too long (at most ${MAX_QA_QUESTION_CHARS} characters)`);
export const qaAnswer = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(MAX_QA_ANSWER_CHARS, `too long (at most ${MAX_QA_ANSWER_CHARS} characters)`);
