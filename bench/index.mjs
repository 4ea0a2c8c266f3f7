// `npm run bench`: each script prints one JSON line per figure. The Benchmarks issue adds the
// HTTP, chat, retrieval and process figures of ARCHITECTURE.md; ingestion is measured already.
import { spawnSync } from 'node:child_process';

const scripts = ['bench/ingest-event-loop.ts', 'bench/analytics.ts'];
let failed = false;
for (const script of scripts) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', script], { stdio: 'inherit' });
  if (run.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
