import type { Browser } from 'playwright-core';
import { verify } from '@octokit/webhooks-methods';
import { launchChromium, openPage, type TestPage } from '../helpers/browser';
import { sharedTestStack, type TestStack } from '../helpers/stack';
import { startReceiver } from '../helpers/receiver';
import { seriousAccessibilityFindings } from '../helpers/accessibility';
import { linkIn } from '../helpers/mail';
import { until } from '../helpers/until';
import { randomBase62 } from '../../domain/ids';

/**
 * Issue 21, Done means 1, in one Chromium session as a new merchant would go: sign up and get the
 * test key at once, verify the email from the local catcher, make a product with a monthly price and
 * a no-code subscription link in the dashboard, buy through the link on the hosted checkout, find
 * the payment on the home page and in its chart, refund it, then create a webhook channel, reveal
 * its signing secret, check that what the receiver got is signed with it, and read the channel's
 * deliveries with their attempts.
 */

let stack: TestStack;
let browser: Browser;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let tab: TestPage;

beforeAll(async () => {
  [stack, browser, receiver] = await Promise.all([sharedTestStack(), launchChromium(), startReceiver()]);
  tab = await openPage(browser, stack.url);
  // The mail catcher's page and the simulated acquirer are other local origins this walk reaches.
  await tab.page.route('http://127.0.0.1:*/**', (route) => route.continue());
});
afterAll(async () => {
  await tab?.context.close();
  await browser?.close();
  await receiver?.close();
  await stack?.stop();
});

const PRICE = 3990;

