import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../../api.js';
import type { Source } from '../../types.js';
import { Badge, Notice, ProgressBar, errorText, formatBytes, formatDate, toast } from '../../ui.js';
import { QaEditForm } from './forms.js';
import { Passages, plural } from './passages.js';
import { SourceSync } from './source-sync.js';

const SKIP_REASON_LABELS: Record<keyof NonNullable<Source['pages_skipped_by']>, string> = {
  robots: 'disallowed by robots.txt',
  excluded: 'outside the included or in the excluded paths',
  not_html: 'not HTML',
  too_large: 'too large',
  failed: 'could not be fetched',
};

/** "N pages fetched, M skipped; stopped at the limit of K pages" once a crawl has ended (older servers: the page counts). */
function crawlReport(source: Source): { text: string; detail?: string } | null {
  if (source.type !== 'website' || source.status === 'processing' || source.pages_skipped == null) return null;
  const done = source.pages_done ?? 0;
  let text = `${plural(done, 'page', 'pages')} fetched`;
  if (source.pages_skipped > 0) text += `, ${source.pages_skipped} skipped`;
  if (source.page_cap_hit && source.max_pages)
    text += `; stopped at the limit of ${plural(source.max_pages, 'page', 'pages')}`;
  const reasons = Object.entries(source.pages_skipped_by ?? {})
    .filter(([, n]) => n > 0)
    .map(([reason, n]) => `${n} ${SKIP_REASON_LABELS[reason as keyof typeof SKIP_REASON_LABELS] ?? reason}`);
  return { text, detail: reasons.length ? `Skipped: ${reasons.join(', ')}` : undefined };
}

/** How many passages one read brings (the API allows up to 200). */
export function SourceRow({
  source,
  onDelete,
  onChanged,
}: {
  source: Source;
  onDelete: () => void;
  onChanged: (updated?: Source) => void;
}) {
  const kind =
    source.type === 'file'
      ? (source.file_type ?? 'file').toUpperCase()
      : source.type === 'website'
        ? 'Website'
        : source.type === 'qa'
          ? 'Q&A'
          : 'Text';
  const qa = source.type === 'qa';
  const [editing, setEditing] = useState(false);
  const editButton = useRef<HTMLButtonElement>(null);
  const wasEditing = useRef(false);
  // the form closed (saved or cancelled): focus back on the button that opened it
  useEffect(() => {
    if (wasEditing.current && !editing) editButton.current?.focus();
    wasEditing.current = editing;
  }, [editing]);
  const stopEditing = () => setEditing(false);
  const pages =
    source.type === 'website' && source.pages_found
      ? `${source.pages_done ?? 0} of ${source.pages_found} pages`
      : source.type === 'website' && source.pages_done
        ? `${source.pages_done} pages`
        : null;
  const report = crawlReport(source);
  const [open, setOpen] = useState(false);
  const [crawling, setCrawling] = useState(false);
  const [crawlError, setCrawlError] = useState<string | null>(null);
  const panelId = `passages-${source.id}`;

  const crawlAgain = async () => {
    setCrawling(true);
    setCrawlError(null);
    try {
      const updated = await api<Source>('POST', `/api/sources/${encodeURIComponent(source.id)}/recrawl`);
      toast(`Crawling ${source.name} again`);
      onChanged(updated);
    } catch (err) {
      setCrawlError(errorText(err));
      onChanged(); // a 409: it is being crawled already, which the list now shows
    } finally {
      setCrawling(false);
    }
  };

  return (
    <li class="source" data-status={source.status}>
      <div class="source-main">
        <span class="source-kind">{kind}</span>
        <span class="source-name" title={qa ? (source.qa_question ?? source.name) : source.name}>
          {qa ? (source.qa_question ?? source.name) : source.name}
        </span>
        {source.status === 'processing' && <Badge kind="busy">Processing</Badge>}
        {source.status === 'completed' && <Badge kind="ok">Ready</Badge>}
        {source.status === 'failed' && <Badge kind="bad">Failed</Badge>}
      </div>
      {source.status === 'processing' && (
        <div class="source-progress">
          <ProgressBar value={source.progress} label={`Processing ${source.name}`} />
          <span class="small muted">{pages ?? `${Math.round(source.progress * 100)}%`}</span>
        </div>
      )}
      {source.status === 'failed' && source.error_message && <p class="source-error">{source.error_message}</p>}
      {/* a re-crawl that failed: the source keeps the previous crawl's passages and says why */}
      {source.status === 'completed' && source.error_message && <p class="source-warning">{source.error_message}</p>}
      <p class="small muted">
        {[
          formatDate(source.created_at),
          formatBytes(source.file_size),
          source.status !== 'processing' ? (report?.text ?? pages) : null,
        ]
          .filter(Boolean)
          .join(' · ')}
      </p>
      {report?.detail && <p class="small muted">{report.detail}</p>}
      {source.type === 'website' && source.status !== 'processing' && (
        <SourceSync source={source} onChanged={onChanged} />
      )}
      {source.check_reason && (
        <p class="source-warning">
          <Badge kind="busy">Check this</Badge> {source.check_reason}
        </p>
      )}
      {qa && !editing && source.qa_answer !== undefined && <p class="qa-answer">{source.qa_answer}</p>}
      {editing && (
        <QaEditForm
          source={source}
          onCancel={stopEditing}
          onSaved={(updated) => {
            toast('Q&A saved. The agent uses the new answer from now on.');
            stopEditing();
            onChanged(updated);
          }}
        />
      )}
      <div class="source-actions">
        {qa && !editing && (
          <button
            ref={editButton}
            type="button"
            class="btn btn-small"
            aria-label={`Edit ${source.qa_question ?? source.name}`}
            onClick={() => setEditing(true)}
          >
            Edit
          </button>
        )}
        <button
          type="button"
          class="btn btn-small"
          aria-expanded={open}
          aria-controls={open ? panelId : undefined}
          aria-label={`Passages: ${source.name}`}
          onClick={() => setOpen((o) => !o)}
        >
          {open ? 'Hide passages' : 'Passages'}
        </button>
        {source.type === 'website' && (
          <button
            type="button"
            class="btn btn-small"
            disabled={crawling || source.status === 'processing'}
            aria-label={`Crawl again: ${source.name}`}
            onClick={() => void crawlAgain()}
          >
            {crawling ? 'Starting…' : 'Crawl again'}
          </button>
        )}
        <button type="button" class="btn btn-small" onClick={onDelete} aria-label={`Delete ${source.name}`}>
          Delete
        </button>
      </div>
      {crawlError && <Notice kind="error">{crawlError}</Notice>}
      {open && <Passages source={source} id={panelId} />}
    </li>
  );
}
