import { readFileSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';

/** axe-core's browser build, from the package (no CDN). */
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * The browser contexts that load axe-core into each new document themselves. A context that checks
 * one page usually checks the next: registered once, the 550 kB source crosses the debugging
 * protocol once per context instead of once per page, and the renderer loads it with the document.
 */
const preloading = new WeakSet<BrowserContext>();

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
export function seriousAccessibilityFindings(page: Page): Promise<AxeFinding[]> {
  return accessibilityFindings(page, { everyImpact: false, bestPractices: false });
}

/**
 * axe-core's findings in the page as it is now: WCAG 2.1 A and AA rules, with its best-practice
 * rules when asked, of every impact or only serious and critical ones.
 */
export async function accessibilityFindings(
  page: Page,
  opts: { everyImpact: boolean; bestPractices: boolean },
): Promise<AxeFinding[]> {
  // Evaluated through the debugging protocol, which the pages' Content-Security-Policy does not
  // govern (a <script> tag added to the page would be refused by `script-src 'self'`).
  if (!(await page.evaluate(() => 'axe' in globalThis))) {
    await page.evaluate(AXE_SOURCE);
    if (!preloading.has(page.context())) {
      preloading.add(page.context());
      await page.context().addInitScript({ content: AXE_SOURCE });
    }
  }
  const tags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', ...(opts.bestPractices ? ['best-practice'] : [])];
  const violations = await page.evaluate(async (values) => {
    const axe = (globalThis as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<unknown> } })
      .axe;
    const result = (await axe.run((globalThis as unknown as { document: unknown }).document, {
      runOnly: { type: 'tag', values },
      // Only violations are read. axe still runs every rule on every node, but works out a CSS
      // selector and HTML excerpt for each passing node too unless told this, which on a long page
      // is most of its time (its API documentation, "Performance").
      resultTypes: ['violations'],
    })) as {
      violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
    };
    return result.violations;
  }, tags);
  return violations
    .filter((v) => opts.everyImpact || v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(' ')),
    }));
}
