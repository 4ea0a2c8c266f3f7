// hnswlib (hnswlib-node, the HNSW library most vector stores embed) as a bench-only baseline: a
// native addon, so it is never a dependency of the project (a failed build must not break
// `npm ci`). The bench installs it into a temporary folder of its own and removes the folder
// afterwards; where it cannot be built, the bench says so and measures against the exact scan.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

const VERSION = '3.0.0';

export interface HnswIndex {
  initIndex(maxElements: number, m?: number, efConstruction?: number, randomSeed?: number): void;
  addPoint(point: number[], label: number): void;
  searchKnn(query: number[], k: number): { distances: number[]; neighbors: number[] };
  setEf(ef: number): void;
}

export interface Hnswlib {
  create(dimensions: number): HnswIndex;
  version: string;
  /** removes the temporary install */
  dispose(): void;
}

/** hnswlib-node built in a temporary folder, or null with the reason printed. */
export function installHnswlib(): Hnswlib | null {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-hnswlib-'));
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const installed = spawnSync(
    npm,
    [
      'install',
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--prefix',
      dir,
      `hnswlib-node@${VERSION}`,
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  try {
    if (installed.status !== 0) throw new Error(installed.stderr.trim().split('\n').slice(-3).join(' | '));
    const require = createRequire(path.join(dir, 'package.json'));
    const { HierarchicalNSW } = require('hnswlib-node') as {
      HierarchicalNSW: new (space: string, dimensions: number) => HnswIndex;
    };
    return {
      create: (dimensions) => new HierarchicalNSW('cosine', dimensions),
      version: VERSION,
      dispose: () => rmSync(dir, { recursive: true, force: true }),
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    console.error(
      `# hnswlib-node could not be installed or loaded (${(err as Error).message}): the baseline is the exact scan`,
    );
    return null;
  }
}
