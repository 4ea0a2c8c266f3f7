// Builds dist/chat-agent: one executable (Node SEA, linux-x64) that runs with no Node.js and no
// node_modules (docs/DEVELOPMENT.md "The single executable and the container"). Steps:
//   1. scripts/build.mjs (the ESM bundles and every static bundle under dist/);
//   2. fully bundled CJS builds of the server and of the worker threads' file (piscina's thread
//      entry with the worker tasks);
//   3. assets: those bundles, package.json (name, version), migrations/, every directory under
//      dist/ (widget/, admin/, ... so a new static bundle needs no change here), and the native
//      addons (better-sqlite3, sqlite-vec, argon2), listed in manifest.json with a content hash;
//   4. the SEA blob, a stripped copy of this node binary, postject.
// At start the executable unpacks the assets to a cache dir named by that hash
// (src/platform/fs/sea-assets.ts) and src/platform/assets.ts points every lookup there.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { asciiOutput, LOADED_ON_FIRST_USE } from './build.mjs';
import { serverNodeFlags } from './node-flags.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(root, 'package.json'));
const output = path.join(root, 'dist', 'chat-agent');
const assetsModule = path.join(root, 'src', 'platform', 'assets.ts');

if (process.platform !== 'linux' || process.arch !== 'x64') {
  throw new Error(`build:sea targets linux-x64 (this is ${process.platform}-${process.arch})`);
}

/**
 * Dependencies that read their own files at run time through __dirname: those files travel as
 * assets under node_modules/<package>/ and __dirname in the package's modules points there.
 */
const PACKAGE_FILES = {
  '@fastify/swagger-ui': ['static'], // the /docs page's scripts and styles
  '@fastify/swagger': ['package.json'],
};

const started = Date.now();
execFileSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });

