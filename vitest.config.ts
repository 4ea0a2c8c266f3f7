import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // the widget bundle that src/modules/web serves is built once, before any test file
    globalSetup: ['test/e2e/build-widget.setup.ts'],
    testTimeout: 30_000,
    // the fallback only: every hook names its own timeout
    hookTimeout: 30_000,
    // expect.poll waits up to 10 s (default 1 s) before it fails: on a busy machine a page or a
    // queue can take longer than a second to reach what is asserted; what is asserted is the same
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
    // vitest's default is one file at a time fewer than the cores (one on a 2-core box), and the
    // files spend much of their time waiting on servers, child processes and Chromium: one file per
    // core keeps both cores busy
    maxWorkers: Math.max(2, availableParallelism()),
    // each worker imports the app's modules once for all its files, not once a file (import time
    // 132 -> 12 s on a 2-core box): tests share no module state (each starts its own app on its own
    // DATA_DIR, restores what it sets in process.env, and mocks nothing)
    isolate: false,
  },
});
