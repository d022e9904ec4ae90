import type { Browser, Page } from 'playwright-core';
import { launchChromium, openPage, type TestPage } from '../helpers/browser';
import { seriousAccessibilityFindings } from '../helpers/accessibility';
import { sharedTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { FAVICON_SVG } from '../../web/favicon-svg';

/**
 * The hosted checkout's order of payment methods, its field labels and its icon, in headless
 * Chromium at 390 px and 1280 px, in Icelandic and English (decision 0203): the wallets come first,
 * then "or pay by card", the card form and the krafa; a merchant's field shows its label in the
 * page's language, else the other language, else its name made readable; and no resource of a
 * page (the icon included) answers an HTTP error, on the checkout, the portal and the dashboard.
 */

declare const document: any;
declare const Image: any;

const CLAIMANT = '5510730339';
const LOGO = 'https://logo.merkjabudin.test/merki.svg';
const WIDTHS = [390, 1280];

let stack: TestStack;
let browser: Browser;
let m: TestMerchant;
let branded: TestMerchant;

beforeAll(async () => {
  [stack, browser] = await Promise.all([sharedTestStack(), launchChromium()]);
  [m, branded] = await Promise.all([stack.merchant('Veskjabúðin ehf.'), stack.merchant('Merkjabúðin ehf.')]);
  // A kennitala is what a test-mode merchant needs for the checkout to offer a krafa.
  const profile = await stack.api(m.testKey, '/v1/merchant', {
    method: 'PATCH',
    json: { kennitala: CLAIMANT },
  });
  expect(profile.status).toBe(200);
  const theme = await stack.api(branded.testKey, '/v1/merchant/theme/', {
    method: 'PATCH',
    json: { logo_url: LOGO },
  });
  expect(theme.status).toBe(200);
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** The merchant's fields: labels in both languages, Icelandic only, English only, none. */
const FIELDS = [
  { name: 'email', type: 'email', required: true },
  {
    name: 'company_size',
    type: 'text',
    required: false,
    label: { is: 'Stærð fyrirtækis', en: 'Company size (staff)' },
  },
  { name: 'delivery_note', type: 'text', required: false, label: { is: 'Athugasemd við afhendingu' } },
  { name: 'gift_message', type: 'text', required: false, label: { en: 'Gift message', is: null } },
  { name: 'order_ref', type: 'text', required: false },
];

const LABELS = {
  is: {
    email: 'Netfang *',
    company_size: 'Stærð fyrirtækis',
    delivery_note: 'Athugasemd við afhendingu',
    gift_message: 'Gift message',
    order_ref: 'Order ref',
  },
  en: {
    email: 'Email *',
    company_size: 'Company size (staff)',
    delivery_note: 'Athugasemd við afhendingu',
    gift_message: 'Gift message',
    order_ref: 'Order ref',
  },
};

async function createSession(key: string, json: Record<string, unknown>) {
  const r = await stack.api(key, '/v1/checkout/sessions', { method: 'POST', json });
  expect(r.status).toBe(200);
  return r.body as { id: string; url: string };
}

interface Watched extends TestPage {
  /** Every response of status 400 or more, and every request that failed, with its URL. */
  failures: string[];
}

/**
 * A page at `width` that records failed resources; the test fails on any of them or a console error.
 * `intercept: false` opens a context without openPage's request routing, which makes Chromium
 * fail any request for /favicon.ico before it is sent (the test browser's, not the site's, doing);
 * the page then must still reach no origin but ours, which is checked instead of enforced.
 */
async function withPage<T>(
  width: number,
  run: (w: Watched) => Promise<T>,
  { intercept = true }: { intercept?: boolean } = {},
): Promise<T> {
  const opened = intercept ? await openPage(browser, stack.url) : await plainPage();
  const failures: string[] = [];
  opened.page.on('response', (r) => {
    if (r.status() >= 400) failures.push(`${r.status()} ${r.url()}`);
  });
  opened.page.on('requestfailed', (r) => failures.push(`failed ${r.url()} ${r.failure()?.errorText ?? ''}`));
  await opened.page.setViewportSize({ width, height: 900 });
  try {
    const out = await run({ ...opened, failures });
    expect({ failures, errors: opened.errors, blocked: opened.blocked }).toEqual({
      failures: [],
      errors: [],
      blocked: [],
    });
    return out;
  } finally {
    await opened.context.close();
  }
}

/** A page with no request routing; `blocked` lists what it asked of any other origin. */
async function plainPage(): Promise<TestPage> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const blocked: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(stack.url + '/')) blocked.push(r.url());
  });
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  page.on('pageerror', (err) => errors.push(err.message));
  return { context, page, blocked, errors };
}

