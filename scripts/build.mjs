// Builds the server into dist/main.js (the Node.js version check, src/entry.mjs) and dist/server.js
// (+ dist/chunk-*.js), the worker threads' tasks into
// dist/worker-tasks.js, the widget into dist/widget/ and the admin UI into dist/admin/.
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildWidget } from '../widget/build.mjs';
import { buildAdmin } from './build-admin.mjs';
import { formatSizes, precompressDir } from './precompress.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');

/**
 * Packages the server imports on first use (src/platform/lazy.ts, the docs app, the terminal log
 * format), not at start: a server needs none of them to start and most use one of them, or none,
 * much later. dist/ keeps each in chunks that only import() reaches (test/ship/startup-imports.test.ts
 * checks it), the single executable in a bundle of its own (scripts/build-sea.mjs).
 */
export const LOADED_ON_FIRST_USE = [
  '@anthropic-ai/sdk',
  '@google/genai',
  'openai',
  'ollama',
  'cheerio',
  'nodemailer',
  '@fastify/swagger',
  '@fastify/swagger-ui',
  'pino-pretty',
  // a booking action's calendar feed (modules/actions): ~140 ms and ~4 MB with its Temporal polyfill
  'node-ical',
  // the Telegram channel (modules/channels): only servers with a connected bot load it
  'grammy',
  // the e-mail channel: only servers with a connected mailbox load its IMAP client and parsers
  'imapflow',
  'mailparser',
  'email-reply-parser',
];

/** Packages with native addons: they stay in node_modules and are loaded from there. */
const NATIVE_PACKAGES = ['better-sqlite3', 'sqlite-vec', '@node-rs/argon2'];

/**
 * The server bundle's esbuild options. Its dependencies are bundled in (all but the native ones):
 * Node 20 resolves and loads hundreds of small ESM/CJS files from node_modules slowly, and one
 * file cut the cold start of `npm start` from about 1.05 s to about 0.65 s on a 2-core box
 * (bench/process.ts). Code splitting keeps what src/platform/lazy.ts loads on first use (the LLM
 * SDKs, cheerio, nodemailer) in chunks of their own, read only when first imported; chunks sit
 * beside main.js so `import.meta.url` means the same directory in every one of them. Not minified:
 * stack traces in the logs stay readable (minifying saved no more than the noise between runs).
 * test/ship/startup-imports.test.ts builds with these options.
 *
 * dist/main.js, what `npm start` and `node dist/main.js` run, is src/entry.mjs: the Node.js version
 * check and then import() of dist/server.js (src/main.ts). The server bundle loads native modules
 * as it is evaluated and Node 20 crashed in one of them, so the check has a file of its own.
 */
export function serverBuildOptions(outdir = dist) {
  return {
    absWorkingDir: root,
    entryPoints: { main: 'src/entry.mjs', server: 'src/main.ts' },
    outdir,
    chunkNames: 'chunk-[hash]',
    splitting: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    external: NATIVE_PACKAGES,
    minifyWhitespace: true,
    sourcemap: true,
    metafile: true,
    logLevel: 'warning',
    banner: {
      // CJS dependencies inside an ESM bundle call require() for Node's built-ins; __bundleDir
      // serves packageDirname() below
      js: [
        "import { createRequire as __createRequire } from 'node:module';",
        "import { dirname as __pathDirname } from 'node:path';",
        "import { fileURLToPath as __fileURLToPath } from 'node:url';",
        'const require = __createRequire(import.meta.url);',
        'const __bundleDir = __pathDirname(__fileURLToPath(import.meta.url));',
      ].join(' '),
    },
    plugins: [packageDirname(outdir), asciiOutput()],
  };
}

/** dist/worker-tasks.js: what the worker threads run (see below). */
export function workerBuildOptions(outdir = dist) {
  return {
    absWorkingDir: root,
    entryPoints: ['src/platform/workers/worker-tasks.ts'],
    outdir,
    entryNames: 'worker-tasks',
    // Split, so each parser (and cheerio, about 30 MB once loaded) enters a thread with its first
    // task of that kind: the threads that only checkpoint the WAL or search keywords stay small.
    splitting: true,
    chunkNames: 'worker-chunk-[hash]',
    metafile: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    packages: 'external',
    sourcemap: true,
    logLevel: 'warning',
    plugins: [asciiOutput()],
  };
}

/**
 * Makes every written .js file pure ASCII. V8 keeps a script's source in the heap, one byte per
 * character only when all of it is Latin-1: a single '…' in a regular expression (esbuild escapes
 * non-ASCII in strings and identifiers, not in regex literals or the comments it keeps) made the
 * 4 MB server bundle a 7.7 MB two-byte string on the idle server's heap. Each UTF-16 unit becomes
 * a \uXXXX escape, which means the same in strings, regular expressions (with or without the u
 * flag, where an escaped surrogate pair is one code point), identifiers and comments; an escape
 * of the character itself (`\…`) drops its backslash. Source-map columns after such a character
 * on its line shift by a few places.
 */
