import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

// axe-core in a Chromium page (WCAG 2.0/2.1 A and AA rules): injected by the test, in a context
// that bypasses the page's CSP for that alone (launchChromium({ bypassCSP: true })).

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

export interface Violation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: readonly { readonly target: readonly string[] }[];
}

/** Every violation axe finds in the page, each with the elements it found. */
export async function axeViolations(page: Page): Promise<Violation[]> {
  await page.addScriptTag({ path: AXE });
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(o: object): Promise<{ violations: Violation[] }> } })
      .axe;
    const result = await axe.run({
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target })),
    }));
  });
}

/** "id: help (elements)", one line each: what an assertion prints. */
export function violationLines(found: readonly Violation[]): string[] {
  return found.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

/** The serious and critical violations only (what the person-facing views must have none of), as lines. */
export async function seriousViolations(page: Page): Promise<string[]> {
  const found = await axeViolations(page);
  return violationLines(found.filter((v) => v.impact === 'serious' || v.impact === 'critical'));
}
