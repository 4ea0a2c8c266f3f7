// Builds the server into dist/main.js (dependencies stay in node_modules).
// The widget and admin UI bundles join this script with their issues.
import { build } from 'esbuild';

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
