import { useEffect, useRef, useState } from 'preact/hooks';
import { api, get, postForm, uploadFile } from '../api.js';
import type { Agent, Passage, PassagePage, Source } from '../types.js';
import {
  Badge,
  ConfirmDialog,
  EmptyState,
  Field,
  Loading,
  Notice,
  ProgressBar,
  SubmitButton,
  errorText,
  formatBytes,
  formatDate,
  toast,
  useAsync,
  inputValue,
  useSubmit,
} from '../ui.js';

const ACCEPT = '.pdf,.docx,.txt,.xlsx,.csv';
const ALLOWED = /\.(pdf|docx|txt|xlsx|csv)$/i;
const MAX_BYTES = 100 * 1024 * 1024;
/** How often the list is read again while a source is still processing. */
const POLL_MS = 3000;

interface Upload {
  key: number;
  name: string;
  progress: number;
  error: string | null;
}

let uploadSeq = 0;

function Dropzone({ agentId, onUploaded }: { agentId: string; onUploaded: () => void }) {
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [over, setOver] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  const update = (key: number, patch: Partial<Upload>) =>
    setUploads((list) => list.map((u) => (u.key === key ? { ...u, ...patch } : u)));

  const start = async (files: File[]) => {
    // one at a time: the server ingests one by one anyway, and each bar then means something
    for (const file of files) {
      const key = ++uploadSeq;
      setUploads((list) => [...list, { key, name: file.name, progress: 0, error: null }]);
      if (!ALLOWED.test(file.name)) {
        update(key, { error: 'Only PDF, Word (.docx), Excel (.xlsx), CSV and text files can be added.' });
        continue;
      }
      if (file.size > MAX_BYTES) {
        update(key, { error: 'The file is larger than 100 MB.' });
        continue;
      }
      try {
        await uploadFile<Source>(`/api/sources/chatbot/${encodeURIComponent(agentId)}/file`, file, (p) =>
          update(key, { progress: p }),
        ).promise;
        setUploads((list) => list.filter((u) => u.key !== key));
        onUploaded();
      } catch (err) {
        update(key, { error: errorText(err) });
      }
    }
  };

  return (
    <div class="stack">
      <div
        class={over ? 'dropzone over' : 'dropzone'}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          void start(Array.from(e.dataTransfer?.files ?? []));
        }}
      >
        <p>
          <strong>Drop files here</strong> or{' '}
          <button type="button" class="link-button" onClick={() => input.current?.click()}>
            choose files
          </button>
        </p>
        <p class="muted small">PDF, DOCX, XLSX, CSV or TXT, up to 100 MB each</p>
        <input
          ref={input}
          type="file"
          accept={ACCEPT}
          multiple
          class="offscreen"
          aria-label="Upload files"
          onChange={(e) => {
            const files = Array.from(e.currentTarget.files ?? []);
            e.currentTarget.value = '';
            void start(files);
          }}
        />
      </div>
      {uploads.map((u) => (
        <div key={u.key} class="upload-row">
          <span class="upload-name">{u.name}</span>
          {u.error ? (
            <>
              <Notice kind="error">{u.error}</Notice>
              <button
                type="button"
                class="btn btn-small"
                onClick={() => setUploads((l) => l.filter((x) => x.key !== u.key))}
              >
                Dismiss
              </button>
            </>
          ) : (
            <>
              <ProgressBar value={u.progress} label={`Uploading ${u.name}`} />
              <span class="small muted">{Math.round(u.progress * 100)}%</span>
            </>
          )}
        </div>
      ))}
    </div>
  );
}

