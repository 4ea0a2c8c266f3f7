import { z } from 'zod';
import { FIELD_MAX } from '../field-limits.js';

export const emailField = z
  .string()
  .trim()
  .max(FIELD_MAX.email)
  .pipe(z.email({ message: 'must be a valid email address' }));

/** The User object (docs/API.md "Objects"); response schemas strip every other column (password_hash above all). */
export const userSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  role: z.enum(['user', 'admin']),
  status: z.enum(['active', 'suspended', 'banned']),
  plan_id: z.string(),
  plan_expires_at: z.string().nullable(),
  created_at: z.string(),
  last_login: z.string().nullable(),
});

export const tokenSchema = z.object({
  access_token: z.string(),
  token_type: z.literal('bearer'),
});

export const registerBody = z.object({
  name: z.string().trim().min(1).max(FIELD_MAX.account_name),
  email: emailField,
  password: z.string().min(8).max(FIELD_MAX.password),
});

export const loginBody = z.object({
  email: z.string().trim().min(1).max(254),
  password: z.string().min(1).max(1024),
});

export const messageSchema = z.object({ message: z.string() });

/** The register route's password rule (docs/API.md "Fields and formats": 8-128 characters). */
const newPassword = z.string().min(8).max(FIELD_MAX.password);

export const changePasswordBody = z.object({
  current_password: z.string().min(1).max(1024),
  new_password: newPassword,
});

export const changePasswordResponse = z.object({
  detail: z.string(),
  other_sessions_ended: z
    .number()
    .int()
    .describe('sessions of the account that were logged out (the caller stays logged in)'),
});

export const resetRequestBody = z.object({ email: emailField });

export const resetConfirmBody = z.object({
  token: z.string().min(1).max(200),
  new_password: newPassword,
});

export const resetAvailability = z.object({
  available: z.boolean().describe('whether the server can send reset links (SMTP_URL is set)'),
});

export const detailSchema = z.object({ detail: z.string() });
