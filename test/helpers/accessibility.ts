import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

/** axe-core's browser build, from the package (no CDN). */
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeFinding {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * Runs axe-core in the page as it is now (WCAG 2.1 A and AA rules) and answers its serious and
 * critical findings; a test expects the list to be empty, so a failure names each rule and element.
 */
export async function seriousAccessibilityFindings(page: Page): Promise<AxeFinding[]> {
  // Evaluated through the debugging protocol, which the pages' Content-Security-Policy does not
  // govern (a <script> tag added to the page would be refused by `script-src 'self'`).
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<unknown> } })
      .axe;
    const result = (await axe.run((globalThis as unknown as { document: unknown }).document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    })) as {
      violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
    };
    return result.violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(' ')),
    }));
}
