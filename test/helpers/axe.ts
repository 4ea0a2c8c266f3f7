import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * axe-core in a browser test: its source is evaluated in the page (through the DevTools protocol,
 * so a page's CSP, which refuses inline scripts, does not stop it) and run with the WCAG 2.0 and
 * 2.1 A and AA rules. axe follows open shadow roots: run over the widget's element it checks the
 * widget's own tree.
 */

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[]; summary: string }>;
}

/** The widget's element on a customer's page (its open shadow root is checked with it). */
export const WIDGET = 'chat-agent-widget';

/** axe's violations of the WCAG A and AA rules in `page`, within the elements matching `selector` (the whole page without). */
export async function axeViolations(page: Page, selector?: string): Promise<AxeViolation[]> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(
    async ({ selector, tags }) => {
      const axe = (globalThis as any).axe;
      const results = await axe.run(selector ? { include: [[selector]] } : (globalThis as any).document, {
        runOnly: { type: 'tag', values: tags },
        resultTypes: ['violations'],
      });
      return results.violations.map((v: any) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        nodes: v.nodes.map((n: any) => ({ target: n.target, summary: n.failureSummary ?? '' })),
      }));
    },
    { selector, tags: WCAG_TAGS },
  );
}

/** One line per violation and node: the rule, its impact, the element and axe's summary of what fails. */
export function describeViolations(violations: AxeViolation[]): string {
  return violations
    .flatMap((v) =>
      v.nodes.map((n) => `${v.id} (${v.impact}) ${JSON.stringify(n.target)}: ${n.summary.replace(/\s+/g, ' ')}`),
    )
    .join('\n');
}

/**
 * No violation of impact serious or critical in `page` (within `selector`); `where` names the
 * state checked in the failure message, which lists each violation's id, target and summary.
 */
export async function expectNoSeriousViolations(page: Page, where: string, selector?: string): Promise<void> {
  const serious = (await axeViolations(page, selector)).filter(
    (v) => v.impact === 'serious' || v.impact === 'critical',
  );
  expect(serious.length, `${where}:\n${describeViolations(serious)}`).toBe(0);
}
