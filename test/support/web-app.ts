import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { createSubject } from '../../src/operations/accounts/subjects-and-sessions.ts';
import { DEMO_SUBJECT } from '../../src/operations/seed/demo-profile.ts';
import type { TestProvider } from './provider.ts';

// Shared by the web app's browser tests: the person signs in through the page as a person would,
// and the screenshots go to test-artifacts/app/. Not a *.test.ts file.

export const ARTIFACTS = join(import.meta.dirname, '../../test-artifacts/app');

export const PERSON = { username: 'app-person', password: 'app-person-password-1' };

export async function addPerson(p: TestProvider): Promise<void> {
  const made = await createSubject(p.deps, { ...PERSON, subject_id: DEMO_SUBJECT });
  if (!made.ok) throw new Error(made.error.description);
}

/** Opens /app signed out, signs in on the form it is sent to, and waits for the live view. */
export async function signInToApp(context: BrowserContext, p: TestProvider, path = '/app'): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (e) => {
    throw new Error(`the page failed: ${e.message}`);
  });
  await page.goto(p.url + path);
  await page.fill('#username', PERSON.username);
  await page.fill('#password', PERSON.password);
  await page.click('button[type=submit]');
  await page.waitForURL((url) => url.pathname === path);
  await live(page);
  return page;
}

/** Waits until the page follows the stream (its status says so). */
export async function live(page: Page): Promise<void> {
  await page.waitForSelector('#connection.live');
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** The text a person sees in the page's main part. */
export function shown(page: Page, selector = 'main'): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what the person reads
  return page.innerText(selector);
}

/**
 * Waits until the notices say what matches `said`. An action's notice comes when the action's own
 * answer is in, and the live stream may draw the view again before that (seen in CI: the card was
 * gone while the notices still said the previous action's words), so a test waits for the words
 * rather than reading the notices once.
 */
export async function noticeSays(page: Page, said: RegExp): Promise<void> {
  await page.locator('#notices', { hasText: said }).waitFor();
}

/** Goes to a view by its link in the navigation, as a person would. */
export async function openView(page: Page, title: string): Promise<void> {
  // The navigation names a view in a word or two; its link carries the page's title.
  await page.locator(`nav a[data-title="${title}"]`).click();
  await page.waitForSelector(`h1:text-is("${title}")`);
}
