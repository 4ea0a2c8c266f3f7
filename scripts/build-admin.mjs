// Bundles the admin UI (admin-ui/) into dist/admin: index.html, which names
// assets/main-<hash>.js and assets/main-<hash>.css (content-hashed, so they can be cached for a
// year while index.html is revalidated on every load). No inline script or style anywhere: the
// page runs under a CSP without 'unsafe-inline'. Used by scripts/build.mjs and the test setup.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = path.join(root, 'admin-ui');

/** Written under a temp name and renamed, so a running server never reads half a file. */
function writeAtomic(file, content) {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, content);
  renameSync(tmp, file);
}

const escapeAttr = (s) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * Builds into `outDir` (default dist/admin). Returns the file names and their sizes (raw and
 * gzipped), which the build prints.
 */
export async function buildAdmin(outDir = path.join(root, 'dist', 'admin')) {
  const assetsDir = path.join(outDir, 'assets');
  mkdirSync(assetsDir, { recursive: true });
  const result = await build({
    entryPoints: [path.join(source, 'src', 'main.tsx'), path.join(source, 'src', 'app.css')],
    bundle: true,
    write: false,
    outdir: assetsDir,
    entryNames: '[name]-[hash]',
    format: 'iife',
    platform: 'browser',
    target: ['es2020', 'chrome91', 'firefox90', 'safari15'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    // no source maps: the page would ask for them only with developer tools open, and the
    // readable source is in the repository
    sourcemap: false,
    legalComments: 'none',
    tsconfig: path.join(source, 'tsconfig.json'),
    logLevel: 'warning',
  });
  const written = [];
  for (const f of result.outputFiles) {
    writeAtomic(f.path, f.contents);
    written.push(path.basename(f.path));
  }
  const js = written.find((n) => /^main-.*\.js$/.test(n));
  const css = written.find((n) => /^app-.*\.css$/.test(n));
  if (!js || !css) throw new Error(`admin UI build: missing output (${written.join(', ')})`);
  const html = readFileSync(path.join(source, 'index.html'), 'utf8')
    .replace('{{CSS}}', `/assets/${escapeAttr(css)}`)
    .replace('{{JS}}', `/assets/${escapeAttr(js)}`);
  writeAtomic(path.join(outDir, 'index.html'), html);
  // the service worker (Web Push): a fixed name at the root, so its scope is the whole admin
  const sw = await build({
    entryPoints: [path.join(source, 'src', 'sw.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: ['es2020', 'chrome91', 'firefox90', 'safari15'],
    minify: true,
    legalComments: 'none',
    tsconfig: path.join(source, 'tsconfig.json'),
    logLevel: 'warning',
  });
  writeAtomic(path.join(outDir, 'sw.js'), sw.outputFiles[0].contents);
  // files of earlier builds go; the current ones are in place before they do
  for (const name of readdirSync(assetsDir)) {
    if (!written.includes(name)) rmSync(path.join(assetsDir, name), { force: true });
  }
  const size = (name) => {
    const bytes = readFileSync(path.join(assetsDir, name));
    return { file: name, bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  };
  return { js: size(js), css: size(css) };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await buildAdmin()));
}