export function asciiOutput() {
  return {
    name: 'ascii-output',
    setup(b) {
      b.onEnd(async (result) => {
        if (result.outputFiles) {
          // write: false (the tests' builds): the files are in memory
          result.outputFiles = result.outputFiles.map((file) => {
            if (!/\.c?js$/.test(file.path) || !/[\u0080-\uffff]/.test(file.text)) return file;
            const contents = new TextEncoder().encode(escapeNonAscii(file.text));
            return { path: file.path, contents, hash: file.hash, text: new TextDecoder().decode(contents) };
          });
          return;
        }
        const { readFile, writeFile } = await import('node:fs/promises');
        for (const file of Object.keys(result.metafile?.outputs ?? {})) {
          if (!/\.c?js$/.test(file)) continue;
          const full = path.resolve(b.initialOptions.absWorkingDir ?? process.cwd(), file);
          const source = await readFile(full, 'utf8');
          if (!/[\u0080-\uffff]/.test(source)) continue;
          await writeFile(full, escapeNonAscii(source));
        }
      });
    },
  };
}

export function escapeNonAscii(source) {
  return source.replace(/(\\*)([\u0080-\uffff])/g, (_, slashes, ch) => {
    // an odd run of backslashes escapes the character itself: that escape becomes \uXXXX
    const kept = slashes.length % 2 === 1 ? slashes.slice(1) : slashes;
    return kept + escapeUnits(ch);
  });
}

function escapeUnits(ch) {
  let out = '';
  for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/**
 * Dependencies that find their own files through __dirname / __filename (the /docs page's assets
 * in @fastify/swagger-ui, @fastify/swagger's package.json, piscina's worker entry): inside the
 * bundle those name the module's file in node_modules, as seen from the bundle's directory.
 */
function packageDirname(outdir) {
  return {
    name: 'package-dirname',
    setup(b) {
      b.onLoad({ filter: /[\\/]node_modules[\\/].*\.c?js$/ }, async (args) => {
        const { readFile } = await import('node:fs/promises');
        const source = await readFile(args.path, 'utf8');
        if (!/\b__(dirname|filename)\b/.test(source)) return undefined;
        const relative = path.relative(outdir, args.path).split(path.sep).join('/');
        const prelude = `var __filename = require('node:path').join(__bundleDir, ${JSON.stringify(relative)}); var __dirname = require('node:path').dirname(__filename);`;
        return { contents: `${prelude}\n${source}`, loader: 'js', resolveDir: path.dirname(args.path) };
      });
    },
  };
}

const isEntry = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isEntry) {
  const server = await build(serverBuildOptions());
  // chunks of earlier builds (their names carry a content hash) go once the new ones are written
  const written = new Set(Object.keys(server.metafile.outputs).map((f) => path.resolve(root, f)));
  for (const name of readdirSync(dist)) {
    if (/^chunk-[A-Z0-9]+\.js(\.map)?$/.test(name) && !written.has(path.join(dist, name)))
      rmSync(path.join(dist, name));
  }

  // What the worker threads run (document parsing, WAL checkpoints, integrity checks, read
  // queries); platform/assets.ts finds this file next to dist/main.js and it runs under plain node. Its packages stay in node_modules: a worker's start
  // is off the server's start path.
  const worker = await build(workerBuildOptions());
  const workerWritten = new Set(Object.keys(worker.metafile.outputs).map((f) => path.resolve(root, f)));
  for (const name of readdirSync(dist)) {
    if (/^worker-chunk-[A-Z0-9]+\.js(\.map)?$/.test(name) && !workerWritten.has(path.join(dist, name)))
      rmSync(path.join(dist, name));
  }

  // The embeddable widget: dist/widget/widget.js (loader), widget-<hash>.js and manifest.json,
  // served by src/modules/web.
  const widget = await buildWidget();

  // The admin UI: dist/admin/index.html and assets/main-<hash>.js, app-<hash>.css, served at / by
  // src/modules/admin-ui.
  const admin = await buildAdmin();

  // Both are served compressed: <file>.br and <file>.gz beside each text file, negotiated per
  // request (src/platform/http/static-file.ts). The sizes printed are what goes over the wire.
  const widgetSizes = precompressDir(path.join(dist, 'widget'));
  const adminSizes = precompressDir(path.join(dist, 'admin'));
  const pick = (sizes, files) =>
    files
      .map((f) => sizes.find((s) => s.file === f))
      .filter(Boolean)
      .map(formatSizes)
      .join(', ');
  console.log(`widget: ${pick(widgetSizes, [widget.loader, widget.bundle])}`);
  console.log(`admin UI: ${pick(adminSizes, ['index.html', `assets/${admin.js.file}`, `assets/${admin.css.file}`])}`);
}
