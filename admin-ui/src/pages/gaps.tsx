import { useEffect, useRef, useState } from 'preact/hooks';
import { api, get } from '../api.js';
import { href } from '../router.js';
import type { Agent } from '../types.js';
import {
  Badge,
  EmptyState,
  Field,
  Loading,
  Notice,
  RefreshButton,
  errorText,
  formatDate,
  toast,
  useAsync,
  inputValue,
  useSubmit,
} from '../ui.js';
import { FIELD_MAX } from '../field-limits.js';

/**
 * The "Unanswered" tab: questions the agent could not answer well (docs/API-NOTES.md "Answer gaps"),
 * grouped by the server with counts. The owner writes the answer once; it becomes a Q&A source.
 */

type GapStatus = 'open' | 'answered' | 'dismissed';
type GapReason = 'no_passage' | 'unsure' | 'thumbs_down' | 'asked_person';

/** GET /api/chatbots/{id}/gaps: one grouped question */
interface Gap {
  id: string;
  chatbot_id: string;
  question: string;
  question_key: string;
  reasons: GapReason[];
  count: number;
  status: GapStatus;
  source_id: string | null;
  conversation_id: string | null;
  first_seen_at: string;
  last_seen_at: string;
  /** answered: why its answer may be out of date (a sync changed the page it answers from) */
  check_reason: string | null;
}

const STATUSES: Array<{ id: GapStatus; label: string }> = [
  { id: 'open', label: 'Open' },
  { id: 'answered', label: 'Answered' },
  { id: 'dismissed', label: 'Dismissed' },
];

const REASONS: Record<GapReason, { label: string; kind: string }> = {
  no_passage: { label: 'No passage found', kind: 'off' },
  unsure: { label: 'Agent unsure', kind: 'info' },
  thumbs_down: { label: 'Thumbs down', kind: 'bad' },
  asked_person: { label: 'Asked for a person', kind: 'busy' },
};

const times = (n: number) => (n === 1 ? 'once' : n === 2 ? 'twice' : `${n} times`);

/** "5 minutes ago" for the last week, the date after that. */
function relativeTime(iso: string, now = Date.now()): string {
  const then = new Date(iso).getTime();
  if (Number.isNaN(then)) return iso;
  const seconds = Math.round((now - then) / 1000);
  if (seconds < 60) return 'just now';
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return rtf.format(-minutes, 'minute');
  const hours = Math.round(minutes / 60);
  if (hours < 24) return rtf.format(-hours, 'hour');
  const days = Math.round(hours / 24);
  if (days <= 7) return rtf.format(-days, 'day');
  return formatDate(iso);
}