const work = mkdtempSync(path.join(tmpdir(), 'chat-agent-sea-'));
try {
  /** relative path in the unpacked tree -> file on disk now */
  const files = new Map();

  // --- 2. CJS bundles ---------------------------------------------------------------------------
  const cjs = {
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node24',
    logLevel: 'error',
    // the executable holds its whole server in one script: whitespace-minified and ASCII
    // (build.mjs asciiOutput), V8 keeps it on the heap at one byte a character
    minifyWhitespace: true,
    metafile: true,
    // ESM sources read import.meta.url; in a CJS bundle it comes from the module's file name
    define: { 'import.meta.url': '__importMetaUrl' },
    banner: {
      js: "var __importMetaUrl = typeof __filename === 'string' ? require('node:url').pathToFileURL(__filename).href : 'file:///';",
    },
  };

  await build({
    ...cjs,
    entryPoints: [path.join(root, 'src', 'main.ts')],
    outfile: path.join(work, 'main.cjs'),
    plugins: [
      firstUsePlugin(),
      seaNativesPlugin(),
      piscinaWorkerPathPlugin(),
      packageDirnamePlugin(),
      optionalModulesPlugin(),
      asciiOutput(),
    ],
  });
  // What the server imports on first use (build.mjs LOADED_ON_FIRST_USE) is a CJS bundle of its
  // own, dist/first-use/<name>.cjs among the assets, that the server's script requires from the
  // unpacked dir when the code that imports it first runs (firstUsePlugin). Inside the one script
  // they were about half its 7.6 MB, all of it kept for as long as the server runs: the idle
  // executable was ~15 MB larger than `npm start`, which reads these from chunks of their own.
  for (const pkgName of LOADED_ON_FIRST_USE) {
    const file = firstUseFile(pkgName);
    await build({
      ...cjs,
      stdin: {
        contents: `module.exports = require(${JSON.stringify(pkgName)});`,
        resolveDir: root,
        sourcefile: `sea-${path.basename(file)}-entry.cjs`,
        loader: 'js',
      },
      outfile: path.join(work, file),
      plugins: [packageDirnamePlugin(), optionalModulesPlugin(), asciiOutput()],
    });
    files.set(file, path.join(work, file));
  }

  // The worker threads' files: piscina's thread entry and a pool's task handlers in one bundle,
  // so both use one copy of piscina. With two bundles each had its own private symbols: a reply the
  // handlers wrapped with piscina's move() was not recognised by the thread entry, arrived as {}
  // and every PDF, DOCX, XLSX and CSV job failed. The bundle exports the handlers before the
  // thread entry starts; piscina then loads its task file (this same file) with require(), which
  // returns the module already loaded. worker.cjs has every task (the parsers); db-worker.cjs only
  // the database tasks, for the pools that run nothing else (platform/assets.ts dbWorkerTasksFile).
  const workerBundles = { 'worker.cjs': 'worker-tasks.ts', 'db-worker.cjs': 'db-tasks.ts' };
  for (const [bundle, tasks] of Object.entries(workerBundles)) {
    await build({
      ...cjs,
      stdin: {
        contents: [
          `module.exports = require(${JSON.stringify(path.join(root, 'src', 'platform', 'workers', tasks))});`,
          `require(${JSON.stringify(path.join(path.dirname(require.resolve('piscina')), 'worker.js'))});`,
        ].join('\n'),
        resolveDir: root,
        sourcefile: `sea-${bundle}-entry.cjs`,
        loader: 'js',
      },
      outfile: path.join(work, bundle),
      plugins: [seaNativesPlugin(), optionalModulesPlugin(), asciiOutput()],
    });
    files.set(`dist/${bundle}`, path.join(work, bundle));
  }

  // --- 3. assets --------------------------------------------------------------------------------
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  writeFileSync(path.join(work, 'package.json'), `${JSON.stringify({ name: pkg.name, version: pkg.version })}\n`);
  files.set('package.json', path.join(work, 'package.json'));
  for (const file of walk(path.join(root, 'migrations'))) files.set(path.relative(root, file), file);
  for (const entry of readdirSync(path.join(root, 'dist'), { withFileTypes: true })) {
    if (!entry.isDirectory()) continue; // files at dist/ top level are the ESM bundles of `npm start`
    for (const file of walk(path.join(root, 'dist', entry.name)))
      if (!file.endsWith('.map')) files.set(path.relative(root, file), file);
  }
  for (const [pkgName, entries] of Object.entries(PACKAGE_FILES)) {
    const pkgDir = path.dirname(require.resolve(`${pkgName}/package.json`));
    for (const entry of entries) {
      const full = path.join(pkgDir, entry);
      for (const file of statSync(full).isDirectory() ? walk(full) : [full])
        files.set(path.join('node_modules', pkgName, path.relative(pkgDir, file)), file);
    }
  }
  // better-sqlite3 13 ships its Node-API build for this platform inside the package
  files.set(
    'native/better_sqlite3.node',
    path.join(path.dirname(require.resolve('better-sqlite3/package.json')), 'prebuilds', 'linux-x64.node'),
  );
  files.set('native/vec0.so', require('sqlite-vec').getLoadablePath());
  files.set('native/argon2.node', require.resolve('@node-rs/argon2-linux-x64-gnu'));

  const hash = createHash('sha256');
  const sorted = [...files.keys()].sort();
  for (const rel of sorted)
    hash
      .update(rel)
      .update('\0')
      .update(readFileSync(files.get(rel)))
      .update('\0');
  const manifest = { hash: `${pkg.version}-${hash.digest('hex').slice(0, 16)}`, files: sorted };
  writeFileSync(path.join(work, 'manifest.json'), JSON.stringify(manifest));

  // --- 4. blob and executable -------------------------------------------------------------------
  const assets = { 'manifest.json': path.join(work, 'manifest.json') };
  for (const rel of sorted) assets[`file:${rel}`] = files.get(rel);
  const seaConfig = {
    main: path.join(work, 'main.cjs'),
    output: path.join(work, 'sea-prep.blob'),
    disableExperimentalSEAWarning: true,
    useCodeCache: true,
    // the V8 flags of `npm start` (the memory budget, docs/DEPLOY.md "Memory"), applied as the
    // executable starts; NODE_OPTIONS may still add to them
    execArgv: serverNodeFlags(pkg.scripts.start),
    assets,
  };
  writeFileSync(path.join(work, 'sea-config.json'), JSON.stringify(seaConfig, null, 2));
  quiet(process.execPath, ['--experimental-sea-config', path.join(work, 'sea-config.json')]);

  mkdirSync(path.dirname(output), { recursive: true });
  rmSync(output, { force: true });
  copyFileSync(process.execPath, output);
  chmodSync(output, 0o755);
  try {
    // strip warns about the notes section node ships with; the result runs fine
    execFileSync('strip', [output], { stdio: ['ignore', 'pipe', 'pipe'] });
  } catch {
    console.warn('build:sea: strip failed or is missing, the executable keeps its symbols');
  }
  // postject's ELF library warns about the same notes; its output is shown only when it fails
  quiet(process.execPath, [
    require.resolve('postject/dist/cli.js'),
    output,
    'NODE_SEA_BLOB',
    seaConfig.output,
    '--sentinel-fuse',
    'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
  ]);

  // postject writes the executable with one write of its whole size, and the kernel keeps a file
  // written that way in the page cache in large pieces (folios), each mapped whole into a process
  // that touches any byte of it: run straight after the build, the idle server held ~20 MB more
  // (clean pages of this file) than the same file copied with cp, downloaded or COPY'd into an
  // image (bench/process.ts: ~120 against ~99 MB). Written again in 64 KB writes it is like those.
  rewriteInSmallWrites(output);

  const mb = (statSync(output).size / 1024 / 1024).toFixed(1);
  console.log(
    `build:sea: ${path.relative(root, output)} ${mb} MB, ${sorted.length} assets (${manifest.hash}), ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}

function quiet(command, args) {
  try {
    execFileSync(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    process.stderr.write(`${err.stdout ?? ''}${err.stderr ?? ''}`);
    throw err;
  }
}

/** dist/first-use/<package name with / as __>.cjs */
function firstUseFile(pkgName) {
  return `dist/first-use/${pkgName.replace('/', '__')}.cjs`;
}

/** Imports of LOADED_ON_FIRST_USE packages in the server's script: required from their own bundle. */
function firstUsePlugin() {
  const filter = new RegExp(`^(${LOADED_ON_FIRST_USE.map((p) => p.replace(/[/.-]/g, '\\$&')).join('|')})$`);
  return {
    name: 'sea-first-use',
    setup(b) {
      b.onResolve({ filter }, (args) => ({ path: args.path, namespace: 'sea-first-use' }));
      b.onLoad({ filter: /.*/, namespace: 'sea-first-use' }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(assetsModule)}).seaFirstUseModule(${JSON.stringify(firstUseFile(args.path))});`,
        resolveDir: root,
        loader: 'js',
      }));
    },
  };
}

