// Writes <file>.br (brotli, quality 11, text mode) and <file>.gz (gzip, level 9) next to every
// compressible file of a static bundle directory (dist/widget, dist/admin), so the server sends
// compressed bytes without compressing on each request (src/platform/http/static-file.ts loads
// them and negotiates Accept-Encoding). A variant that is not smaller than the original is not
// written, and one left by an earlier build (of a file that is gone, or whose new variant would not
// be smaller) is removed. Used by scripts/build.mjs and by the test setup; node:zlib only.
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** What is worth compressing: text. Source maps are neither served nor embedded in the executable. */
const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|txt)$/;

const VARIANTS = [
  {
    ext: '.br',
    compress: (bytes) =>
      brotliCompressSync(bytes, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
        },
      }),
  },
  { ext: '.gz', compress: (bytes) => gzipSync(bytes, { level: constants.Z_BEST_COMPRESSION }) },
];

/** Written under a temp name and renamed, so a running server never reads half a file. */
function writeAtomic(file, content) {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, content);
  renameSync(tmp, file);
}

function walk(dir) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...walk(full));
    else if (entry.isFile()) files.push(full);
  }
  return files;
}

/**
 * Precompresses every compressible file under `dir` (recursively). Returns, per file (path
 * relative to `dir`, `/`-separated), its size and the size of each variant written (null when the
 * variant was not smaller than the original and so is not served).
 * @returns {{ file: string, bytes: number, br: number | null, gzip: number | null }[]}
 */
export function precompressDir(dir) {
  const results = [];
  const files = walk(dir);
  for (const file of files) {
    if (!COMPRESSIBLE.test(file)) continue;
    const bytes = readFileSync(file);
    const sizes = {};
    for (const v of VARIANTS) {
      const out = v.compress(bytes);
      if (out.length < bytes.length) {
        writeAtomic(file + v.ext, out);
        sizes[v.ext] = out.length;
      } else {
        rmSync(file + v.ext, { force: true });
        sizes[v.ext] = null;
      }
    }
    results.push({
      file: path.relative(dir, file).split(path.sep).join('/'),
      bytes: bytes.length,
      br: sizes['.br'],
      gzip: sizes['.gz'],
    });
  }
  // variants of files an earlier build wrote and this one removed (an old widget-<hash>.js)
  for (const file of files) {
    const v = VARIANTS.find((x) => file.endsWith(x.ext));
    if (!v) continue;
    const original = file.slice(0, -v.ext.length);
    if (!COMPRESSIBLE.test(original) || !existsSync(original) || !statSync(original).isFile())
      rmSync(file, { force: true });
  }
  return results;
}

/** One result as `name 1234 B (gzip 567 B, br 489 B)`, for the build's summary lines. */
export function formatSizes({ file, bytes, gzip, br }) {
  const size = (n) => (n === null ? 'not smaller' : `${n} B`);
  return `${file} ${bytes} B (gzip ${size(gzip)}, br ${size(br)})`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dirs = process.argv.slice(2);
  if (dirs.length === 0) {
    console.error('usage: node scripts/precompress.mjs <dir>...');
    process.exit(1);
  }
  for (const dir of dirs) for (const r of precompressDir(dir)) console.log(formatSizes(r));
}
