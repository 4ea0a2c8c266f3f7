import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { SystemStatus, User } from './types.js';

export interface SessionValue {
  user: User;
  /** undefined until loaded (or when it could not be) */
  status: SystemStatus | undefined;
  /** reads the status again (a key or mail server saved: the banners follow without a reload) */
  refreshStatus: () => void;
}

export const Session = createContext<SessionValue | null>(null);

export function useSession(): SessionValue {
  const s = useContext(Session);
  if (!s) throw new Error('useSession outside a logged-in page');
  return s;
}
