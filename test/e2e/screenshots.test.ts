import { existsSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifactPath, type Browser, launchBrowser, shot } from '../helpers/browser.js';

/**
 * Issue 32: screenshots are artifacts to look at, never checks. On a busy machine one timed out
 * and failed its test; `shot` logs a screenshot that fails and lets the test go on.
 */
describe('artifact screenshots are best effort', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => browser?.close(), 30_000);

  it('writes the picture when it can', async () => {
    const page = await browser.context.newPage();
    await page.setContent('<p>hello</p>');
    rmSync(artifactPath('screenshots-ok.png'), { force: true });
    await shot(page, 'screenshots-ok.png');
    expect(existsSync(artifactPath('screenshots-ok.png'))).toBe(true);
    await page.close();
  });

  it('a screenshot that fails (the page is gone) does not fail the test', async () => {
    const page = await browser.context.newPage();
    await page.close();
    rmSync(artifactPath('screenshots-gone.png'), { force: true });
    await expect(shot(page, 'screenshots-gone.png')).resolves.toBeUndefined();
    expect(existsSync(artifactPath('screenshots-gone.png'))).toBe(false);
  });
});
