import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs build script without type declarations
import { escapeNonAscii, LOADED_ON_FIRST_USE, serverBuildOptions, workerBuildOptions } from '../../scripts/build.mjs';

/**
 * dist/main.js bundles the server's dependencies and splits off what is imported dynamically
 * (scripts/build.mjs). Whatever main.js imports statically, directly or through shared chunks, is
 * read and evaluated before the first request is answered. These packages cost 35-200 ms each and
 * a server needs none of them to start: they must stay dynamic imports, loaded on first use
 * (platform/lazy.ts), and so live only in chunks main.js reaches through import().
 */
function packagesIn(output: Metafile['outputs'][string]): Set<string> {
  const names = new Set<string>();
  for (const input of Object.keys(output.inputs)) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match?.[1]) names.add(match[1]);
  }
  return names;
}

/** The output files `entry` loads at its start: itself and what it imports statically, transitively. */
function loadedWith(outputs: Metafile['outputs'], entry: string): Set<string> {
  const loaded = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (loaded.has(file)) continue;
    loaded.add(file);
    for (const imported of outputs[file]!.imports)
      if (imported.kind === 'import-statement' && outputs[imported.path]) pending.push(imported.path);
  }
  return loaded;
}

describe('server bundle', () => {
  it('imports the LLM and embedding SDKs, cheerio, nodemailer, the docs packages and pino-pretty only on first use', {
    timeout: 60_000,
  }, async () => {
    const outdir = mkdtempSync(path.join(tmpdir(), 'server-bundle-'));
    try {
      const result = await build({ ...serverBuildOptions(outdir), write: false, logLevel: 'silent' });
      const outputs = result.metafile!.outputs;
      const entryFile = Object.keys(outputs).find((file) => outputs[file]!.entryPoint === 'src/main.ts')!;

      const atStart = loadedWith(outputs, entryFile);
      const loadedAtStart = new Set([...atStart].flatMap((file) => [...packagesIn(outputs[file]!)]));
      const bundled = new Set(Object.values(outputs).flatMap((output) => [...packagesIn(output)]));

      for (const pkg of LOADED_ON_FIRST_USE) {
        expect({ pkg, bundled: bundled.has(pkg), loadedAtStart: loadedAtStart.has(pkg) }).toEqual({
          pkg,
          bundled: true,
          loadedAtStart: false,
        });
      }
      // the check sees what the server does load at start
      expect(loadedAtStart.has('fastify')).toBe(true);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });
});

/**
 * V8 keeps each script's source on the heap, one byte a character only when all of it is Latin-1:
 * one ellipsis in a regular expression made the 4 MB server bundle a 7.7 MB two-byte string on the
 * idle server's heap. The build escapes what esbuild leaves (regex literals, the comments it keeps).
 */
describe('bundles are ASCII', () => {
  it('every .js file of the server and worker builds', { timeout: 60_000 }, async () => {
    const outdir = mkdtempSync(path.join(tmpdir(), 'ascii-bundle-'));
    try {
      for (const options of [serverBuildOptions(outdir), workerBuildOptions(outdir)]) {
        const result = await build({ ...options, write: false, logLevel: 'silent' });
        const scripts = result.outputFiles!.filter((file) => file.path.endsWith('.js'));
        expect(scripts.length).toBeGreaterThan(1);
        for (const file of scripts) expect(/[\u0080-\uffff]/.exec(file.text)?.[0], file.path).toBeUndefined();
      }
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });

  it('escaped source means the same: strings, regular expressions with and without u, escapes of the character, astral characters', () => {
    const [ellipsis, bang, eAcute, grin] = ['\u2026', '\uff01', '\u00e9', '\u{1F600}'];
    const source = `return [
      /^[.!?${ellipsis}]+$/.test('${ellipsis}!'),
      /[${bang}]/u.test('${bang}'),
      /^\\${eAcute}t\\${eAcute}$/.test('${eAcute}t${eAcute}'),
      /^${grin}$/u.test('${grin}'),
      /^.$/u.test('${grin}'),
      /^[${grin}]$/u.test('${grin}'),
      '${ellipsis} caf\\${eAcute}', // a comment: caf${eAcute}
    ];`;
    const escaped = escapeNonAscii(source);
    expect(/[\u0080-\uffff]/.test(escaped)).toBe(false);
    const run = (code: string) => new Function(code)();
    expect(run(escaped)).toEqual([true, true, true, true, true, true, `${ellipsis} caf${eAcute}`]);
    expect(run(escaped)).toEqual(run(source));
  });
});

/**
 * dist/worker-tasks.js runs in every worker thread: the parser, and the threads that only
 * checkpoint the WAL or run a chat turn's keyword search. Its packages stay external (imported
 * from node_modules), so what a thread loads at its start is what the entry and its static chunks
 * import. The parsers (cheerio alone is about 30 MB once loaded) must come with their first task.
 */
const PARSERS = ['cheerio', 'unpdf', 'mammoth', 'exceljs'];

describe('worker bundle', () => {
  it('a thread loads no parser until its first task of that kind', { timeout: 60_000 }, async () => {
    const outdir = mkdtempSync(path.join(tmpdir(), 'worker-bundle-'));
    try {
      const result = await build({ ...workerBuildOptions(outdir), metafile: true, write: false, logLevel: 'silent' });
      const outputs = result.metafile!.outputs;
      const entryFile = Object.keys(outputs).find((file) => outputs[file]!.entryPoint)!;
      const atStart = loadedWith(outputs, entryFile);
      const importsOf = (kind: string) =>
        new Set(
          [...atStart].flatMap((file) => outputs[file]!.imports.filter((i) => i.kind === kind).map((i) => i.path)),
        );
      // the packages the thread's files import themselves (not bundled: no output of that name)
      const importedAtStart = new Set([...importsOf('import-statement')].filter((p) => !outputs[p]));
      const dynamic = importsOf('dynamic-import');
      for (const pkg of PARSERS) {
        expect({ pkg, atStart: importedAtStart.has(pkg) }).toEqual({ pkg, atStart: false });
      }
      // the check sees the thread's own imports, and the parsers are reached by import()
      expect(importedAtStart.has('piscina')).toBe(true);
      expect(dynamic.has('unpdf')).toBe(true);
      const cheerioLater = Object.entries(outputs).some(
        ([file, output]) => !atStart.has(file) && output.imports.some((i) => i.path === 'cheerio'),
      );
      expect(cheerioLater).toBe(true);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });
});
