// vitest globalSetup: builds the widget and admin UI bundles once before any test, and precompresses
// them as scripts/build.mjs does, so the app (run from src/) serves the same files `npm start` would.
import path from 'node:path';
// @ts-expect-error plain ESM build script without type declarations
import { buildWidget } from '../../widget/build.mjs';
// @ts-expect-error plain ESM build script without type declarations
import { buildAdmin } from '../../scripts/build-admin.mjs';
// @ts-expect-error plain ESM build script without type declarations
import { precompressDir } from '../../scripts/precompress.mjs';

const dist = path.resolve(import.meta.dirname, '..', '..', 'dist');

export default async function setup(): Promise<void> {
  await buildWidget();
  await buildAdmin();
  precompressDir(path.join(dist, 'widget'));
  precompressDir(path.join(dist, 'admin'));
}