test('sign up, verify, sell a subscription by link, see it on home, refund it, and watch a signed webhook', async () => {
  const { page } = tab;
  const email = `owner-${randomBase62(8).toLowerCase()}@example.test`;
  const go = (path: string) => page.goto(`${stack.url}${path}`);
  const submit = (name: string | RegExp) =>
    Promise.all([page.waitForNavigation(), page.getByRole('button', { name }).click()]);

  // Sign up: the test key is on the page at once.
  await go('/dashboard/sign-up');
  await page.getByLabel('Business name').fill('Kaffiklúbbur ehf.');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('correct horse battery staple');
  await submit('Create account');
  const key = (await page.getByTestId('test-key').innerText()).trim();
  expect(key).toMatch(/^sk_test_/);
  expect((await stack.api(key, '/v1/merchant')).body.name).toBe('Kaffiklúbbur ehf.');

  // The verification email, opened in the catcher's page, its link followed.
  const mail = await stack.mail.waitFor((msg) => msg.to.includes(email));
  expect(linkIn(mail, `${stack.url}/dashboard/verify-email?token=`)).toBeTruthy();
  await page.goto(stack.mail.pageUrl + '/');
  await Promise.all([page.waitForNavigation(), page.getByRole('link', { name: mail.subject }).click()]);
  await Promise.all([
    page.waitForNavigation(),
    page.getByRole('link', { name: /\/dashboard\/verify-email\?token=/ }).click(),
  ]);
  await submit('Verify email');
  await page.getByText(`${email} is verified`).waitFor();

  // A product with a monthly price, and a subscription link selling it, made in the dashboard.
  await go('/dashboard/products');
  await page.getByLabel('Name', { exact: true }).fill('Kaffi í áskrift');
  await page.getByLabel('Price (ISK, VAT included)').fill(String(PRICE));
  await page.getByRole('combobox', { name: 'Billing' }).selectOption({ label: 'Every month' });
  await submit('Create product');
  await go('/dashboard/payment-links');
  await page.getByRole('radio', { name: 'Subscription' }).check();
  const price = await page
    .locator('#link-price option', { hasText: 'Kaffi í áskrift' })
    .getAttribute('value');
  await page.getByLabel('Price', { exact: true }).selectOption(String(price));
  await submit('Create payment link');
  const row = page.locator('tr[data-link]').first();
  expect(await row.getAttribute('data-mode')).toBe('subscription');
  const linkUrl = (await row.locator('a').first().getAttribute('href'))!;
  const links = (await stack.api(key, '/v1/payment-links')).body.data;
  expect(links).toHaveLength(1);
  expect(links[0]).toMatchObject({ mode: 'subscription', url: linkUrl });

  // A buyer pays through the link with the test card.
  await page.goto(linkUrl);
  await page.getByLabel('Name *').fill('Sigrún Ósk');
  await page.getByLabel('Email *').fill('sigrun@example.is');
  await page.getByLabel(/^Card number/).fill('4242 4242 4242 4242');
  await page.getByLabel(/^Expiry/).fill('12/34');
  await page.getByLabel(/^Security code/).fill('123');
  await Promise.all([page.waitForNavigation(), page.click('#pay')]);
  await page.getByText('Payment received. Thank you!').waitFor();
  const subs = (await stack.api(key, '/v1/subscriptions')).body.data;
  expect(subs.map((s: { status: string }) => s.status)).toEqual(['active']);

  // Home: today's volume, the payment in the recent list, and the chart's figures.
  await go('/dashboard/home');
  await page.waitForSelector('#volume-chart[data-drawn="1"]');
  expect(await page.getByTestId('gross').innerText()).toMatch(/3[.,\s\u00a0]?990/);
  const series = JSON.parse((await page.locator('#volume-chart').getAttribute('data-series'))!);
  expect(series.card.reduce((a: number, b: number) => a + b, 0)).toBe(PRICE);
  expect(series.card[series.card.length - 1]).toBe(PRICE);
  const payment = page.locator('section[aria-labelledby="recent"] tbody a').first();
  await Promise.all([page.waitForNavigation(), payment.click()]);

  // Refund it all from its page.
  await submit('Refund payment');
  expect(await page.getByTestId('amount-refunded').innerText()).toMatch(/3[.,\s\u00a0]?990/);
  const intents = (await stack.api(key, '/v1/payment-intents')).body.data;
  expect(intents.map((p: { amount_refunded: number }) => p.amount_refunded)).toEqual([PRICE]);

  // A webhook channel pointed at the local receiver, made in the dashboard.
  await go('/dashboard/webhooks');
  await page.getByLabel('Endpoint URL').fill(receiver.url);
  await page.getByLabel('payment_intent.refunded').check();
  await page.getByLabel('debug.check').check();
  await submit('Create channel');
  expect(new URL(page.url()).pathname).toMatch(/^\/dashboard\/webhooks\/nc_[0-9A-Za-z]+$/);
  const channelId = new URL(page.url()).pathname.split('/').pop()!;
  expect(await page.getByTestId('signing-secret').count()).toBe(0);
  await submit('Reveal signing secret');
  const secret = (await page.getByTestId('signing-secret').innerText()).trim();
  expect(secret.length).toBeGreaterThanOrEqual(24);
  expect((await stack.api(key, `/v1/notification-channels/${channelId}`)).body.config.secret).toBe(secret);
  expect(await seriousAccessibilityFindings(page)).toEqual([]);

  // A test event, and the refund's event sent to the channel from the event's page.
  await submit('Send test event');
  const [first] = await receiver.waitFor(1, 20_000);
  expect(first!.body.type).toBe('debug.check');
  await go('/dashboard/events?type=payment_intent.refunded');
  await Promise.all([page.waitForNavigation(), page.locator('tbody a').first().click()]);
  await page.getByLabel('Webhook channel', { exact: true }).selectOption(channelId);
  await submit('Send to channel');
  const received = await receiver.waitFor(2, 20_000);
  expect(received.map((r) => r.body.type)).toEqual(['debug.check', 'payment_intent.refunded']);
  expect(received[1]!.body.data.amount_refunded).toBe(PRICE);
  for (const r of received)
    expect(await verify(secret, r.rawBody.toString('utf8'), String(r.headers['x-service-signature']))).toBe(
      true,
    );

  // The channel's page: both deliveries, each with its attempt (outcome, response code, time).
  const deliveries = await until(
    async () => {
      await go(`/dashboard/webhooks/${channelId}`);
      return page
        .locator('tr[data-delivery]')
        .evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-status'), r.textContent ?? '']));
    },
    (rows) => rows.length === 2 && rows.every(([status]) => status === 'succeeded'),
    20_000,
  );
  for (const [, text] of deliveries) {
    expect(text).toMatch(/#1/);
    expect(text).toMatch(/\b200\b/);
    // The attempt's moment, as the English page writes it (2 Dec 2026, 17:56).
    expect(text).toMatch(/\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d/);
  }
  expect(
    deliveries.map(([, text]) => (text.match(/payment_intent\.refunded|debug\.check/) ?? [''])[0]),
  ).toEqual(['payment_intent.refunded', 'debug.check']);
  expect(await seriousAccessibilityFindings(page)).toEqual([]);
  expect(tab.errors).toEqual([]);
}, 60_000);
