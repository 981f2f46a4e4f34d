import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';

// The browser tests' browser: Debian's chromium driven by playwright-core (PITFALLS.md). A test
// that launches it is named *.browser.test.ts (npm run test:browser). Not a *.test.ts file.

export const CHROMIUM = '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM);
export const SKIP_NO_CHROMIUM = HAS_CHROMIUM
  ? false
  : `${CHROMIUM} is missing: run scripts/ensure-chromium.sh to install Debian's chromium`;

/** A fresh headless Chromium with its own throw-away profile directory. */
export async function launchChromium(
  options: { readonly bypassCSP?: boolean } = {},
): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const { chromium } = await import('playwright-core');
  const dir = mkdtempSync(join(tmpdir(), 'ppx-chromium-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
    viewport: { width: 900, height: 900 },
    // Only for injecting axe-core (accessibility.browser.test.ts): the pages allow no script of their own.
    bypassCSP: options.bypassCSP === true,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
