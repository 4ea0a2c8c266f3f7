// Builds the server into dist/main.js (dependencies stay in node_modules) and the widget into
// dist/widget/ and the admin UI into dist/admin/.
import { build } from 'esbuild';
import { buildWidget } from '../widget/build.mjs';
import { buildAdmin } from './build-admin.mjs';

const nodeOptions = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
};

await build({ ...nodeOptions, entryPoints: ['src/main.ts'], outfile: 'dist/main.js' });

// The document parser runs in worker threads; platform/workers/pool.ts finds this file next to
// dist/main.js and runs it under plain node.
await build({ ...nodeOptions, entryPoints: ['src/platform/workers/parse-worker.ts'], outfile: 'dist/parse-worker.js' });

// The embeddable widget: dist/widget/widget.js (loader), widget-<hash>.js and manifest.json,
// served by src/modules/web.
await buildWidget();

// The admin UI: dist/admin/index.html and assets/main-<hash>.js, app-<hash>.css, served at / by
// src/modules/admin-ui.
const admin = await buildAdmin();
console.log(`admin UI: ${admin.js.file} ${admin.js.bytes} B (${admin.js.gzip} B gzip), ${admin.css.file} ${admin.css.bytes} B (${admin.css.gzip} B gzip)`);
