import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs build script without type declarations
import { serverBuildOptions, workerBuildOptions } from '../../scripts/build.mjs';

/**
 * dist/main.js bundles the server's dependencies and splits off what is imported dynamically
 * (scripts/build.mjs). Whatever main.js imports statically, directly or through shared chunks, is
 * read and evaluated before the first request is answered. These packages cost 35-200 ms each and
 * a server needs none of them to start: they must stay dynamic imports, loaded on first use
 * (platform/lazy.ts), and so live only in chunks main.js reaches through import().
 */
const LOADED_ON_FIRST_USE = ['@anthropic-ai/sdk', '@google/genai', 'openai', 'ollama', 'cheerio', 'nodemailer'];

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
  it('imports the LLM and embedding SDKs, cheerio and nodemailer only on first use', { timeout: 60_000 }, async () => {
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
