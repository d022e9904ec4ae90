/**
 * The insight pages (decisions 0230–0234) in Chromium: the home page at each period with its three
 * charts drawn, the search results, the lists with filters and an inline filter error, the
 * invoices and a customer's timeline; each in both languages at a phone's and a desk's width, with
 * no sideways overflow and no axe-core finding (decision 0207). The full route walk of every page
 * is dashboard-pages.test.ts; this file checks the states of these pages that walk does not reach.
 */
import type { Browser } from 'playwright-core';
import { startTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { createMerchantUser } from '../helpers/accounts';
import { launchChromium, openPage } from '../helpers/browser';
import { accessibilityFindings } from '../helpers/accessibility';
import { sidewaysOverflow } from '../helpers/page-checks';
import { until } from '../helpers/until';

let stack: TestStack;
let browser: Browser;
let m: TestMerchant;
const made: Record<string, string> = {};

const card = { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' };

async function ok(p: Promise<{ status: number; body: any }>) {
  const r = await p;
  if (r.status !== 200) throw new Error(`${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

beforeAll(async () => {
  stack = await startTestStack({ realBaseUrl: true });
  browser = await launchChromium();
  m = await stack.merchant('Innsýn ehf.');
  const api = (path: string, json?: unknown, method = 'POST') =>
    stack.api(m.testKey, path, json === undefined ? {} : { method, json });
  await ok(api('/v1/merchant', { kennitala: '4709063520', bank_account: '0101-26-123456' }, 'PATCH'));
  const customer = await ok(
    api('/v1/customers', { name: 'Þórdís Innsýn', email: 'thordis@example.test', kennitala: '0101302989' }),
  );
  made.customer = customer.id;
  const pm = await ok(api('/v1/payment-methods', { card, customer: customer.id }));
  const product = await ok(
    api('/v1/products', {
      name: 'Vikuáskrift með löngu nafni sem brotnar á síma',
      vat_rate: 24,
      default_price_data: { unit_amount: 1990, recurring: { interval: 'week' } },
    }),
  );
  const sub = await ok(
    api('/v1/subscriptions', {
      customer: customer.id,
      price: product.default_price,
      default_payment_method: pm.id,
    }),
  );
  made.subscription = sub.id;
  const invoices = await until(
    () => api(`/v1/invoices?subscription=${sub.id}`, undefined),
    (r) => r.body.data?.length === 1,
  );
  made.invoice = invoices.body.data[0].id;
  made.payment = invoices.body.data[0].payment_intent;
  await ok(api('/v1/refunds', { payment_intent: made.payment, amount: 500 }));
  await ok(api('/v1/payment-intents', { amount: 12_345, card, confirm: true, customer: customer.id }));
  await ok(
    api('/v1/claims', {
      amount: 5000,
      customer: customer.id,
      due_date: new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10),
    }),
  );
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** The pages checked, each with what must be on it. */
const pages = (): [string, string][] => [
  ['/dashboard/home?period=today', '#volume-chart'],
  ['/dashboard/home?period=month', '#mrr-chart'],
  ['/dashboard/search?q=0101302989', '[data-kind="found-customers"]'],
  ['/dashboard/search?q=nothing-like-this', '.empty'],
  ['/dashboard/payments?min=1000&sort=amount_desc', '[data-payment]'],
  ['/dashboard/payments?from=2026-12-10&to=2026-12-01&min=abc', '[data-error="min"]'],
  ['/dashboard/claims?status=issued&due_from=2026-12-10&due_to=2026-12-01', '[data-error="due_to"]'],
  ['/dashboard/invoices', '[data-invoice]'],
  [`/dashboard/invoices/${made.invoice}`, '#invoices-title, dl.facts'],
  [`/dashboard/customers/${made.customer}`, '[data-testid="customer-timeline"]'],
  [`/dashboard/subscriptions/${made.subscription}`, '#invoices-title'],
];

test('home, search, payments with filters, invoices, a customer: both languages at 390 and 1280 px, no overflow, no axe finding', async () => {
  const user = await createMerchantUser(stack.knex, m.id);
  const { page, context, errors, blocked } = await openPage(browser, stack.url);
  await page.goto(`${stack.url}/dashboard/sign-in`);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign in' }).click()]);
  const overflows: string[] = [];
  const findings: Record<string, unknown> = {};
  for (const [path, mark] of pages())
    for (const lang of ['en', 'is'] as const) {
      await page.setViewportSize({ width: 1280, height: 800 });
      const res = await page.goto(`${stack.url}${path}${path.includes('?') ? '&' : '?'}lang=${lang}`);
      const status = path.includes('min=abc') || path.includes('due_to=2026-12-01') ? 400 : 200;
      expect({ path, status: res!.status() }).toEqual({ path, status });
      await page.locator(mark).first().waitFor({ state: 'attached' });
      if (path.startsWith('/dashboard/home'))
        for (const id of ['volume-chart', 'mrr-chart']) await page.waitForSelector(`#${id}[data-drawn="1"]`);
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 800 });
        await page.evaluate(() => new Promise((done) => setTimeout(done, 50)));
        const overflow = await page.evaluate(sidewaysOverflow);
        if (overflow) overflows.push(`${path} (${lang}, ${width} px): ${overflow}`);
        const found = await accessibilityFindings(page, { everyImpact: true, bestPractices: true });
        if (found.length > 0) findings[`${path} (${lang}, ${width} px)`] = found;
      }
    }
  expect(overflows).toEqual([]);
  expect(findings).toEqual({});
  // Only the bad filter's own 400, which the browser logs as a failed load.
  expect(errors.filter((e) => !/status of 400 \(Bad Request\)/.test(e))).toEqual([]);
  expect(blocked).toEqual([]);
  await context.close();
}, 90_000);