/** Loads each `<link rel="icon">` as an image in the page (so the page's CSP governs it): its width, 0 if refused. */
async function iconsOf(page: Page): Promise<{ href: string; width: number }[]> {
  const hrefs: string[] = await page
    .locator('link[rel="icon"]')
    .evaluateAll((links: any[]) => links.map((l) => l.href as string));
  const out = [];
  for (const href of hrefs)
    out.push({
      href,
      width: await page.evaluate(
        (src: string) =>
          new Promise<number>((resolve) => {
            const img = new Image();
            img.onload = () => resolve(img.naturalWidth as number);
            img.onerror = () => resolve(0);
            img.src = src;
          }),
        href,
      ),
    });
  return out;
}

const box = async (page: Page, selector: string) => {
  const b = await page.locator(selector).boundingBox();
  if (!b) throw new Error(`${selector} is not shown`);
  return { top: b.y, bottom: b.y + b.height, right: b.x + b.width };
};

test('wallets first, then "or pay by card", the card form and the krafa: 390 px and 1280 px, is and en', async () => {
  const seen: Record<string, unknown> = {};
  for (const locale of ['is', 'en'] as const) {
    const s = await createSession(m.testKey, { amount: 4900, locale, form_fields: FIELDS });
    for (const width of WIDTHS)
      await withPage(width, async ({ page }) => {
        await page.goto(s.url);
        const wallets = await box(page, '[data-testid="wallets"]');
        const divider = await box(page, '[data-testid="pay-by-card-divider"]');
        const card = await box(page, '#card-number');
        const pay = await box(page, '#pay');
        const krafa = await box(page, '#claim-kennitala');
        const walletButtons = page.locator('[data-testid="wallets"] button');
        expect(await walletButtons.count()).toBe(2);
        for (const b of await walletButtons.all()) expect((await b.boundingBox())!.width).toBeGreaterThan(0);
        seen[`${locale}@${width}`] = {
          order: [
            wallets.bottom <= divider.top,
            divider.bottom <= card.top,
            card.bottom <= pay.top,
            pay.bottom <= krafa.top,
          ],
          divider: await page.getByTestId('pay-by-card-divider').innerText(),
          fits: Math.max(wallets.right, divider.right, card.right, pay.right) <= width,
        };
        expect(await seriousAccessibilityFindings(page)).toEqual([]);
      });
  }
  const want = (divider: string) => ({ order: [true, true, true, true], divider, fits: true });
  expect(seen).toEqual({
    'is@390': want('Eða greiða með korti'),
    'is@1280': want('Eða greiða með korti'),
    'en@390': want('Or pay by card'),
    'en@1280': want('Or pay by card'),
  });
});

test("a merchant's field shows its label in the page's language, else the other language, else its name made readable", async () => {
  const labelsOn = async (page: Page) =>
    Object.fromEntries(
      await Promise.all(
        FIELDS.map(async (f) => [f.name, await page.locator(`label[for="f-${f.name}"]`).innerText()]),
      ),
    );
  const seen: Record<string, unknown> = {};
  for (const locale of ['is', 'en'] as const) {
    const s = await createSession(m.testKey, { amount: 2500, locale, form_fields: FIELDS });
    for (const width of WIDTHS)
      await withPage(width, async ({ page }) => {
        await page.goto(s.url);
        seen[`${locale}@${width}`] = await labelsOn(page);
        // The label names its input for assistive technology too.
        const input = page.getByLabel(LABELS[locale].company_size);
        expect(await input.getAttribute('name')).toBe('f_company_size');
      });
  }
  // No session locale: the browser's language decides, and the labels follow it.
  const byBrowser = await createSession(m.testKey, { amount: 2500, form_fields: FIELDS });
  await withPage(390, async ({ page }) => {
    await page.setExtraHTTPHeaders({ 'Accept-Language': 'is-IS,is;q=0.9,en;q=0.5' });
    await page.goto(byBrowser.url);
    seen['browser-is'] = await labelsOn(page);
  });
  expect(seen).toEqual({
    'is@390': LABELS.is,
    'is@1280': LABELS.is,
    'en@390': LABELS.en,
    'en@1280': LABELS.en,
    'browser-is': LABELS.is,
  });
});