function WebsiteForm({ agentId, onAdded }: { agentId: string; onAdded: () => void }) {
  const [url, setUrl] = useState('');
  const [maxPages, setMaxPages] = useState('10');
  const [include, setInclude] = useState('');
  const [exclude, setExclude] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    const form = new FormData();
    form.append('url', url.trim());
    form.append('max_pages', maxPages);
    if (include.trim()) form.append('include_paths', include);
    if (exclude.trim()) form.append('exclude_paths', exclude);
    await postForm(`/api/sources/chatbot/${encodeURIComponent(agentId)}/website`, form);
    setUrl('');
    onAdded();
  });
  return (
    <form class="stack" onSubmit={submit} method="post" aria-label="Add a website">
      {error && <Notice kind="error">{error}</Notice>}
      <Field label="Website address">
        <input
          type="url"
          required
          value={url}
          onInput={(e) => setUrl(inputValue(e))}
          placeholder="https://www.example.com/help"
        />
      </Field>
      <div class="grid-3">
        <Field label="Pages at most" hint="1 to 500">
          <input
            type="number"
            min={1}
            max={500}
            required
            value={maxPages}
            onInput={(e) => setMaxPages(inputValue(e))}
          />
        </Field>
        <Field label="Only paths starting with" hint="Comma-separated, e.g. /help, /faq">
          <input value={include} onInput={(e) => setInclude(inputValue(e))} />
        </Field>
        <Field label="Skip paths starting with" hint="e.g. /blog">
          <input value={exclude} onInput={(e) => setExclude(inputValue(e))} />
        </Field>
      </div>
      <div class="actions">
        <SubmitButton busy={busy} label="Add website" busyLabel="Adding…" />
      </div>
    </form>
  );
}

function TextForm({ agentId, onAdded }: { agentId: string; onAdded: () => void }) {
  const [name, setName] = useState('');
  const [content, setContent] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    await api('POST', `/api/sources/chatbot/${encodeURIComponent(agentId)}/text`, { name, content });
    setName('');
    setContent('');
    onAdded();
  });
  return (
    <form class="stack" onSubmit={submit} method="post" aria-label="Add text">
      {error && <Notice kind="error">{error}</Notice>}
      <Field label="Title">
        <input
          required
          maxLength={200}
          value={name}
          onInput={(e) => setName(inputValue(e))}
          placeholder="Opening hours"
        />
      </Field>
      <Field label="Text">
        <textarea required rows={6} value={content} onInput={(e) => setContent(inputValue(e))} />
      </Field>
      <div class="actions">
        <SubmitButton busy={busy} label="Add text" busyLabel="Adding…" />
      </div>
    </form>
  );
}

/** The server's limits for a Q&A source (README "Q&A sources"). */
const MAX_QA_QUESTION = 500;
const MAX_QA_ANSWER = 5000;

/**
 * A question and its answer (a Q&A source, added or edited). The agent puts it ahead of other
 * passages when a visitor's question matches, so the owner's words win over a document's.
 */
function QaFields(props: {
  question: string;
  answer: string;
  setQuestion: (v: string) => void;
  setAnswer: (v: string) => void;
  answerRef?: { current: HTMLTextAreaElement | null };
}) {
  return (
    <>
      <Field label="Question" hint="As visitors would ask it">
        <input
          required
          maxLength={MAX_QA_QUESTION}
          value={props.question}
          onInput={(e) => props.setQuestion(inputValue(e))}
          placeholder="What are your opening hours?"
        />
      </Field>
      <Field label="Answer">
        <textarea
          ref={props.answerRef}
          required
          maxLength={MAX_QA_ANSWER}
          rows={4}
          value={props.answer}
          onInput={(e) => props.setAnswer(inputValue(e))}
        />
      </Field>
    </>
  );
}

function QaForm({ agentId, onAdded }: { agentId: string; onAdded: () => void }) {
  const [question, setQuestion] = useState('');
  const [answer, setAnswer] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    await api('POST', `/api/sources/chatbot/${encodeURIComponent(agentId)}/qa`, { question, answer });
    setQuestion('');
    setAnswer('');
    onAdded();
  });
  return (
    <form class="stack" onSubmit={submit} method="post" aria-label="Add Q&A">
      {error && <Notice kind="error">{error}</Notice>}
      <p class="muted small">
        When a visitor asks this question, the agent answers from what you write here before anything else.
      </p>
      <QaFields question={question} answer={answer} setQuestion={setQuestion} setAnswer={setAnswer} />
      <div class="actions">
        <SubmitButton busy={busy} label="Add Q&A" busyLabel="Adding…" />
      </div>
    </form>
  );
}

