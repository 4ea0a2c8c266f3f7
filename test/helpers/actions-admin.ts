import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * A signing secret is shown once: Done closes it, and after a reload `owner` (what the secret
 * belongs to) is back while the secret is nowhere on the page.
 */
export async function secretShownOnce(page: Page, owner: Locator, secret: string): Promise<void> {
  await page.getByRole('button', { name: 'Done' }).click();
  await page.reload();
  await owner.waitFor();
  expect(await page.content()).not.toContain(secret);
}
