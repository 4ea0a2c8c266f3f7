import type { Locator } from 'playwright-core';

/** The admin UI's settings sections in a browser test. */

/**
 * Presses Save in the settings section `form` (the form named `name`) and waits for the page's
 * confirmation, "<name> saved".
 */
export async function saveSection(form: Locator, name: string): Promise<void> {
  await form.getByRole('button', { name: 'Save' }).click();
  await form.page().getByText(`${name} saved`).waitFor();
}
