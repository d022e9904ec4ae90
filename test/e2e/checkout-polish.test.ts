import type { Browser, Page } from 'playwright-core';
import { launchChromium, openPage } from '../helpers/browser';
import { seriousAccessibilityFindings } from '../helpers/accessibility';
import { sharedTestStack, type TestMerchant, type TestStack } from '../helpers/stack';

/**
 * The hosted checkout's polish found as a user would: a 255-character merchant
 * name without spaces wraps, the Icelandic expiry placeholder, the card field that
 * detects the brand, groups the digits and checks Luhn before submitting, and axe-core finding
 * nothing serious or critical.
 */

declare const document: any;
declare const window: any;

let stack: TestStack;
let browser: Browser;
let m: TestMerchant;
const LONG_NAME = 'Langtnafn'.repeat(28) + 'ehf';

beforeAll(async () => {
  [stack, browser] = await Promise.all([sharedTestStack(), launchChromium()]);
  m = await stack.merchant(LONG_NAME);
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

async function session(extra: Record<string, unknown> = {}) {
  const r = await stack.api(m.testKey, '/v1/checkout/sessions', {
    method: 'POST',
    json: { amount: 4900, ...extra },
  });
  expect(r.status).toBe(200);
  return r.body as { id: string; url: string };
}

async function withPage<T>(width: number, run: (page: Page) => Promise<T>): Promise<T> {
  const { page, context, errors } = await openPage(browser, stack.url);
  await page.setViewportSize({ width, height: 900 });
  try {
    const out = await run(page);
    expect(errors).toEqual([]);
    return out;
  } finally {
    await context.close();
  }
}

test('a 255-character merchant name without spaces: no horizontal scroll at 375 px and 1280 px', async () => {
  expect(LONG_NAME).toHaveLength(255);
  const s = await session({ locale: 'is' });
  for (const width of [375, 1280]) {
    const seen = await withPage(width, async (page) => {
      await page.goto(s.url);
      expect(await page.getByText(LONG_NAME).count()).toBeGreaterThan(0);
      return page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        viewport: window.innerWidth,
      }));
    });
    expect({ width, fits: seen.scrollWidth <= seen.viewport, ...seen }).toMatchObject({
      width,
      fits: true,
      viewport: width,
    });
  }
});

test('the Icelandic card expiry placeholder is MM/ÁÁ, the English MM/YY', async () => {
  const placeholders: Record<string, string | null> = {};
  for (const locale of ['is', 'en']) {
    const s = await session({ locale });
    placeholders[locale] = await withPage(1000, async (page) => {
      await page.goto(s.url);
      return page.locator('#card-exp').getAttribute('placeholder');
    });
  }
  expect(placeholders).toEqual({ is: 'MM/ÁÁ', en: 'MM/YY' });
});

test('the card field detects the brand as typed, groups the digits, and stops a number failing Luhn', async () => {
  const s = await session({ locale: 'en', form_fields: [] });
  await withPage(1000, async (page) => {
    await page.goto(s.url);
    const number = page.locator('#card-number');
    const brand = page.getByTestId('card-brand');
    await number.pressSequentially('4242424242424242');
    expect(await number.inputValue()).toBe('4242 4242 4242 4242');
    expect(await brand.innerText()).toBe('Visa');
    await number.fill('');
    await number.pressSequentially('55554444');
    expect(await brand.innerText()).toBe('Mastercard');
    expect(await number.inputValue()).toBe('5555 4444');
    await number.fill('');
    await number.pressSequentially('378282246310005');
    expect(await brand.innerText()).toBe('American Express');
    expect(await number.inputValue()).toBe('3782 822463 10005');

    // One digit wrong: the page says so and does not submit.
    await number.fill('');
    await number.pressSequentially('4242424242424241');
    await page.locator('#card-exp').fill('12/34');
    await page.locator('#card-cvc').fill('123');
    let posted = 0;
    page.on('request', (r) => {
      if (r.method() === 'POST') posted++;
    });
    await page.locator('#pay').click();
    await expect(page.getByTestId('card-number-error').innerText()).resolves.toBe(
      'Check the card number: it is not a valid card number.',
    );
    expect(await number.getAttribute('aria-invalid')).toBe('true');
    expect(posted).toBe(0);

    // Corrected, it pays.
    await number.fill('');
    await number.pressSequentially('4242424242424242');
    await Promise.all([page.waitForNavigation(), page.locator('#pay').click()]);
    expect(posted).toBe(1);
  });
  expect((await stack.api(m.testKey, `/v1/checkout/sessions/${s.id}`)).body.status).toBe('complete');
});

test('axe-core: no serious or critical findings on the checkout (is and en, phone and desktop)', async () => {
  const found: Record<string, unknown> = {};
  for (const [locale, width] of [
    ['is', 375],
    ['en', 1280],
  ] as const) {
    const s = await session({
      locale,
      form_fields: [
        { name: 'name', type: 'text', required: true },
        { name: 'email', type: 'email', required: true },
      ],
    });
    found[`${locale}@${width}`] = await withPage(width, async (page) => {
      await page.goto(s.url);
      return seriousAccessibilityFindings(page);
    });
  }
  expect(found).toEqual({ 'is@375': [], 'en@1280': [] });
});
