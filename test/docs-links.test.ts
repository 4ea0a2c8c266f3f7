import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The README and docs/ link to each other's files and headings; a heading renamed or moved
 * elsewhere leaves a dead link. Every relative link `[text](path#anchor)` must name a file that
 * exists and, with an anchor, a heading of that file (GitHub's anchors: lower case, punctuation
 * dropped, spaces as hyphens, a repeated heading gets -1, -2, ...). Code comments cite a section as
 * `docs/API-NOTES.md "Erasure"`: that page must have a heading, or a bold label, with that text.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pages = [
  'README.md',
  'admin-ui/README.md',
  'widget/README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
].filter((p) => existsSync(join(root, p)));

/** The text outside fenced code blocks and inline code spans. */
function prose(markdown: string): string {
  return markdown.replace(/^ *```[\s\S]*?^ *```/gm, '').replace(/`[^`\n]*`/g, '');
}

function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of prose(markdown).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = m[1]!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\- _]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Relative links of a page (no scheme, no mailto), link text possibly spanning lines. */
function links(markdown: string): string[] {
  const found: string[] = [];
  for (const m of prose(markdown).matchAll(/\]\(([^)\s]+)\)/g)) {
    const link = m[1]!;
    if (!/^[a-z][a-z0-9+.-]*:/i.test(link)) found.push(link);
  }
  return found;
}

describe('README and docs/ links', () => {
  it('finds the pages', () => {
    expect(pages).toContain('README.md');
    expect(pages).toContain('docs/CONFIGURATION.md');
  });

  it.each(pages)('%s: every relative link names a file and heading that exist', (page) => {
    const text = readFileSync(join(root, page), 'utf8');
    const dead: string[] = [];
    for (const link of links(text)) {
      const [path, anchor] = link.split('#', 2);
      const target = path ? join(root, dirname(page), path) : join(root, page);
      if (!existsSync(target)) {
        dead.push(`${link} (no file ${relative(root, target)})`);
        continue;
      }
      if (anchor && target.endsWith('.md') && !anchors(readFileSync(target, 'utf8')).has(anchor)) {
        dead.push(`${link} (no heading #${anchor} in ${relative(root, target)})`);
      }
    }
    expect(dead).toEqual([]);
  });

  it('every `docs/<PAGE>.md "<section>"` cited in the code names a heading or bold label of that page', () => {
    const files = (dir: string): string[] =>
      readdirSync(join(root, dir)).flatMap((name) => {
        const path = `${dir}/${name}`;
        if (statSync(join(root, path)).isDirectory()) return name === 'node_modules' ? [] : files(path);
        return /\.(ts|tsx|mts|mjs|js)$/.test(name) ? [path] : [];
      });
    const code = ['src', 'admin-ui/src', 'widget/src', 'test', 'scripts', 'bench'].filter((d) =>
      existsSync(join(root, d)),
    );
    const dead: string[] = [];
    let cited = 0;
    for (const file of code.flatMap(files)) {
      for (const m of readFileSync(join(root, file), 'utf8').matchAll(/docs\/([A-Z][A-Z-]*\.md) "([^"\n]+)"/g)) {
        cited++;
        const page = join(root, 'docs', m[1]!);
        const text = existsSync(page) ? readFileSync(page, 'utf8') : '';
        const headings = [...text.matchAll(/^#{1,6} +(.+?) *$/gm)].map((h) => h[1]);
        if (!headings.includes(m[2]) && !text.includes(`**${m[2]}**`)) dead.push(`${file}: docs/${m[1]} "${m[2]}"`);
      }
    }
    expect(cited).toBeGreaterThan(0);
    expect(dead).toEqual([]);
  });
});
