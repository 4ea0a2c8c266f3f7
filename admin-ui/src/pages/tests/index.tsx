import { useState } from 'preact/hooks';
import { api, get } from '../../api.js';
import type { Agent, AgentTest, Source, TestRun, TestRunSummary } from '../../types.js';
import {
  Badge,
  ConfirmDialog,
  EmptyState,
  Loading,
  Notice,
  RefreshButton,
  formatDate,
  toast,
  useAsync,
  useSubmit,
} from '../../ui.js';
import { AddTestForm, ImportTests } from './add.js';

/**
 * The agent's test questions (docs/API-NOTES.md "Test questions"): what a right answer must hold,
 * run by hand (Run) or by themselves after every change to the knowledge; a test that passed
 * before and fails now is a regression the owner is told about.
 */
export function TestsTab({ agent }: { agent: Agent }) {
  const base = `/api/chatbots/${encodeURIComponent(agent.id)}/tests` as const;
  const tests = useAsync(() => get<AgentTest[]>(base), [agent.id]);
  const runs = useAsync(() => get<TestRunSummary[]>(`${base}/runs?limit=10`), [agent.id]);
  const sources = useAsync(() => get<Source[]>(`/api/sources/chatbot/${encodeURIComponent(agent.id)}`), [agent.id]);
  const [lastRun, setLastRun] = useState<TestRun | null>(null);
  const [removing, setRemoving] = useState<AgentTest | null>(null);
  const reloadAll = async () => {
    await Promise.all([tests.reload(), runs.reload()]);
  };

  const run = useSubmit(async () => {
    const result = await api<TestRun>('POST', `${base}/run`);
    setLastRun(result);
    toast(`Tests run: ${result.passed} passed, ${result.failed} failed`, result.failed ? 'warning' : 'success');
    await runs.reload();
  });
  const resultOf = (id: string) => lastRun?.results.find((r) => r.test_id === id);

  return (
    <div class="stack-lg">
      <Notice>
        Test questions check that the agent keeps answering right: each says what a right answer must contain, or which
        source it must come from. They run when you press Run and by themselves a minute after the knowledge changes (a
        source added, edited, re-crawled or deleted); a test that passed before and fails now is a regression, and you
        get an e-mail.
      </Notice>
      <section class="card stack" aria-labelledby="tests-title">
        <div class="section-head-row">
          <h2 id="tests-title">Tests</h2>
          <span class="head-actions">
            <RefreshButton onRefresh={reloadAll} busy={tests.loading || runs.loading} />
            <button
              type="button"
              class="btn btn-primary"
              onClick={run.submit}
              disabled={run.busy || !tests.data?.length}
            >
              {run.busy ? 'Running…' : 'Run tests'}
            </button>
          </span>
        </div>
        {run.error && <Notice kind="error">{run.error}</Notice>}
        {lastRun && (
          <p role="status">
            Last run: <strong>{lastRun.passed} passed</strong>, <strong>{lastRun.failed} failed</strong>
            {lastRun.regressions.length > 0 && `, ${lastRun.regressions.length} of them passed before`}
            {lastRun.with_model ? ' (the model answered)' : ' (answers quoted from the knowledge)'}.
          </p>
        )}
        {tests.error && <Notice kind="error">{tests.error}</Notice>}
        {!tests.data && tests.loading && <Loading />}
        {tests.data?.length === 0 && <EmptyState>No test questions yet. Add one below, or import a CSV.</EmptyState>}
        {tests.data && tests.data.length > 0 && (
          <ul class="test-list stack" aria-label="Test questions">
            {tests.data.map((t) => {
              const result = resultOf(t.id);
              return (
                <li key={t.id} class="test-item">
                  <div class="section-head-row">
                    <strong>{t.question}</strong>
                    <span class="head-actions">
                      {result && (
                        <Badge kind={result.passed ? 'ok' : 'bad'}>{result.passed ? 'Passed' : 'Failed'}</Badge>
                      )}
                      <button
                        type="button"
                        class="btn btn-small"
                        onClick={() => setRemoving(t)}
                        aria-label={`Delete the test “${t.question}”`}
                      >
                        Delete
                      </button>
                    </span>
                  </div>
                  <p class="muted">
                    {t.expected_phrases.length > 0
                      ? `Must contain: ${t.expected_phrases.map((p) => `“${p}”`).join(', ')}`
                      : 'No phrase: passes when the agent finds an answer'}
                    {t.expected_source_name && ` · from “${t.expected_source_name}”`}
                  </p>
                  {result && !result.passed && <p class="test-reason">{result.reason}</p>}
                  {result && (
                    <details>
                      <summary>The answer</summary>
                      <p class="test-answer">{result.answer || '(no answer)'}</p>
                    </details>
                  )}
                </li>
              );
            })}
          </ul>
        )}
      </section>
      <AddTestForm agentId={agent.id} sources={sources.data ?? []} onAdded={reloadAll} />
      <ImportTests agentId={agent.id} onImported={reloadAll} />
      <RunHistory runs={runs.data} error={runs.error} />
      <AutoRunSetting agentId={agent.id} />
      {removing && (
        <ConfirmDialog
          title="Delete this test?"
          confirmLabel="Delete"
          onCancel={() => setRemoving(null)}
          onConfirm={async () => {
            await api('DELETE', `${base}/${encodeURIComponent(removing.id)}`);
            setRemoving(null);
            toast('Test deleted');
            await tests.reload();
          }}
        >
          <p>“{removing.question}” will no longer be checked.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}

function RunHistory({ runs, error }: { runs: TestRunSummary[] | undefined; error: string | null }) {
  return (
    <section class="card stack" aria-labelledby="runs-title">
      <h2 id="runs-title">Runs</h2>
      {error && <Notice kind="error">{error}</Notice>}
      {runs?.length === 0 && <EmptyState>No run yet.</EmptyState>}
      {runs && runs.length > 0 && (
        <div class="table-wrap">
          <table class="table" aria-label="Test runs">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">How</th>
                <th scope="col">Passed</th>
                <th scope="col">Failed</th>
                <th scope="col">Regressions</th>
              </tr>
            </thead>
            <tbody>
              {runs.map((r) => (
                <tr key={r.id}>
                  <td>{formatDate(r.finished_at)}</td>
                  <td>
                    {r.trigger === 'auto' ? 'Automatic' : 'By hand'}
                    {r.with_model ? ', the model answered' : ', quoted answers'}
                  </td>
                  <td>{r.passed}</td>
                  <td>{r.failed}</td>
                  <td>{r.regressions.length > 0 ? <Badge kind="bad">{r.regressions.length}</Badge> : 0}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function AutoRunSetting({ agentId }: { agentId: string }) {
  const url = `/api/chatbots/${encodeURIComponent(agentId)}/tests/settings` as const;
  const settings = useAsync(() => get<{ auto_run_with_model: boolean }>(url), [agentId]);
  const [saving, setSaving] = useState(false);
  const change = async (on: boolean) => {
    setSaving(true);
    try {
      settings.setData(await api<{ auto_run_with_model: boolean }>('PUT', url, { auto_run_with_model: on }));
      toast(on ? 'Automatic runs now ask the model' : 'Automatic runs judge the quoted answers');
    } catch {
      toast('The setting could not be saved', 'error');
    } finally {
      setSaving(false);
    }
  };
  return (
    <section class="card stack" aria-labelledby="auto-run-title">
      <h2 id="auto-run-title">Automatic runs</h2>
      {settings.error && <Notice kind="error">{settings.error}</Notice>}
      <label class="check">
        <input
          type="checkbox"
          checked={settings.data?.auto_run_with_model ?? false}
          disabled={!settings.data || saving}
          onChange={(e) => void change(e.currentTarget.checked)}
        />
        Ask the model in automatic runs (each test is a request to your provider: it costs money). Off: automatic runs
        judge the answer quoted from the knowledge.
      </label>
    </section>
  );
}
