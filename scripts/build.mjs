// Builds the server into dist/main.js (dependencies stay in node_modules) and the widget into
// dist/widget/. The admin UI bundle joins this script with its issue.
import { build } from 'esbuild';
import { buildWidget } from '../widget/build.mjs';

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
