// Writes bench/RESULTS.md from the figures in bench/results/*.json and the machine they ran on.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Figure } from './lib.js';

const dir = path.join('bench', 'results');
const order = [
  'http',
  'chat',
  'retrieval',
  'ingest-formats',
  'ingest-event-loop',
  'process',
  'analytics',
  'hostile-inputs',
  'live-streams',
  'soak',
];
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort((a, b) => order.indexOf(a.slice(0, -5)) - order.indexOf(b.slice(0, -5)));
// A phase with no result file here (bench/results/ is not committed: a fresh clone, or a run of
// BENCH_ONLY=...) keeps its section of the RESULTS.md it had, with that run's date.
const resultsFile = path.join('bench', 'RESULTS.md');
const earlier = new Map<string, string>();
if (existsSync(resultsFile)) {
  for (const section of readFileSync(resultsFile, 'utf8')
    .split(/\n(?=## )/)
    .slice(1)) {
    const name = /^## (\S+) \(/.exec(section)?.[1];
    if (name) earlier.set(name, section.trimEnd());
  }
}
const cell = (v: unknown) => (v === undefined || v === null ? '' : String(v).replace(/\|/g, '\\|'));
const lines = [
  '# Benchmark results',
  '',
  'Written by `npm run bench` (bench/report.ts). Each figure stands beside a baseline measured in the same run, so the',
  'ratio holds on a noisy machine. Goals are those of the Benchmarks issue.',
  '',
  `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}, Node ${process.version}.`,
  '',
];
const ran = new Set(files.map((f) => f.slice(0, -5)));
const kept = [...earlier.keys()].filter((name) => !ran.has(name));
for (const name of [...ran, ...kept].sort((a, b) => order.indexOf(a) - order.indexOf(b))) {
  if (!ran.has(name)) {
    lines.push(earlier.get(name)!, '');
    continue;
  }
  const file = `${name}.json`;
  const { at, figures } = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as { at: string; figures: Figure[] };
  lines.push(
    `## ${file.slice(0, -5)} (${at})`,
    '',
    '| figure | value | baseline | ratio | goal | met? |',
    '|---|---|---|---|---|---|',
  );
  for (const f of figures) {
    const unit = f.unit ? ` ${f.unit}` : '';
    const baseline = f.baseline === undefined ? '' : `${f.baseline}${unit} (${f.baseline_of ?? ''})`;
    const met = f.met === undefined ? '' : f.met ? 'yes' : '**no**';
    lines.push(
      `| ${cell(f.figure)} | ${cell(f.value)}${cell(unit)} | ${cell(baseline)} | ${cell(f.ratio)} | ${cell(f.goal)} | ${met} |`,
    );
  }
  lines.push('');
}
writeFileSync(resultsFile, lines.join('\n'));
console.error(
  `wrote bench/RESULTS.md from ${files.length} result files${kept.length ? `, kept the earlier ${kept.join(', ')}` : ''}`,
);
