import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/**
 * Chromium from the distribution: its headless shell (apt package `chromium-headless-shell`, the
 * same Chromium release without the browser's own windows and UI pages) where installed, as
 * Playwright itself runs headless Chromium; else the full browser (`chromium`). The shell costs a
 * third of the CPU per page (decision 0265). CHROMIUM_PATH overrides.
 */
export const CHROMIUM_PATH =
  process.env.CHROMIUM_PATH ??
  (existsSync('/usr/bin/chromium-headless-shell') ? '/usr/bin/chromium-headless-shell' : '/usr/bin/chromium');

declare global {
  // Set by test/helpers/shared-stack-environment.ts in every test file's global.
  var __skilSharedBrowser: (() => Promise<Browser>) | undefined;
}

/**
 * Chromium for a test file: inside jest, the jest worker's one browser (decision 0200, "One
 * browser"), of which the file sees and closes only the contexts it opened; elsewhere a browser of
 * its own. A launch costs about a CPU-second, which 31 files paid each.
 */
export function launchChromium(): Promise<Browser> {
  return globalThis.__skilSharedBrowser ? globalThis.__skilSharedBrowser() : launchOwnChromium();
}

/** Headless, no sandbox (containers run as root), and no traffic of its own to the internet. */
export function launchOwnChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      // V8 in the pages without its optimising compiler and background threads (decision 0267):
      // each page is thrown away after a few checks, so optimising axe-core's code for it, and
      // collecting its garbage on other threads, cost the renderers a third of their CPU.
      '--js-flags=--single-threaded --no-opt',
    ],
  });
}

export interface TestPage {
  context: BrowserContext;
  page: Page;
  /** Requests to other origins, which are refused (the theme's Google Fonts, for one). */
  blocked: string[];
  /** Console errors, including Content-Security-Policy violations. */
  errors: string[];
}

/**
 * A fresh browser context whose page may only talk to `origin`. `bypassCSP`: for pages whose policy
 * allows no script, when the accessibility check injects axe-core.
 */
export async function openPage(
  browser: Browser,
  origin: string,
  opts: { bypassCSP?: boolean } = {},
): Promise<TestPage> {
  const context = await browser.newContext({ bypassCSP: opts.bypassCSP ?? false });
  const page = await context.newPage();
  const blocked: string[] = [];
  const errors: string[] = [];
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(origin + '/')) return route.continue();
    blocked.push(url);
    return route.abort();
  });
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !/net::ERR_FAILED/.test(msg.text())) errors.push(msg.text());
  });
  page.on('pageerror', (err) => errors.push(err.message));
  return { context, page, blocked, errors };
}

// The browser's document, for the callback that runs inside page.evaluate (no lib "dom" here).
declare const document: {
  activeElement: { innerText?: string; getAttribute(name: string): string | null } | null;
};

/** Presses Tab until the focused element's text is `label` (at most `max` times); proves keyboard reach. */
export async function tabTo(page: Page, label: string, max = 40): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const el = document.activeElement;
      return (el?.innerText || el?.getAttribute('aria-label') || el?.getAttribute('value') || '').trim();
    });
    if (focused === label) return;
  }
  throw new Error(`could not reach "${label}" with the Tab key`);
}

/** Signs in on the sign-in page with the keyboard only: type, Tab, type, Enter. */
export async function signInWithKeyboard(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email').focus();
  await page.keyboard.type(email);
  await page.keyboard.press('Tab');
  await page.keyboard.type(password);
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
}
