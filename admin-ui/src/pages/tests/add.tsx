import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { FIELD_MAX } from '../../field-limits.js';
import type { Source, TestImport } from '../../types.js';
import { Field, Notice, inputValue, toast, useSubmit } from '../../ui.js';

/** phrases one per line (or separated by `|`), blank ones dropped */
const phrasesOf = (text: string) =>
  text
    .split(/\n|\|/)
    .map((p) => p.trim())
    .filter(Boolean);

/** A test written by hand: the question, what a right answer contains, and optionally its source. */
export function AddTestForm(props: { agentId: string; sources: Source[]; onAdded: () => Promise<void> }) {
  const [question, setQuestion] = useState('');
  const [phrases, setPhrases] = useState('');
  const [sourceId, setSourceId] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    await api('POST', `/api/chatbots/${encodeURIComponent(props.agentId)}/tests`, {
      question,
      expected_phrases: phrasesOf(phrases),
      ...(sourceId ? { expected_source_id: sourceId } : {}),
    });
    setQuestion('');
    setPhrases('');
    setSourceId('');
    toast('Test added');
    await props.onAdded();
  });
  return (
    <section class="card stack" aria-labelledby="add-test-title">
      <h2 id="add-test-title">Add a test</h2>
      <form class="stack" onSubmit={submit} method="post" aria-labelledby="add-test-title">
        {error && <Notice kind="error">{error}</Notice>}
        <Field label="Question" hint="Asked as a visitor would ask it.">
          <input
            required
            maxLength={FIELD_MAX.test.question}
            value={question}
            onInput={(e) => setQuestion(inputValue(e))}
          />
        </Field>
        <Field label="A right answer contains" hint="One phrase per line; case and accents do not matter. Optional.">
          <textarea rows={3} value={phrases} onInput={(e) => setPhrases(inputValue(e))} />
        </Field>
        <Field label="It comes from (optional)">
          <select value={sourceId} onChange={(e) => setSourceId(e.currentTarget.value)}>
            <option value="">Any source</option>
            {props.sources.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        </Field>
        <div class="actions">
          <button type="submit" class="btn btn-primary" disabled={busy}>
            {busy ? 'Adding…' : 'Add test'}
          </button>
        </div>
      </form>
    </section>
  );
}

/**
 * Tests from a CSV file: read here and sent as text. The good rows are added, the others listed
 * with their line.
 */
export function ImportTests(props: { agentId: string; onImported: () => Promise<void> }) {
  const [result, setResult] = useState<TestImport | null>(null);
  const [file, setFile] = useState<File | null>(null);
  const { busy, error, submit } = useSubmit(async () => {
    if (!file) return;
    const imported = await api<TestImport>('POST', `/api/chatbots/${encodeURIComponent(props.agentId)}/tests/import`, {
      csv: await file.text(),
    });
    setResult(imported);
    await props.onImported();
  });
  return (
    <section class="card stack" aria-labelledby="import-tests-title">
      <h2 id="import-tests-title">Import from CSV</h2>
      <form class="stack" onSubmit={submit} method="post" aria-labelledby="import-tests-title">
        {error && <Notice kind="error">{error}</Notice>}
        <Field
          label="CSV file"
          hint="First line: the column names question, expected_phrases (separated by | or ;) and expected_source (a source's name or id)."
        >
          <input
            type="file"
            accept=".csv,text/csv"
            required
            onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
          />
        </Field>
        <div class="actions">
          <button type="submit" class="btn" disabled={busy || !file}>
            {busy ? 'Importing…' : 'Import'}
          </button>
        </div>
      </form>
      {result && (
        <div role="status" class="stack">
          <p>
            {result.imported === 1 ? '1 test imported' : `${result.imported} tests imported`}
            {result.errors.length > 0 ? `; ${result.errors.length} line(s) could not be used:` : '.'}
          </p>
          {result.errors.length > 0 && (
            <ul>
              {result.errors.map((e) => (
                <li key={e.line}>
                  Line {e.line}: {e.detail}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </section>
  );
}
