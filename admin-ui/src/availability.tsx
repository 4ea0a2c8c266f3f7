import { useEffect, useState } from 'preact/hooks';
import { api, get } from './api.js';
import { toast } from './ui.js';

type Availability = 'online' | 'away';

/**
 * The person's own online/away switch in the top bar (docs/API-NOTES.md "Office hours and
 * availability"): while everyone of the team is away, a visitor who asks for a person gets the
 * contact form at once instead of waiting. Each person has their own; everyone starts online.
 */
export function AvailabilitySwitch() {
  const [availability, setAvailability] = useState<Availability | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let live = true;
    get<{ availability: Availability }>('/api/team/me/availability').then(
      (r) => live && setAvailability(r.availability),
      () => {}, // not shown when it cannot be read
    );
    return () => {
      live = false;
    };
  }, []);
  if (!availability) return null;
  const online = availability === 'online';
  const toggle = async () => {
    setBusy(true);
    try {
      const next = await api<{ availability: Availability }>('PUT', '/api/team/me/availability', {
        availability: online ? 'away' : 'online',
      });
      setAvailability(next.availability);
      toast(
        next.availability === 'online'
          ? 'You are online: visitors may ask for a person'
          : 'You are away: unless a teammate is online, visitors asking for a person get the contact form',
      );
    } catch (err) {
      toast(err instanceof Error ? err.message : String(err), 'error');
    } finally {
      setBusy(false);
    }
  };
  return (
    <button
      type="button"
      role="switch"
      aria-checked={online}
      aria-label="Online for visitors"
      title={online ? 'Online: visitors may ask for a person. Click to go away.' : 'Away. Click to go online.'}
      class="btn btn-small availability"
      disabled={busy}
      onClick={toggle}
    >
      {online ? 'Online' : 'Away'}
    </button>
  );
}
