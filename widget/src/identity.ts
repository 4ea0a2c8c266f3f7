/**
 * The site's signed-in user, from the embed tag's data-user-id, data-user-hash, data-user-name and
 * data-user-email (docs/API-NOTES.md "Verified visitors"). Sent as `user` with each message; the
 * server verifies the hash and otherwise treats the visitor as anonymous. Values the server would
 * refuse outright (and so fail the message) are left out here: no id or hash, a hash that is not
 * hex, a name or e-mail of the wrong shape.
 */
export interface VisitorIdentity {
  id: string;
  hash: string;
  name?: string;
  email?: string;
}

export function identityFrom(data: DOMStringMap): VisitorIdentity | null {
  const id = data.userId;
  const hash = data.userHash?.trim();
  if (!id || id.length > 200 || !hash || hash.length > 128 || !/^[0-9a-fA-F]+$/.test(hash)) return null;
  const user: VisitorIdentity = { id, hash };
  const name = data.userName?.trim();
  if (name && name.length <= 100) user.name = name;
  const email = data.userEmail?.trim();
  if (email && email.length <= 254 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) user.email = email;
  return user;
}
