import type { Server } from 'node:http';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createApp } from '../../api/app';
import { createMetrics } from '../../api/metrics';
import { createLogger } from '../../stack/logger';
import { freePort } from '../../stack/free-port';
import { createMerchantRepository } from '../../db/merchants';
import { createApiKeyRepository } from '../../db/api-keys';
import type { Knex } from '../../db/knex';
import type { WebhookDispatcher } from '../../engine/webhook-dispatch';
import { createTestDatabase, type TestDatabase } from './database';
import { httpAcquirerAt } from '../../adapters/acquirers/http-card-acquirer';
import { startTestAcquirer } from './acquirer';
import { TEST_SECRETS_KEY } from './secrets-key';
import { startTestMail, type MailCatcher } from './mail';

/** Chromium from the distribution (apt package `chromium`); CHROMIUM_PATH overrides. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless, no sandbox (containers run as root), and no traffic of its own to the internet. */
export function launchChromium(): Promise<Browser> {
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
    ],
  });
}

export interface WebStack {
  /** The origin the API believes it is served at, so the URLs it hands out (verification_url) work. */
  url: string;
  knex: Knex;
  db: TestDatabase;
  /** The local mail catcher the API's mail goes to over SMTP (decision 0114). */
  mail: MailCatcher;
  merchant(name?: string): Promise<{ id: string; testKey: string }>;
  stop(): Promise<void>;
}

/**
 * The API on its own database, listening on a port chosen first so that PUBLIC_BASE_URL can be
 * the real address: the browser follows verification_url exactly as the API returns it. No
 * Temporal connection: the flows under test start no workflows.
 */
export async function startWebStack(opts: { allowPrivateRanges?: string[] } = {}): Promise<WebStack> {
  const db = await createTestDatabase();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const noWebhooks: WebhookDispatcher = { wake: () => Promise.resolve() };
  const acquirer = await startTestAcquirer();
  const mail = await startTestMail();
  const app = createApp({
    mailer: mail.mailer,
    knex: db.knex,
    log: createLogger('test-web', process.env.TEST_LOG_LEVEL ?? 'silent'),
    metrics: createMetrics(db.knex),
    temporal: null,
    dispatcher: noWebhooks,
    publicBaseUrl: url,
    bodyLimitBytes: 256 * 1024,
    acquirer: httpAcquirerAt(acquirer.url),
    secretsKey: TEST_SECRETS_KEY,
    checkResponses: true,
    ...(opts.allowPrivateRanges && { webhookAllowPrivateRanges: opts.allowPrivateRanges }),
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(port, '127.0.0.1', () => resolve(s));
  });
  return {
    url,
    knex: db.knex,
    db,
    mail: mail.catcher,
    async merchant(name = 'Browser merchant') {
      const m = await createMerchantRepository(db.knex).create({ name });
      const { secret } = await createApiKeyRepository(db.knex).create({ merchantId: m.id, livemode: false });
      return { id: m.id, testKey: secret };
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await acquirer.stop();
      await mail.stop();
      await db.drop();
    },
  };
}

export interface TestPage {
  context: BrowserContext;
  page: Page;
  /** Requests to other origins, which are refused (the theme's Google Fonts, for one). */
  blocked: string[];
  /** Console errors, including Content-Security-Policy violations. */
  errors: string[];
}

/** A fresh browser context whose page may only talk to `origin`. */
export async function openPage(browser: Browser, origin: string): Promise<TestPage> {
  const context = await browser.newContext();
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
