import { z } from 'zod';
import { emailField } from '../auth/index.js';

/** The public chat's `user`: the visitor as the owner's site vouches for them (docs/IDENTITY.md). */
export const visitorUser = z.object({
  id: z.string().min(1, 'must be 1-200 characters').max(200, 'must be 1-200 characters'),
  hash: z
    .string()
    .max(128)
    .regex(/^[0-9a-fA-F]+$/, 'must be the hex HMAC-SHA256 of the user id'),
  name: z.string().trim().max(100).optional(),
  email: emailField.optional(),
});
