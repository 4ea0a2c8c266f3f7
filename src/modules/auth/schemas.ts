import { z } from 'zod';

export const emailField = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email({ message: 'must be a valid email address' }));

/** The User object of spec 2; response schemas strip every other column (password_hash above all). */
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
  name: z.string().trim().min(1).max(100),
  email: emailField,
  password: z.string().min(8).max(128),
});

export const loginBody = z.object({
  email: z.string().trim().min(1).max(254),
  password: z.string().min(1).max(1024),
});

export const messageSchema = z.object({ message: z.string() });
