import type { Browser } from 'playwright-core';
import { launchChromium, openPage } from '../helpers/browser';
import { seriousAccessibilityFindings } from '../helpers/accessibility';
import { sharedTestStack, type TestStack } from '../helpers/stack';
import { simulatedToken } from '../helpers/subscriptions';
import { newId, ID_PREFIX } from '../../domain/ids';
import { until as waitUntil } from '../helpers/until';

// Done-means 5: the customer portal in headless Chromium: update the card, cancel at period end.
let stack: TestStack;
let browser: Browser;

beforeAll(async () => {
  // A real base URL: the pages follow the URLs the API hands out (portal links, the simulated acquirer).
  stack = await sharedTestStack();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const until = <T>(what: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000) => waitUntil(what, ok, ms);

test('a customer updates the card and cancels at period end in the portal (is)', async () => {
  const m = await stack.merchant();
  const product = await stack.api(m.testKey, '/v1/products', {
    method: 'POST',
    json: { name: 'Kaffiáskrift', vat_rate: 11 },
  });
  const price = await stack.api(m.testKey, '/v1/prices', {
    method: 'POST',
    json: { product: product.body.id, unit_amount: 3490, recurring: { interval: 'month' } },
  });
  const customer = await stack.api(m.testKey, '/v1/customers', { method: 'POST', json: { name: 'Guðrún' } });
  const pm = newId(ID_PREFIX.paymentMethod);
  await stack.knex('payment_methods').insert({
    id: pm,
    merchant_id: m.id,
    livemode: false,
    customer_id: customer.body.id,
    acquirer_token: simulatedToken('success'),
    card_brand: 'visa',
    card_last4: '1111',
    card_exp_month: 12,
    card_exp_year: 2040,
  });
  const sub = await stack.api(m.testKey, '/v1/subscriptions', {
    method: 'POST',
    json: { customer: customer.body.id, price: price.body.id, default_payment_method: pm },
  });
  await until(
    () => stack.api(m.testKey, `/v1/subscriptions/${sub.body.id}`),
    (r) => r.body.status === 'active',
  );

  const session = await stack.api(m.testKey, '/v1/billing_portal/sessions', {
    method: 'POST',
    json: { customer: customer.body.id, return_url: 'https://shop.example/account', locale: 'is' },
  });
  expect(session.status).toBe(200);
  expect(session.body).toMatchObject({ object: 'billing_portal.session', customer: customer.body.id });

  const { page, context } = await openPage(browser, stack.url);
  await page.goto(session.body.url);
  await expect(page.locator('h1').innerText()).resolves.toBe('Áskriftin þín');
  await expect(page.locator('.next').innerText()).resolves.toContain('3.490 kr.');
  await expect(page.locator('.card-on-file').innerText()).resolves.toContain('1111');
  await expect(page.locator('table').innerText()).resolves.toContain('Greitt');

  // Update the card.
  await page.getByLabel('Kortanúmer').fill('4242 4242 4242 4242');
  await page.getByLabel('Gildistími (MM/ÁÁ)').fill('12/34');
  await page.getByLabel('Öryggisnúmer (CVC)').fill('123');
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Uppfæra kort' }).click()]);
  await expect(page.locator('[role=status]').innerText()).resolves.toBe('Breytingin var vistuð.');
  await expect(page.locator('.card-on-file').innerText()).resolves.toContain('4242');
  const afterCard = await stack.api(m.testKey, `/v1/subscriptions/${sub.body.id}`);
  expect(afterCard.body.default_payment_method).not.toBe(pm);

  // The cancel choices are radio buttons of their own size beside their labels, not stretched.
  const radios = await page
    .locator('input[type=radio]')
    .evaluateAll((els) =>
      els.map((el) =>
        Math.round(
          (el as unknown as { getBoundingClientRect(): { width: number } }).getBoundingClientRect().width,
        ),
      ),
    );
  expect(radios).toHaveLength(2);
  for (const w of radios) expect(w).toBeLessThan(40);
  expect(await seriousAccessibilityFindings(page)).toEqual([]);

  // Cancel at the end of the period, with a reason.
  await page.getByLabel('Ástæða (valfrjálst)').fill('Of dýrt');
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Segja upp' }).click()]);
  await expect(page.locator('.next').innerText()).resolves.toContain('Áskriftin lýkur');
  const canceled = await stack.api(m.testKey, `/v1/subscriptions/${sub.body.id}`);
  expect(canceled.body).toMatchObject({
    status: 'active',
    cancel_at_period_end: true,
    cancellation_details: { reason: 'Of dýrt' },
  });

  expect(await seriousAccessibilityFindings(page)).toEqual([]);

  // The link is single-use: another browser gets nothing.
  const other = await openPage(browser, stack.url);
  const reused = await other.page.goto(session.body.url);
  expect(reused?.status()).toBe(410);
  await other.context.close();
  await context.close();
});
