// Writes bench/RESULTS.md from the figures in bench/results/*.json and the machine they ran on.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
for (const file of files) {
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
writeFileSync(path.join('bench', 'RESULTS.md'), lines.join('\n'));
console.error(`wrote bench/RESULTS.md from ${files.length} result files`);
