// Bundles the widget: widget-<hash>.js (the app, named by a hash of its content so it can be cached
// for a year) and widget.js (the loader the embed snippet names, which points at the hashed file),
// plus manifest.json naming both. Used by scripts/build.mjs and by the test setup.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));

const browserOptions = {
  bundle: true,
  write: false,
  format: 'iife',
  target: ['es2020', 'chrome91', 'firefox90', 'safari15'],
  platform: 'browser',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
};

/** Files are written under a temp name and renamed, so a running server never reads half a file. */
function writeAtomic(file, content) {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, content);
  renameSync(tmp, file);
}

/** Builds into `outDir` (default dist/widget) and returns the manifest. */
export async function buildWidget(outDir = path.join(here, '..', 'dist', 'widget')) {
  mkdirSync(outDir, { recursive: true });
  const app = await build({ ...browserOptions, entryPoints: [path.join(here, 'src', 'main.ts')] });
  const appCode = app.outputFiles[0].contents;
  const hash = createHash('sha256').update(appCode).digest('hex').slice(0, 16);
  const bundle = `widget-${hash}.js`;
  const loader = await build({
    ...browserOptions,
    entryPoints: [path.join(here, 'src', 'loader.ts')],
    define: { __WIDGET_BUNDLE__: JSON.stringify(bundle) },
  });
  writeAtomic(path.join(outDir, bundle), appCode);
  writeAtomic(path.join(outDir, 'widget.js'), loader.outputFiles[0].contents);
  const manifest = { loader: 'widget.js', bundle, hash };
  writeAtomic(path.join(outDir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  // bundles of earlier builds go; the current one is in place before they do
  for (const name of readdirSync(outDir)) {
    if (/^widget-[0-9a-f]+\.js$/.test(name) && name !== bundle) rmSync(path.join(outDir, name), { force: true });
  }
  return manifest;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const m = await buildWidget();
  console.log(JSON.stringify(m));
}