function QaEditForm({
  source,
  onSaved,
  onCancel,
}: {
  source: Source;
  onSaved: (updated: Source) => void;
  onCancel: () => void;
}) {
  const [question, setQuestion] = useState(source.qa_question ?? source.name);
  const [answer, setAnswer] = useState(source.qa_answer ?? '');
  const answerRef = useRef<HTMLTextAreaElement>(null);
  useEffect(() => answerRef.current?.focus(), []);
  const { busy, error, submit } = useSubmit(async () => {
    onSaved(await api<Source>('PUT', `/api/sources/${encodeURIComponent(source.id)}/qa`, { question, answer }));
  });
  return (
    <form
      class="stack qa-edit"
      onSubmit={submit}
      method="post"
      aria-label={`Edit Q&A: ${source.qa_question ?? source.name}`}
    >
      {error && <Notice kind="error">{error}</Notice>}
      <QaFields
        question={question}
        answer={answer}
        setQuestion={setQuestion}
        setAnswer={setAnswer}
        answerRef={answerRef}
      />
      <div class="actions">
        <SubmitButton busy={busy} label="Save Q&A" busyLabel="Saving…" />
        <button type="button" class="btn" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

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
const PASSAGES_PER_PAGE = 50;

/** Only http(s) addresses become links (a crawled page's own URL, as the server stored it). */
const httpHref = (url: string | null): string | null => (url && /^https?:\/\//i.test(url) ? url : null);

function PassageItem({ passage }: { passage: Passage }) {
  const href = httpHref(passage.page_url);
  return (
    <li class="passage" data-ordinal={passage.ordinal}>
      <div class="passage-meta">
        {passage.heading && (
          <span class="passage-heading" title="Section">
            {passage.heading}
          </span>
        )}
        {passage.page !== null && <span class="passage-page">Page {passage.page}</span>}
        {passage.title &&
          (href ? (
            <a class="passage-title" href={href} target="_blank" rel="noopener noreferrer">
              {passage.title}
            </a>
          ) : (
            <span class="passage-title">{passage.title}</span>
          ))}
        {!passage.title && href && (
          <a class="passage-title" href={href} target="_blank" rel="noopener noreferrer">
            {passage.page_url}
          </a>
        )}
        <span class="passage-tokens">{plural(passage.token_count, 'token', 'tokens')}</span>
      </div>
      {/* a text node: whatever a document or web page held is shown, never interpreted */}
      <p class="passage-text">{passage.content}</p>
    </li>
  );
}

/**
 * What was extracted from a source, a page at a time. Read again from the start when the source's
 * status changes (a crawl or re-crawl finished), so the list is the one that answers.
 */
function Passages({ source, id }: { source: Source; id: string }) {
  const [items, setItems] = useState<Passage[]>([]);
  const [total, setTotal] = useState<number | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const generation = useRef(0);

  const load = async (offset: number) => {
    const mine = ++generation.current;
    setLoading(true);
    setError(null);
    try {
      const page = await get<PassagePage>(
        `/api/sources/${encodeURIComponent(source.id)}/passages?offset=${offset}&limit=${PASSAGES_PER_PAGE}`,
      );
      if (mine !== generation.current) return;
      setTotal(page.total);
      // a page read while a crawl adds passages may repeat some of the previous one
      setItems((list) => {
        const base = offset === 0 ? [] : list;
        const seen = new Set(base.map((p) => p.id));
        return [...base, ...page.passages.filter((p) => !seen.has(p.id))];
      });
    } catch (err) {
      if (mine !== generation.current) return;
      setError(errorText(err));
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  };

  useEffect(() => {
    void load(0);
    return () => {
      generation.current++; // closed, or the status changed: what is still on its way is dropped
    };
  }, [source.id, source.status]);

  const more = total !== null && items.length < total;
  return (
    <div class="passages" id={id} role="region" aria-label={`Passages of ${source.name}`}>
      {source.status === 'processing' && (
        <p class="small muted">Still processing: this list is read again when it completes.</p>
      )}
      {error && <Notice kind="error">{error}</Notice>}
      {total === null && loading && <Loading label="Loading passages…" />}
      {total !== null && (
        <p class="small muted passages-count">
          {total === 0
            ? 'No passages.'
            : items.length < total
              ? `Showing ${items.length} of ${plural(total, 'passage', 'passages')}`
              : plural(total, 'passage', 'passages')}
        </p>
      )}
      {items.length > 0 && (
        <ol class="passage-list">
          {items.map((p) => (
            <PassageItem key={p.id} passage={p} />
          ))}
        </ol>
      )}
      {(more || (error && total !== null)) && (
        <div class="actions">
          <button type="button" class="btn btn-small" disabled={loading} onClick={() => void load(items.length)}>
            {loading ? 'Loading…' : 'Load more'}
          </button>
        </div>
      )}
    </div>
  );
}

function SourceRow({
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

export function KnowledgeTab({ agent }: { agent: Agent }) {
  const sources = useAsync(() => get<Source[]>(`/api/sources/chatbot/${encodeURIComponent(agent.id)}`), [agent.id]);
  const [adding, setAdding] = useState<'file' | 'website' | 'text' | 'qa'>('file');
  const [deleting, setDeleting] = useState<Source | null>(null);
  const processing = sources.data?.some((s) => s.status === 'processing') ?? false;

  // Read the list again every few seconds only while something is processing, and never after
  // the page is left (timer and listener are removed on unmount). A hidden tab waits until it is
  // shown again; a failed read (a 429, say) is tried again at the next turn.
  useEffect(() => {
    if (!processing || sources.loading) return;
    let wake: (() => void) | null = null;
    const timer = setTimeout(() => {
      if (document.visibilityState !== 'hidden') {
        void sources.reload();
        return;
      }
      wake = () => {
        document.removeEventListener('visibilitychange', wake!);
        wake = null;
        void sources.reload();
      };
      document.addEventListener('visibilitychange', wake);
    }, POLL_MS);
    return () => {
      clearTimeout(timer);
      if (wake) document.removeEventListener('visibilitychange', wake);
    };
  }, [processing, sources.loading, sources.settled]);

  const remove = async () => {
    if (!deleting) return;
    await api('DELETE', `/api/sources/${encodeURIComponent(deleting.id)}`);
    toast(`${deleting.name} was removed`);
    setDeleting(null);
    await sources.reload();
  };

  /** A source changed (a re-crawl started): shown at once as the server answered, then the list is read again. */
  const changed = (updated?: Source) => {
    if (updated && sources.data) sources.setData(sources.data.map((s) => (s.id === updated.id ? updated : s)));
    // and read from the server (a read already on its way may predate the change: it is dropped)
    void sources.reload();
  };

  const added = () => {
    toast('Source added');
    void sources.reload();
  };

  return (
    <div class="stack-lg">
      <section class="card stack">
        <h2>Add knowledge</h2>
        <div class="segmented" role="group" aria-label="Kind of source">
          {(['file', 'website', 'text', 'qa'] as const).map((k) => (
            <button
              key={k}
              type="button"
              class={adding === k ? 'seg active' : 'seg'}
              aria-pressed={adding === k}
              onClick={() => setAdding(k)}
            >
              {k === 'file' ? 'Files' : k === 'website' ? 'Website' : k === 'text' ? 'Text' : 'Q&A'}
            </button>
          ))}
        </div>
        {adding === 'file' && <Dropzone agentId={agent.id} onUploaded={() => void sources.reload()} />}
        {adding === 'website' && <WebsiteForm agentId={agent.id} onAdded={added} />}
        {adding === 'text' && <TextForm agentId={agent.id} onAdded={added} />}
        {adding === 'qa' && <QaForm agentId={agent.id} onAdded={added} />}
      </section>
      <section class="card stack">
        <div class="section-head-row">
          <h2>Sources</h2>
          {processing && <span class="small muted">Updating while processing…</span>}
        </div>
        {sources.error && <Notice kind="error">{sources.error}</Notice>}
        {!sources.data && sources.loading && <Loading />}
        {sources.data && sources.data.length === 0 && (
          <EmptyState>No sources yet. The agent answers from what you add here.</EmptyState>
        )}
        {sources.data && sources.data.length > 0 && (
          <ul class="sources" aria-label="Sources">
            {sources.data.map((s) => (
              <SourceRow key={s.id} source={s} onDelete={() => setDeleting(s)} onChanged={changed} />
            ))}
          </ul>
        )}
      </section>
      {deleting && (
        <ConfirmDialog
          title="Remove this source?"
          confirmLabel="Remove"
          onConfirm={remove}
          onCancel={() => setDeleting(null)}
        >
          <p>“{deleting.name}” and everything learned from it leave the agent's knowledge.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
