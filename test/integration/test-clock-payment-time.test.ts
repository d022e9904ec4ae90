/**
 * Payments made on a test clock carry the clock's time (decision 0100, second part): a subscription
 * on a clock set in the past takes its first charge and, during an advance, its first renewal; the
 * payment intents' `created_at`, the customer portal's payment history and the settlement run's
 * lines all show the clock's instants, never the wall clock's.
 */
import { startTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { createOperator } from '../helpers/accounts';
import { until } from '../helpers/until';

let stack: TestStack;
let m: TestMerchant;

beforeAll(async () => {
  // A real base URL: the API reaches its simulated acquirer over HTTP to tokenize the test card.
  stack = await startTestStack({ realBaseUrl: true });
  m = await stack.merchant();
});
afterAll(async () => {
  await stack?.stop();
});

const unixOf = (ms: number) => Math.floor(ms / 1000);
// Months before the wall clock, so the settlement day's cutoff (now) takes both payments.
const T0 = Date.UTC(2026, 0, 31, 12, 0, 0);
const FIRST_RENEWAL = Date.UTC(2026, 1, 28, 12, 0, 0);

test('the first charge and a renewal during an advance carry the clock time in the API, the portal and settlement', async () => {
  const api = (path: string, init?: Parameters<TestStack['api']>[2]) => stack.api(m.testKey, path, init);
  const product = await api('/v1/products', { method: 'POST', json: { name: 'Áskrift', vat_rate: 24 } });
  const price = await api('/v1/prices', {
    method: 'POST',
    json: { product: product.body.id, unit_amount: 2990, recurring: { interval: 'month' } },
  });
  const clock = await api('/v1/test_helpers/test_clocks', {
    method: 'POST',
    json: { frozen_time: unixOf(T0), name: 'payment time' },
  });
  expect(clock.status).toBe(200);
  const customer = await api('/v1/customers', { method: 'POST', json: { test_clock: clock.body.id } });
  const card = await api('/v1/payment-methods', {
    method: 'POST',
    json: {
      card: { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' },
      customer: customer.body.id,
    },
  });
  expect(card.status).toBe(200);
  const sub = await api('/v1/subscriptions', {
    method: 'POST',
    json: { customer: customer.body.id, price: price.body.id, default_payment_method: card.body.id },
  });
  expect(sub.status).toBe(200);
  await until(
    () => api(`/v1/subscriptions/${sub.body.id}`),
    (r) => r.body.status === 'active',
  );
  const advance = await api(`/v1/test_helpers/test_clocks/${clock.body.id}/advance`, {
    method: 'POST',
    json: { frozen_time: unixOf(FIRST_RENEWAL + 86_400_000) },
  });
  expect(advance.status).toBe(200);
  await until(
    () => api(`/v1/test_helpers/test_clocks/${clock.body.id}`),
    (r) => r.body.status === 'ready',
    60_000,
  );

  // The API: each payment was made at the clock's instant.
  const intents = await api(`/v1/payment-intents?customer=${customer.body.id}`);
  expect(
    intents.body.data.map((i: { status: string; created_at: number; subscription: string }) => [
      i.status,
      i.created_at,
      i.subscription,
    ]),
  ).toEqual([
    ['succeeded', unixOf(FIRST_RENEWAL), sub.body.id],
    ['succeeded', unixOf(T0), sub.body.id],
  ]);

  // The customer portal's payment history shows the clock's dates.
  const portal = await api('/v1/billing_portal/sessions', {
    method: 'POST',
    json: { customer: customer.body.id, return_url: 'https://shop.example/account', locale: 'en' },
  });
  expect(portal.status).toBe(200);
  const page = await (await fetch(portal.body.url)).text();
  const history = page.slice(page.indexOf('Payment history'));
  expect(history).toContain('28 Feb 2026');
  expect(history).toContain('31 Jan 2026');
  const today = new Date().toLocaleDateString('en-GB', {
    timeZone: 'Atlantic/Reykjavik',
    dateStyle: 'medium',
  });
  expect(history).not.toContain(today);

  // Settlement: the run's lines are the same payments at the same instants, each with the
  // acquirer's fee on its capture at that instant too (decision 0113).
  const operator = await createOperator(stack.knex);
  const day = await stack.api(operator.token, '/v1/operator/settlement-days', { method: 'POST', json: {} });
  expect(day.status).toBe(200);
  const run = (day.body.runs as { id: string; merchant: string }[]).find((r) => r.merchant === m.id)!;
  const lines = await api(`/v1/settlement-runs/${run.id}/lines`);
  expect(
    lines.body.data.map((l: { kind: string; payment_intent: string; occurred_at: number }) => [
      l.kind,
      l.payment_intent,
      l.occurred_at,
    ]),
  ).toEqual(
    [...intents.body.data].reverse().flatMap((i: { id: string; created_at: number }) => [
      ['acquirer_fee', i.id, i.created_at],
      ['payment', i.id, i.created_at],
    ]),
  );
});
