import { badRequest } from '../../platform/http/errors.js';
import { newPasswordRefusal } from '../../platform/security/passwords.js';

/** 400 naming `field` for a commonly used password or the account's own e-mail (newPasswordRefusal). */
export async function assertNewPassword(field: string, password: string, email: string): Promise<void> {
  const refusal = await newPasswordRefusal(field, password, email);
  if (refusal) throw badRequest(refusal);
}
