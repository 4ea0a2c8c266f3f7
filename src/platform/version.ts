import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from './fs/project-root.js';

let cached: string | undefined;
export function appVersion(): string {
  cached ??= (JSON.parse(readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { version: string })
    .version;
  return cached;
}
