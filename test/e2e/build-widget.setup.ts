// vitest globalSetup: builds the widget bundle once before any test, so the app (run from src/)
// serves the same files `npm start` would.
// @ts-expect-error plain ESM build script without type declarations
import { buildWidget } from '../../widget/build.mjs';

export default async function setup(): Promise<void> {
  await buildWidget();
}
