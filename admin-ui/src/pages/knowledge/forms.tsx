import { useEffect, useRef, useState } from 'preact/hooks';
import { api, postForm } from '../../api.js';
import type { Source } from '../../types.js';
import { Field, Notice, SubmitButton, inputValue, useSubmit } from '../../ui.js';
import { FIELD_MAX } from '../../field-limits.js';

export function WebsiteForm({ agentId, onAdded }: { agentId: string; onAdded: () => void }) {
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

export function TextForm({ agentId, onAdded }: { agentId: string; onAdded: () => void }) {
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
          maxLength={FIELD_MAX.source.text_name}
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
          maxLength={FIELD_MAX.source.qa_question}
          value={props.question}
          onInput={(e) => props.setQuestion(inputValue(e))}
          placeholder="What are your opening hours?"
        />
      </Field>
      <Field label="Answer">
        <textarea
          ref={props.answerRef}
          required
          maxLength={FIELD_MAX.source.qa_answer}
          rows={4}
          value={props.answer}
          onInput={(e) => props.setAnswer(inputValue(e))}
        />
      </Field>
    </>
  );
}

export function QaForm({ agentId, onAdded }: { agentId: string; onAdded: () => void }) {
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

export function QaEditForm({
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
