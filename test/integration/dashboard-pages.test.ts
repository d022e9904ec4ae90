import type { Browser, Page } from 'playwright-core';
import { startTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { createOperator, type TestUser } from '../helpers/accounts';
import { randomBase62 } from '../../domain/ids';
import { launchChromium, openPage, signInWithKeyboard, tabTo } from '../helpers/browser';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { accessibilityFindings } from '../helpers/accessibility';
import { until } from '../helpers/until';
import { setPos } from '../helpers/pos';
import { dashboardRoutes } from '../../web/dashboard';
import { sidewaysOverflow } from '../helpers/page-checks';

/**
 * A merchant signs up on the dashboard, makes data through the API, the operator API and the
 * simulated acquirer and bank (payments, a refund, a dispute, a customer, a subscription, a krafa, a
 * settlement run and its payout); then every dashboard page route, read from the router itself, is
 * visited in Chromium in both languages at three widths (decision 0207). A keyboard-only walk signs
 * in, creates a payment link and refunds a payment.
 */

let stack: TestStack;
let browser: Browser;
let m: Pick<TestMerchant, 'id' | 'testKey'>;
let owner: TestUser;
let operator: TestUser & { token: string };

const card = { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' };
const api = (path: string, json?: unknown, method = 'POST') =>
  stack.api(m.testKey, path, json === undefined ? {} : { method, json });
const dayAhead = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  stack = await startTestStack({ bankFiles: true, realBaseUrl: true });
  browser = await launchChromium();
  // The merchant signs up on the dashboard's own page and takes its test key from the page.
  owner = {
    id: '',
    email: `owner-${randomBase62(8).toLowerCase()}@example.test`,
    password: `pw-${randomBase62(20)}`,
  };
  const signUp = await openPage(browser, stack.url);
  await signUp.page.goto(`${stack.url}/dashboard/sign-up`);
  await signUp.page.getByLabel('Business name').fill('Síður ehf.');
  await signUp.page.getByLabel('Email').fill(owner.email);
  await signUp.page.getByLabel('Password').fill(owner.password);
  await Promise.all([signUp.page.waitForNavigation(), signUp.page.keyboard.press('Enter')]);
  const testKey = (await signUp.page.getByTestId('test-key').innerText()).trim();
  await signUp.context.close();
  const me = await stack.api(testKey, '/v1/merchant');
  expect(me.status).toBe(200);
  m = { id: me.body.id as string, testKey };
  operator = await createOperator(stack.knex);
  // Something on every list, through the API as a merchant would make it.
  expect(
    (
      await api(
        '/v1/merchant',
        {
          kennitala: '4709063520',
          bank_account: '0101-26-123456',
          legal_address: { street: 'Laugavegur 1', city: 'Reykjavík', postalCode: '101', country: 'IS' },
        },
        'PATCH',
      )
    ).status,
  ).toBe(200);
  const product = await api('/v1/products', {
    name: 'Mánaðaráskrift',
    vat_rate: 24,
    default_price_data: { unit_amount: 2990, recurring: { interval: 'month' } },
  });
  await api(`/v1/products/${product.body.id}/variants`, { name: 'Stór', unit_amount: 3990 });
  await api('/v1/products', { name: 'Bolli', vat_rate: 24, default_price_data: { unit_amount: 1500 } });
  // A business buyer, so the invoice's UBL download exists (decision 0210).
  const customer = await api('/v1/customers', {
    name: 'Guðrún',
    email: 'gudrun@example.test',
    kennitala: '4101692659',
    address: { line1: 'Hverfisgata 4', postal_code: '101', city: 'Reykjavík', country: 'IS' },
  });
  const pm = await api('/v1/payment-methods', { card, customer: customer.body.id });
  const sub = await api('/v1/subscriptions', {
    customer: customer.body.id,
    price: product.body.default_price,
    default_payment_method: pm.body.id,
  });
  expect(sub.status).toBe(200);
  const paid: string[] = [];
  for (const amount of [4900, 12000]) {
    const intent = await api('/v1/payment-intents', {
      amount,
      card,
      confirm: true,
      customer: customer.body.id,
    });
    expect(intent.body.status).toBe('succeeded');
    paid.push(intent.body.id as string);
  }
  // One of them partly refunded: named, not the newest on the list, which may be the subscription's
  // first charge when its workflow runs late.
  const refunded = paid[1]!;
  expect((await api('/v1/refunds', { payment_intent: refunded, amount: 1000 })).status).toBe(200);
  // The newest payment is disputed by the acquirer (decision 0155): the payment page visited below
  // is the first on the list, so its dispute section and evidence form get the accessibility check.
  const disputed = await api('/v1/payment-intents', {
    amount: 3000,
    card: { ...card, number: '4000000000000259' },
    confirm: true,
    customer: customer.body.id,
  });
  await until(
    () => api(`/v1/disputes?payment_intent=${disputed.body.id}`),
    (r) => r.body.data?.length === 1,
    20_000,
  );
  expect(
    (await api('/v1/claims', { payer_kennitala: '0101302989', amount: 5000, due_date: dayAhead(20) })).status,
  ).toBe(200);
  // A channel for the webhook pages to list and open; it subscribes to test events only, and none is sent.
  expect(
    (
      await api('/v1/notification-channels', {
        type: 'webhook',
        config: { url: 'http://127.0.0.1:9/skil' },
        event_subscriptions: ['debug.check'],
      })
    ).status,
  ).toBe(200);
  // A register, so the tills page shows its pairing form.
  await setPos(stack, m.id, true);
  expect((await api('/v1/pos/registers', { name: 'Kassi 1', location: 'Laugavegur 1' })).status).toBe(200);
  const day = await stack.api(operator.token, '/v1/operator/settlement-days', { method: 'POST', json: {} });
  expect(day.status).toBe(200);
  await until(
    () => api('/v1/settlement-runs'),
    (r) => r.body.data.length > 0 && r.body.data[0].status !== 'open',
    30_000,
  );
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

async function signIn(page: Page, u: TestUser): Promise<void> {
  await page.goto(`${stack.url}/dashboard/sign-in`);
  await page.getByLabel('Email').fill(u.email);
  await page.getByLabel('Password').fill(u.password);
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign in' }).click()]);
}

/**
 * Routes this file does not reach, each with why; the test fails if one stops being a route, so the
 * list cannot go stale. A bank file exists only once bank sync has fetched a statement.
 */
const NOT_VISITED: Record<string, string> = {
  '/dashboard/finance/bank-files/:id':
    'an operator page that needs a bank statement file fetched by bank sync',
  '/dashboard/invoices/:id/credit-notes/:note':
    "a credit note's UBL download; this file's refund is of a payment with no invoice (dashboard-invoices.test.ts fetches one)",
};

/** Every page at a phone's, a tablet's and a desk's width, in both languages (decision 0207). */
const WIDTHS = [1280, 768, 390] as const;
const LANGUAGES = ['en', 'is'] as const;
/**
 * Where each page's screenshot is written, one folder per language and width (docs/guides/developing.md, "The tests"), when
 * SKIL_TEST_SCREENSHOTS is set: they are for a person to look at, and their 345 full-page encodings
 * cost a sixth of this file's CPU in every run that nobody looks at.
 */
const SCREENSHOTS = process.env.SKIL_TEST_SCREENSHOTS
  ? join(__dirname, '..', 'artifacts', 'dashboard-pages')
  : null;

/** Routes that are downloads, by how their path ends, and the type each answers with. */
const DOWNLOADS: [string, string][] = [
  ['.csv', 'text/csv; charset=utf-8'],
  ['.pdf', 'application/pdf'],
  ['.xml', 'application/xml; charset=utf-8'],
];

const TOKEN_PAGES = [
  '/dashboard/verify-email',
  '/dashboard/invitation',
  '/dashboard/reset-password',
  '/dashboard/payout-account/confirm',
];

/** Who visits a route: signed out for sign-in, the operator for operator pages, else the owner. */
const visitorOf = (path: string): 'anonymous' | 'operator' | 'owner' =>
  [
    '/dashboard/sign-in',
    '/dashboard/sign-up',
    '/dashboard/reset-password',
    '/dashboard/invitation',
    '/dashboard/payout-account/confirm',
  ].includes(path)
    ? 'anonymous'
    : /^\/dashboard\/(operator|finance)(\/|$)/.test(path)
      ? 'operator'
      : 'owner';

/** Fills a route's `:id` from the first link to such a page on its parent list page. */
async function concretePath(page: Page, route: string): Promise<string> {
  const at = route.indexOf('/:');
  if (at < 0) return route;
  const parent = route.slice(0, at);
  const parentPage = parent.replace(/\/runs$/, '').replace(/\/merchants$/, '');
  // The platform's finance pages show live data unless asked for test (this file's data is test).
  const env = parentPage.startsWith('/dashboard/finance') ? '?env=test' : '';
  await page.goto(`${stack.url}${parentPage}${env}`);
  const hrefs = await page
    .locator('a[href]')
    .evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
  const id = hrefs
    .map((h) => (h.startsWith(`${parent}/`) ? h.slice(parent.length + 1).split(/[/?#]/)[0]! : ''))
    .find((s) => /^[a-z]+_[0-9A-Za-z]+$/.test(s));
  // The operator's list shows submitted applications only; this merchant's page is reached by its id.
  if (!id && route === '/dashboard/operator/merchants/:id') return route.replace(':id', m.id);
  // The finance overview shows live runs by default; the test run is reached by its id.
  if (!id && route === '/dashboard/finance/runs/:id')
    return `${route.replace(':id', (await api('/v1/settlement-runs')).body.data[0].id as string)}?env=test`;
  if (!id) throw new Error(`no page links to ${route} from ${parentPage}: give the test data for it`);
  return route.replace(/:[^/]+/, id) + env;
}

test('every page route of the router, at three widths in both languages: no sideways overflow, no axe-core finding', async () => {
  const routes = dashboardRoutes()
    .filter((r) => r.method === 'get')
    .map((r) => r.path);
  expect(routes).toEqual(
    expect.arrayContaining(['/dashboard/home', '/dashboard/payments/:id', '/dashboard/settlement']),
  );
  const sessions = {
    anonymous: await openPage(browser, stack.url),
    owner: await openPage(browser, stack.url),
    operator: await openPage(browser, stack.url),
  };
  await signIn(sessions.owner.page, owner);
  await signIn(sessions.operator.page, operator);
  const visited: string[] = [];
  const findings: Record<string, unknown> = {};
  const overflows: string[] = [];
  const untranslated: string[] = [];
  for (const lang of LANGUAGES)
    for (const width of WIDTHS)
      if (SCREENSHOTS) await mkdir(join(SCREENSHOTS, `${lang}-${width}`), { recursive: true });
  for (const route of routes) {
    if (route in NOT_VISITED) continue;
    const { page } = sessions[visitorOf(route)];
    const path = await concretePath(page, route);
    const download = DOWNLOADS.find(([ending]) => path.split('?')[0]!.endsWith(ending));
    if (download) {
      // A download, not a page: fetched with the same session, as the browser's download would be.
      const file = await page.context().request.get(`${stack.url}${path}`);
      expect({ route, status: file.status(), type: file.headers()['content-type'] }).toEqual({
        route,
        status: 200,
        type: download[1],
      });
      visited.push(route);
      continue;
    }
    for (const lang of LANGUAGES) {
      await page.setViewportSize({ width: 1280, height: 800 });
      const url = `${stack.url}${path}${path.includes('?') ? '&' : '?'}lang=${lang}`;
      const res = await page.goto(url);
      // Pages opened from an emailed link answer 400 without its token; their page is checked all the same.
      const ok = TOKEN_PAGES.includes(route) ? [200, 400] : [200];
      expect({ route, status: ok.includes(res!.status()) ? 'ok' : res!.status() }).toEqual({
        route,
        status: 'ok',
      });
      if (route.startsWith('/dashboard/assets/')) {
        // The home chart's scripts, served from our origin.
        expect(res!.headers()['content-type']).toMatch(/^application\/javascript/);
        break;
      }
      const shownIn = await page.evaluate(
        () =>
          (globalThis as unknown as { document: { documentElement: { lang: string } } }).document
            .documentElement.lang,
      );
      if (shownIn !== lang) untranslated.push(`${path} asked in ${lang}, shown in ${shownIn}`);
      // Widest first, then narrower without reloading: the page reflows as a turned tablet's would.
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 800 });
        // Two frames: what resizes itself on a ResizeObserver (the home chart) has done so.
        await page.evaluate(
          () =>
            new Promise((done) => {
              const frame = (globalThis as unknown as { requestAnimationFrame: (f: () => void) => void })
                .requestAnimationFrame;
              frame(() => frame(() => done(null)));
            }),
        );
        const overflow = await page.evaluate(sidewaysOverflow);
        if (overflow) overflows.push(`${path} (${lang}, ${width} px): ${overflow}`);
        if (width !== 768) {
          const found = await accessibilityFindings(page, { everyImpact: true, bestPractices: true });
          if (found.length > 0) findings[`${path} (${lang}, ${width} px)`] = found;
        }
        const shot = route.replace(/^\/(dashboard\/?)?/, '').replace(/[^\w-]+/g, '_') || 'dashboard';
        if (!SCREENSHOTS) continue;
        await page.screenshot({
          path: join(SCREENSHOTS, `${lang}-${width}`, `${shot}.jpg`),
          fullPage: true,
          type: 'jpeg',
          quality: 70,
        });
      }
    }
    visited.push(route);
  }
  expect(overflows).toEqual([]);
  expect(untranslated).toEqual([]);
  expect(findings).toEqual({});
  expect(visited).toEqual(routes.filter((r) => !(r in NOT_VISITED)));
  for (const skipped of Object.keys(NOT_VISITED)) expect(routes).toContain(skipped);
  // The chart drew from the package's chart.js with the page's CSP, and no page script failed.
  await sessions.owner.page.goto(`${stack.url}/dashboard/home`);
  await sessions.owner.page.waitForSelector('#volume-chart[data-drawn="1"]');
  for (const s of Object.values(sessions)) {
    // Only the token pages' own 400 answers, logged by the browser as a failed load.
    expect(s.errors.filter((e) => !/status of 400 \(Bad Request\)/.test(e))).toEqual([]);
    expect(s.blocked).toEqual([]);
    await s.context.close();
  }
  // Over two minutes allowed: every page route of the dashboard in two languages at three widths,
  // scanned by axe-core at two, one after another (about 230 layouts); 57–79 s alone on a loaded
  // two-core machine, so up to three times that beside the rest of the suite.
}, 300_000);

test('with the keyboard alone: sign in, create a payment link, refund a payment', async () => {
  const paid = await api('/v1/payment-intents', {
    amount: 2500,
    card,
    confirm: true,
    description: 'Lyklaborð',
  });
  const { page, context, errors } = await openPage(browser, stack.url);
  await page.goto(`${stack.url}/dashboard/sign-in`);
  await signInWithKeyboard(page, owner.email, owner.password);
  expect(page.url()).toBe(`${stack.url}/dashboard/home`);
  // The owner's language is stored on them, and the test above asked for Icelandic last: back to English.
  await page.goto(`${stack.url}/dashboard/home?lang=en`);

  await tabTo(page, 'Payment links');
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
  const before = (await api('/v1/payment-links')).body.data.length as number;
  await tabTo(page, 'Create payment link');
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Space')]);
  await expect(page.locator('.notice.ok').innerText()).resolves.toMatch(/Payment link created/);
  const links = (await api('/v1/payment-links')).body.data as { id: string; url: string }[];
  expect(links).toHaveLength(before + 1);

  await tabTo(page, 'Payments');
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
  // The list's filter fields and the header's search box come first (decisions 0231, 0232).
  await tabTo(page, 'Lyklaborð', 80);
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
  expect(page.url()).toBe(`${stack.url}/dashboard/payments/${paid.body.id}`);
  // The header's Money group (settlement, VAT return, journal) comes before the page's own controls.
  await tabTo(page, 'Refund payment', 60);
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Space')]);
  await expect(page.getByTestId('amount-refunded').innerText()).resolves.toMatch(/2,500/);
  const after = await api(`/v1/payment-intents/${paid.body.id}`);
  expect(after.body.amount_refunded).toBe(2500);
  expect(errors).toEqual([]);
  await context.close();
}, 60_000);