test('Enter in a field pays with the card typed, not with the wallet above the card form', async () => {
  // A chosen amount: no promotion-code box, whose button would otherwise be the form's first.
  const s = await createSession(m.testKey, {
    allow_custom_amount: true,
    minimum_amount: 1000,
    locale: 'en',
    form_fields: FIELDS,
  });
  await withPage(390, async ({ page }) => {
    await page.goto(s.url);
    await page.getByLabel('Email *').fill('kaupandi@example.is');
    await page.locator('#card-number').fill('4242 4242 4242 4242');
    await page.locator('#card-exp').fill('12/34');
    await page.locator('#card-cvc').fill('123');
    await page.getByLabel('Order ref').fill('A-17');
    await Promise.all([page.waitForNavigation(), page.getByLabel('Order ref').press('Enter')]);
  });
  const done = (await stack.api(m.testKey, `/v1/checkout/sessions/${s.id}`)).body;
  expect(done).toMatchObject({
    status: 'complete',
    payment_status: 'paid',
    amount: 1000,
    custom_fields: { order_ref: 'A-17' },
  });
  const pi = (await stack.api(m.testKey, `/v1/payment-intents/${done.payment_intent}`)).body;
  expect(pi.payment_method_details.card).toMatchObject({ wallet: null, last4: '4242' });
});

test('every page links an icon that loads, and no resource answers an error: checkout, portal, dashboard', async () => {
  const ours = [
    { href: `${stack.url}/favicon.ico`, width: expect.any(Number) },
    { href: `${stack.url}/favicon.svg`, width: expect.any(Number) },
  ];
  const s = await createSession(m.testKey, { amount: 4900, locale: 'is' });
  const customer = await stack.api(m.testKey, '/v1/customers', {
    method: 'POST',
    json: { name: 'Gunna', email: 'gunna@example.is' },
  });
  // A portal session's link is used once: one per visit.
  const portal = async () => {
    const r = await stack.api(m.testKey, '/v1/billing_portal/sessions', {
      method: 'POST',
      json: { customer: customer.body.id, return_url: 'https://shop.example/account', locale: 'en' },
    });
    expect(r.status).toBe(200);
    return r.body.url as string;
  };
  const pages: Record<string, () => Promise<string> | string> = {
    checkout: () => s.url,
    portal,
    dashboard: () => `${stack.url}/dashboard/sign-in`,
  };
  const seen: Record<string, unknown> = {};
  for (const width of WIDTHS)
    for (const [name, url] of Object.entries(pages))
      await withPage(
        width,
        async ({ page }) => {
          const res = await page.goto(await url());
          expect(res?.status()).toBe(200);
          const icons = await iconsOf(page);
          seen[`${name}@${width}`] = icons;
          for (const icon of icons)
            expect({ ...icon, loaded: icon.width > 0 }).toMatchObject({ loaded: true });
        },
        { intercept: false },
      );
  expect(seen).toEqual(Object.fromEntries(Object.keys(seen).map((k) => [k, ours])));
  expect(Object.keys(seen)).toHaveLength(6);

  // What the browser asks for on its own, whatever the page links.
  const ico = await fetch(`${stack.url}/favicon.ico`);
  const bytes = Buffer.from(await ico.arrayBuffer());
  expect([ico.status, ico.headers.get('content-type'), bytes.readUInt16LE(2)]).toEqual([
    200,
    'image/x-icon',
    1,
  ]);
  const svg = await fetch(`${stack.url}/favicon.svg`);
  expect([svg.status, svg.headers.get('content-type'), await svg.text()]).toEqual([
    200,
    'image/svg+xml; charset=utf-8',
    FAVICON_SVG,
  ]);
});

test("a merchant's checkout with a logo in its theme uses the logo as its icon, within the page's CSP", async () => {
  const s = await createSession(branded.testKey, { amount: 4900, locale: 'en' });
  let logoRequests = 0;
  for (const width of WIDTHS)
    await withPage(width, async ({ page }) => {
      // The logo's host, served here (the test page reaches no other origin).
      await page.route(LOGO, (route) => {
        logoRequests++;
        return route.fulfill({ status: 200, contentType: 'image/svg+xml', body: FAVICON_SVG });
      });
      await page.goto(s.url);
      expect(await iconsOf(page)).toEqual([{ href: LOGO, width: expect.any(Number) }]);
      expect((await iconsOf(page))[0]!.width).toBeGreaterThan(0);
      expect(await page.locator('img.skil-logo').getAttribute('src')).toBe(LOGO);
      expect(await page.evaluate(() => document.querySelector('img.skil-logo').naturalWidth)).toBeGreaterThan(
        0,
      );
    });
  expect(logoRequests).toBeGreaterThan(0);
});
