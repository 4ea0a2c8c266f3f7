import { describe, expect, it } from 'vitest';
import { withPageAs } from '../helpers/admin.js';
import { useE2eApp } from '../helpers/e2e.js';

/**
 * The agent's Tests tab (issue 38), in real Chromium against the real app (no model key: the
 * answers are quoted from the knowledge): the owner adds a test question by hand, imports a CSV
 * with a bad line, runs the tests and reads pass and fail with the reason; deleting the source a
 * test depends on makes it fail at the next run, a regression the banner reports; a test is
 * deleted through its dialog.
 */

const e2e = useE2eApp({ owner: true });

describe('the Tests tab', () => {
  it('adds, imports, runs, shows a regression after a source is deleted, and deletes a test', async () => {
    const agent = await e2e.newAgent();
    const source = await e2e.api('POST', `/api/sources/chatbot/${agent.id}/text`, {
      name: 'Warranty',
      content: 'How long is the warranty? The warranty lasts two years from the date of purchase.',
    });

    await withPageAs(e2e.browser.context, e2e.appUrl, e2e.token, `#/agents/${agent.id}/tests`, async (page, errors) => {
      const tabs = page.getByRole('navigation', { name: 'Agent sections' });
      expect(await tabs.getByRole('link', { name: 'Tests' }).getAttribute('aria-current')).toBe('page');
      await page.getByText('No test questions yet.').waitFor();

      // by hand: the question, the phrase, the source
      const add = page.getByRole('region', { name: 'Add a test' });
      await add.getByLabel('Question').fill('How long is the warranty?');
      await add.getByLabel('A right answer contains').fill('two years');
      await add.getByLabel('It comes from (optional)').selectOption({ label: 'Warranty' });
      await add.getByRole('button', { name: 'Add test' }).click();
      const list = page.getByRole('list', { name: 'Test questions' });
      await list.getByText('How long is the warranty?').waitFor();
      await list.getByText('Must contain: “two years” · from “Warranty”').waitFor();

      // a CSV: one good line, one without a question
      const importer = page.getByRole('region', { name: 'Import from CSV' });
      await importer.getByLabel('CSV file').setInputFiles({
        name: 'tests.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from('question,expected_phrases\nDo you ship to Norway?,Norway\n,no question here\n'),
      });
      await importer.getByRole('button', { name: 'Import' }).click();
      await importer.getByText('1 test imported; 1 line(s) could not be used:').waitFor();
      await importer.getByText(/^Line 3: /).waitFor();
      await list.getByText('Do you ship to Norway?').waitFor();

      // run: the warranty passes, the shipping question fails with its reason
      await page.getByRole('button', { name: 'Run tests' }).click();
      await page.getByText(/^Last run: 1 passed, 1 failed/).waitFor();
      const item = (question: string) => list.getByRole('listitem').filter({ hasText: question });
      await item('How long is the warranty?').getByText('Passed', { exact: true }).waitFor();
      await item('Do you ship to Norway?').getByText('Failed', { exact: true }).waitFor();
      expect(await item('Do you ship to Norway?').locator('.test-reason').textContent()).toMatch(/./);
      const runs = page.getByRole('table', { name: 'Test runs' });
      await runs.getByRole('row').nth(1).getByText('By hand, quoted answers').waitFor();

      // the source the warranty test depends on is deleted: it fails now, a regression
      const deleted = await e2e.t.app.inject({
        method: 'DELETE',
        url: `/api/sources/${source.id}`,
        headers: { authorization: `Bearer ${e2e.token}` },
      });
      expect(deleted.statusCode).toBe(204);
      await page.getByRole('button', { name: 'Run tests' }).click();
      await page.getByText(/^Last run: 0 passed, 2 failed, 1 of them passed before/).waitFor();
      expect(await item('How long is the warranty?').locator('.test-reason').textContent()).toMatch(
        /no longer exists|missing/,
      );
      // the runs table is read after the summary: wait for its new row (header and two runs)
      await runs.getByRole('row').nth(2).waitFor();
      expect(await runs.getByRole('row').count()).toBe(3);
      // the banner on every page says so
      await page.reload();
      await page.getByText('A test question that passed before fails now.').waitFor();

      // delete the shipping test through its dialog
      await list.getByRole('button', { name: 'Delete the test “Do you ship to Norway?”' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
      await page.getByText('Test deleted').waitFor();
      await list.getByText('Do you ship to Norway?').waitFor({ state: 'detached' });
      expect(errors).toEqual([]);
    });
  }, 90_000);
});
