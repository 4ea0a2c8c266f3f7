// `npm run bench` (never part of `npm test`): builds dist/ (the server runs from it as `npm start`
// does), runs each script (one JSON line per figure, each beside its baseline from the same run),
// then writes bench/RESULTS.md from bench/results/*.json. BENCH_ONLY=http,chat runs a subset;
// BENCH_SOAK_S shortens the chat soak (default 600 s).
import { spawnSync } from 'node:child_process';

const all = [
  'http',
  'chat',
  'retrieval',
  'ingest-formats',
  'ingest-event-loop',
  'website-sync',
  'process',
  'analytics',
  'hostile-inputs',
  'live-streams',
  'soak',
];
const only = process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(',') : all;
const run = (args) => spawnSync(process.execPath, args, { stdio: 'inherit' }).status === 0;

if (!run(['scripts/build.mjs'])) process.exit(1);
let failed = false;
for (const name of all.filter((n) => only.includes(n))) {
  console.error(`# bench/${name}.ts`);
  if (!run(['--import', 'tsx', `bench/${name}.ts`])) failed = true;
}
if (!run(['--import', 'tsx', 'bench/report.ts'])) failed = true;
process.exit(failed ? 1 : 0);
