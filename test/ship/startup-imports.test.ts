import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/server-process.js';

/**
 * dist/main.js keeps packages external (scripts/build.mjs), so each static `import` of a package
 * anywhere in the server is loaded before the first request is answered. These packages cost
 * 35-200 ms each and a server needs none of them to start: they must stay dynamic imports, loaded
 * on first use (platform/lazy.ts). The bundle is made here the way scripts/build.mjs makes it.
 */
const LOADED_ON_FIRST_USE = ['@anthropic-ai/sdk', '@google/genai', 'openai', 'ollama', 'cheerio', 'nodemailer'];

describe('server bundle', () => {
  it('imports the LLM and embedding SDKs, cheerio and nodemailer only on first use', { timeout: 60_000 }, async () => {
    const result = await build({
      absWorkingDir: repoRoot,
      entryPoints: ['src/main.ts'],
      outfile: 'dist/main.js',
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const entry = Object.values(result.metafile.outputs).find((o) => o.entryPoint === 'src/main.ts')!;
    const kinds = (pkg: string) => [...new Set(entry.imports.filter((i) => i.external && i.path === pkg).map((i) => i.kind))];
    for (const pkg of LOADED_ON_FIRST_USE) expect({ pkg, kinds: kinds(pkg) }).toEqual({ pkg, kinds: ['dynamic-import'] });
  });
});
