import type { ActionRun } from '../../types.js';
import { Badge, formatDate } from '../../ui.js';
import { kindLabel } from '../actions/model.js';

const STATUS: Record<ActionRun['status'], { label: string; kind: string }> = {
  awaiting_confirmation: { label: 'waiting for the visitor', kind: 'busy' },
  running: { label: 'running', kind: 'busy' },
  succeeded: { label: 'done', kind: 'ok' },
  failed: { label: 'failed', kind: 'bad' },
  cancelled: { label: 'cancelled', kind: 'off' },
  expired: { label: 'expired', kind: 'off' },
};

/**
 * The messages and the action runs of a conversation in one list, by time: a run sits where it
 * was started, after the visitor's message that led to it and before the answer that reports it.
 */
export function byTime<M extends { timestamp: string }>(
  messages: M[],
  runs: ActionRun[],
): Array<{ message: M } | { run: ActionRun }> {
  const out: Array<{ message: M } | { run: ActionRun }> = [];
  let r = 0;
  for (const message of messages) {
    const at = Date.parse(message.timestamp);
    while (r < runs.length && Date.parse(runs[r]!.created_at) <= at) out.push({ run: runs[r++]! });
    out.push({ message });
  }
  while (r < runs.length) out.push({ run: runs[r++]! });
  return out;
}

/** One run in the transcript: which action, what it was given, how it ended, when. */
export function ActionRunItem({ run }: { run: ActionRun }) {
  const status = STATUS[run.status];
  const inputs = Object.entries(run.inputs);
  return (
    <li class="chat-msg chat-action" aria-label={`Action ${run.action_name}`}>
      <span class="chat-who">
        {kindLabel(run.action_type)} action <code>{run.action_name}</code>
        <Badge kind={status.kind}>{status.label}</Badge>
      </span>
      <div class="chat-bubble">
        {inputs.length > 0 && (
          <ul class="action-inputs" aria-label="Inputs">
            {inputs.map(([name, value]) => (
              <li key={name}>
                {name}: {value}
              </li>
            ))}
          </ul>
        )}
        {run.outcome ?? (run.status === 'awaiting_confirmation' ? 'Waiting for the visitor to confirm.' : '')}
      </div>
      <span class="chat-note">
        <time dateTime={run.created_at}>{formatDate(run.created_at)}</time>
        {run.confirmed_at && ` · confirmed ${formatDate(run.confirmed_at)}`}
        {run.http_status !== null && ` · HTTP ${run.http_status}`}
        {run.duration_ms !== null && ` · ${run.duration_ms} ms`}
      </span>
    </li>
  );
}