function rewriteInSmallWrites(file) {
  const tmp = `${file}.tmp`;
  const from = openSync(file, 'r');
  const to = openSync(tmp, 'w', 0o755);
  try {
    const piece = Buffer.alloc(64 * 1024);
    for (let n; (n = readSync(from, piece, 0, piece.length, null)) > 0; ) writeSync(to, piece, 0, n);
  } finally {
    closeSync(from);
    closeSync(to);
  }
  renameSync(tmp, file);
}

function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else if (entry.isFile()) yield full;
  }
}

/**
 * Native addons come from the unpacked assets (platform/assets.ts nativeAddon): inside the
 * executable require() loads built-in modules only. Any other `.node` file is a build error, so a
 * new native dependency cannot slip in unnoticed.
 */
function seaNativesPlugin() {
  const packages = { '@node-rs/argon2-linux-x64-gnu': 'argon2' };
  return {
    name: 'sea-natives',
    setup(b) {
      const filter = new RegExp(
        `^(${Object.keys(packages)
          .map((p) => p.replace(/[/.-]/g, '\\$&'))
          .join('|')})$`,
      );
      b.onResolve({ filter }, (args) => ({ path: args.path, namespace: 'sea-native' }));
      b.onLoad({ filter: /.*/, namespace: 'sea-native' }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(assetsModule)}).nativeAddon(${JSON.stringify(packages[args.path])});`,
        resolveDir: root,
        loader: 'js',
      }));
      b.onLoad({ filter: /.*/, namespace: 'sea-missing' }, missingModule);
      b.onResolve({ filter: /\.node$/ }, (args) => {
        // argon2's loader first tries a .node file beside itself (absent in a package install)
        // (absent in a package install): make that attempt fail inside the bundle, as it would
        if (args.importer.includes(`${path.sep}@node-rs${path.sep}argon2${path.sep}`))
          return { path: args.path, namespace: 'sea-missing' };
        return {
          errors: [{ text: `native addon ${args.path} (from ${args.importer}) is not handled by build-sea.mjs` }],
        };
      });
    },
  };
}

/**
 * Optional helpers dependencies try to load inside try/catch (a native `nice`, faster websocket
 * masking, colour detection). In the bundle the attempt fails as it would without them installed,
 * instead of reaching the executable's built-ins-only require().
 */
function optionalModulesPlugin() {
  return {
    name: 'optional-modules',
    setup(b) {
      b.onResolve({ filter: /^(@napi-rs\/nice|bufferutil|utf-8-validate|supports-color)$/ }, (args) => ({
        path: args.path,
        namespace: 'sea-missing',
      }));
      b.onLoad({ filter: /.*/, namespace: 'sea-missing' }, missingModule);
    },
  };
}

function missingModule(args) {
  return { contents: `throw new Error(${JSON.stringify(`${args.path} is not in the executable`)});`, loader: 'js' };
}

/** See PACKAGE_FILES: __dirname of those packages' modules is their unpacked asset dir. */
function packageDirnamePlugin() {
  const packages = Object.keys(PACKAGE_FILES).map((name) => ({
    name,
    dir: path.dirname(require.resolve(`${name}/package.json`)),
  }));
  return {
    name: 'package-dirname',
    setup(b) {
      b.onLoad({ filter: /[\\/]node_modules[\\/].*\.js$/ }, (args) => {
        const pkg = packages.find((p) => args.path.startsWith(p.dir + path.sep));
        if (!pkg) return undefined;
        const rel = path.join('node_modules', pkg.name, path.relative(pkg.dir, path.dirname(args.path)));
        const source = readFileSync(args.path, 'utf8');
        return {
          contents: `var __dirname = require(${JSON.stringify(assetsModule)}).seaPath(${JSON.stringify(rel)});\n${source}`,
          loader: 'js',
          resolveDir: path.dirname(args.path),
        };
      });
    },
  };
}

/** piscina starts its threads from worker.js beside its own file; in the executable, from the pool's own file (a worker bundle with piscina's thread entry in it). */
function piscinaWorkerPathPlugin() {
  const needle = "(0, node_path_1.resolve)(__dirname, 'worker.js')";
  return {
    name: 'piscina-worker-path',
    setup(b) {
      b.onLoad({ filter: /[\\/]piscina[\\/]dist[\\/]index\.js$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes(needle))
          throw new Error(`piscina changed: ${needle} not found in ${args.path}; update build-sea.mjs`);
        return {
          contents: source.replace(needle, 'this.options.filename'),
          loader: 'js',
          resolveDir: path.dirname(args.path),
        };
      });
    },
  };
}
