import { get } from './api.js';
import { formatBytes, Notice, ProgressBar, useAsync } from './ui.js';

/** GET /api/usage: what the account uses against its plan. */
export interface Usage {
  plan_id: string;
  plan_expires_at: string | null;
  month: string;
  messages: { used: number; max: number };
  storage: { used_bytes: number; max_bytes: number };
  agents: { used: number; max: number };
}

/** The plan's limits at or past this are "unlimited" (the built-in owner plan's 1e9). */
const UNLIMITED = 1_000_000_000;

/** One limit: "123 of 1,000", a bar, and a word when it is nearly or fully used. */
function Meter({
  label,
  used,
  max,
  format = (n) => n.toLocaleString(),
}: {
  label: string;
  used: number;
  max: number;
  format?: (n: number) => string;
}) {
  const unlimited = max >= UNLIMITED;
  const share = unlimited || max <= 0 ? 0 : used / max;
  const state = share >= 1 ? 'full' : share >= 0.8 ? 'near' : 'ok';
  return (
    <div class={`usage-meter usage-${state}`} data-usage={label}>
      <div class="usage-line">
        <span class="usage-label">{label}</span>
        <span class="usage-value">
          {unlimited ? `${format(used)} (unlimited)` : `${format(used)} of ${format(max)}`}
        </span>
      </div>
      {!unlimited && <ProgressBar value={share} label={`${label}: ${Math.round(share * 100)}% used`} />}
      {state === 'full' && (
        <p class="usage-note">
          Used up
          {label === MONTH_MESSAGES ? ': visitors read that the assistant is unavailable until the month ends.' : '.'}
        </p>
      )}
      {state === 'near' && <p class="usage-note">{Math.round(share * 100)}% used.</p>}
    </div>
  );
}

/**
 * What the plan's `monthly_messages` counts: messages sent to the agents (visitors' and the
 * owner's), not their answers; said in the label, beside the dashboard's all-time count of both.
 */
const MONTH_MESSAGES = 'Messages to agents this month';

/** The dashboard's usage panel: messages this month, knowledge storage and agents, each against the plan. */
export function UsagePanel() {
  const usage = useAsync(() => get<Usage>('/api/usage'), []);
  const u = usage.data;
  return (
    <section class="card stack" aria-labelledby="usage-heading">
      <h2 id="usage-heading">Usage{u ? ` (plan: ${u.plan_id})` : ''}</h2>
      {usage.error && <Notice kind="error">{usage.error}</Notice>}
      {u && (
        <div class="usage-grid">
          <Meter label={MONTH_MESSAGES} used={u.messages.used} max={u.messages.max} />
          <Meter
            label="Knowledge storage"
            used={u.storage.used_bytes}
            max={u.storage.max_bytes}
            format={(n) => formatBytes(n)}
          />
          <Meter label="Agents" used={u.agents.used} max={u.agents.max} />
        </div>
      )}
    </section>
  );
}
