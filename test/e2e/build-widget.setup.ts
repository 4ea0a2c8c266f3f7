// vitest globalSetup: builds the widget and admin UI bundles once before any test, so the app (run from src/)
// serves the same files `npm start` would.
// @ts-expect-error plain ESM build script without type declarations
import { buildWidget } from '../../widget/build.mjs';
// @ts-expect-error plain ESM build script without type declarations
import { buildAdmin } from '../../scripts/build-admin.mjs';

export default async function setup(): Promise<void> {
  await buildWidget();
  await buildAdmin();
}