function AnswerForm({
  agentId,
  gap,
  onSaved,
  onCancel,
}: {
  agentId: string;
  gap: Gap;
  onSaved: (gap: Gap) => void;
  onCancel: () => void;
}) {
  const [question, setQuestion] = useState(gap.question);
  const [answer, setAnswer] = useState('');
  const answerRef = useRef<HTMLTextAreaElement>(null);
  // the question is already on screen: the owner starts typing the answer
  useEffect(() => answerRef.current?.focus(), []);

  const { busy, error, submit } = useSubmit(async () => {
    const res = await api<{ gap: Gap }>(
      'POST',
      `/api/chatbots/${encodeURIComponent(agentId)}/gaps/${encodeURIComponent(gap.id)}/answer`,
      { answer, question },
    );
    onSaved(res.gap);
  });

  return (
    <form class="stack gap-answer" onSubmit={submit} method="post" aria-label={`Answer: ${gap.question}`}>
      {error && <Notice kind="error">{error}</Notice>}
      <Field
        label="Question"
        hint="Visitors asking something similar get this answer. Reword it the way people ask it."
      >
        <input
          required
          maxLength={FIELD_MAX.source.qa_question}
          value={question}
          onInput={(e) => setQuestion(inputValue(e))}
        />
      </Field>
      <Field label="Answer">
        <textarea
          ref={answerRef}
          required
          maxLength={FIELD_MAX.source.qa_answer}
          rows={5}
          value={answer}
          onInput={(e) => setAnswer(inputValue(e))}
        />
      </Field>
      <div class="actions">
        <button type="submit" class="btn btn-primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save answer'}
        </button>
        <button type="button" class="btn" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function GapItem(props: {
  agentId: string;
  gap: Gap;
  answering: boolean;
  onAnswer: () => void;
  onCancel: () => void;
  onAnswered: (g: Gap) => void;
  onDismissed: (g: Gap) => void;
}) {
  const { agentId, gap } = props;
  const [dismissing, setDismissing] = useState(false);
  const answerButton = useRef<HTMLButtonElement>(null);
  const wasAnswering = useRef(false);
  // a cancelled form hands focus back to the button that opened it
  useEffect(() => {
    if (wasAnswering.current && !props.answering) answerButton.current?.focus();
    wasAnswering.current = props.answering;
  }, [props.answering]);
  const dismiss = async () => {
    setDismissing(true);
    try {
      props.onDismissed(
        await api<Gap>(
          'POST',
          `/api/chatbots/${encodeURIComponent(agentId)}/gaps/${encodeURIComponent(gap.id)}/dismiss`,
        ),
      );
    } catch (err) {
      toast(errorText(err), 'error');
      setDismissing(false);
    }
  };
  return (
    <li class="gap" data-status={gap.status}>
      {/* visitors' words: a text node, never markup */}
      <p class="gap-question">{gap.question}</p>
      <div class="gap-meta">
        <span class="gap-count">Asked {times(gap.count)}</span>
        <span class="muted small">
          last asked{' '}
          <time dateTime={gap.last_seen_at} title={formatDate(gap.last_seen_at)}>
            {relativeTime(gap.last_seen_at)}
          </time>
        </span>
        <span class="gap-reasons" aria-label="Why it is here">
          {gap.reasons.map((r) => (
            <Badge key={r} kind={REASONS[r]?.kind ?? 'off'}>
              {REASONS[r]?.label ?? r}
            </Badge>
          ))}
        </span>
      </div>
      {gap.check_reason && (
        <p class="gap-check">
          <Badge kind="busy">Check this</Badge> {gap.check_reason}
        </p>
      )}
      {!props.answering && (
        <div class="gap-actions">
          {gap.status !== 'answered' && (
            <button
              ref={answerButton}
              type="button"
              class="btn btn-small btn-primary"
              onClick={props.onAnswer}
              aria-label={`Answer: ${gap.question}`}
            >
              Answer
            </button>
          )}
          {gap.status === 'open' && (
            <button
              type="button"
              class="btn btn-small"
              onClick={() => void dismiss()}
              disabled={dismissing}
              aria-label={`Dismiss: ${gap.question}`}
            >
              {dismissing ? 'Dismissing…' : 'Dismiss'}
            </button>
          )}
          {gap.status === 'answered' && <a href={href('agents', agentId, 'knowledge')}>Edit the answer in Knowledge</a>}
          {gap.status === 'answered' && <MakeTestButton agentId={agentId} gap={gap} />}
          {gap.conversation_id && (
            <a
              href={href('agents', agentId, 'conversations', gap.conversation_id)}
              aria-label={`Conversation: ${gap.question}`}
            >
              Open conversation
            </a>
          )}
        </div>
      )}
      {props.answering && (
        <AnswerForm agentId={agentId} gap={gap} onSaved={props.onAnswered} onCancel={props.onCancel} />
      )}
    </li>
  );
}

/** One click: a test question from an answered gap (its question, its answer's first sentence, its Q&A source). */
function MakeTestButton({ agentId, gap }: { agentId: string; gap: Gap }) {
  const [busy, setBusy] = useState(false);
  const make = async () => {
    setBusy(true);
    try {
      await api('POST', `/api/chatbots/${encodeURIComponent(agentId)}/tests`, { from: { gap_id: gap.id } });
      toast('Test question added (see the Tests tab)');
    } catch (err) {
      toast(errorText(err), 'error');
    } finally {
      setBusy(false);
    }
  };
  return (
    <button
      type="button"
      class="btn btn-small"
      onClick={() => void make()}
      disabled={busy}
      aria-label={`Make a test question: ${gap.question}`}
    >
      {busy ? 'Adding…' : 'Make a test'}
    </button>
  );
}

const EMPTY: Record<GapStatus, string> = {
  open: 'Nothing to answer. Questions land here when the agent found nothing in its knowledge, said it did not know, got a thumbs down, or the visitor asked for a person.',
  answered:
    'No answered questions yet. Answers you write from the Open list appear here, and in Knowledge as Q&A sources.',
  dismissed: 'No dismissed questions. A dismissed question comes back to Open when a visitor asks it again.',
};

export function GapsTab({ agent }: { agent: Agent }) {
  const [status, setStatus] = useState<GapStatus>('open');
  const [answering, setAnswering] = useState<string | null>(null);
  const list = useAsync(
    () => get<Gap[]>(`/api/chatbots/${encodeURIComponent(agent.id)}/gaps?status=${status}`),
    [agent.id, status],
  );
  const heading = useRef<HTMLHeadingElement>(null);

  /** The gap left this list: its item is gone, so focus goes to the list's heading rather than <body>. */
  const leave = (gap: Gap, message: string) => {
    if (list.data) list.setData(list.data.filter((g) => g.id !== gap.id));
    setAnswering(null);
    toast(message);
    heading.current?.focus();
  };

  const label = STATUSES.find((s) => s.id === status)!.label;
  return (
    <div class="stack-lg">
      <section class="card stack">
        <div class="section-head-row">
          <h2 ref={heading} tabIndex={-1} class="gaps-heading">
            Unanswered questions
          </h2>
          <RefreshButton onRefresh={list.reload} busy={list.loading} />
        </div>
        <p class="muted">
          Questions visitors asked that the agent could not answer well, similar wordings grouped, most asked first.
          Write the answer once: it becomes a Q&A source the agent uses ahead of everything else when someone asks the
          same.
        </p>
        <div class="segmented" role="group" aria-label="Show questions">
          {STATUSES.map((s) => (
            <button
              key={s.id}
              type="button"
              class={status === s.id ? 'seg active' : 'seg'}
              aria-pressed={status === s.id}
              onClick={() => {
                setStatus(s.id);
                setAnswering(null);
              }}
            >
              {s.label}
            </button>
          ))}
        </div>
        {list.error && <Notice kind="error">{list.error}</Notice>}
        {!list.data && list.loading && <Loading />}
        {list.data && list.data.length === 0 && <EmptyState>{EMPTY[status]}</EmptyState>}
        {list.data && list.data.length > 0 && (
          <ul class="gaps" aria-label={`${label} questions`}>
            {list.data.map((g) => (
              <GapItem
                key={g.id}
                agentId={agent.id}
                gap={g}
                answering={answering === g.id}
                onAnswer={() => setAnswering(g.id)}
                onCancel={() => setAnswering(null)}
                onAnswered={(done) => leave(done, 'Answer saved. The agent uses it from now on.')}
                onDismissed={(done) => leave(done, 'Dismissed. It comes back if a visitor asks again.')}
              />
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
