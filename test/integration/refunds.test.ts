import { sharedTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { until } from '../helpers/until';

/**
 * Refunds of payments Skil did not take through the API's own acquirer calls (decision 0034):
 * renewals are charged by the worker, and each must be refundable through `POST /v1/refunds` like
 * any card payment, whichever process charged it.
 */

let stack: TestStack;
let m: TestMerchant;

beforeAll(async () => {
  stack = await sharedTestStack();
  m = await stack.merchant('Endurgreiðslur ehf.');
});
afterAll(async () => {
  await stack?.stop();
});

const T0 = Date.UTC(2027, 4, 3, 12, 0, 0);
const unixOf = (ms: number) => Math.floor(ms / 1000);
const api = (p: string, json?: unknown) =>
  stack.api(m.testKey, p, json === undefined ? {} : { method: 'POST', json });

test('a renewal payment charged by the worker is refunded through POST /v1/refunds, in part and then in full', async () => {
  const product = await api('/v1/products', { name: 'Mánaðaráskrift', vat_rate: 24 });
  const price = await api('/v1/prices', {
    product: product.body.id,
    unit_amount: 3490,
    recurring: { interval: 'month' },
  });
  const clock = await api('/v1/test_helpers/test_clocks', { frozen_time: unixOf(T0), name: 'refunds' });
  const customer = await api('/v1/customers', { name: 'Guðrún', test_clock: clock.body.id });
  const pm = await api('/v1/payment-methods', {
    card: { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' },
    customer: customer.body.id,
  });
  expect(pm.status).toBe(200);
  const sub = await api('/v1/subscriptions', {
    customer: customer.body.id,
    price: price.body.id,
    default_payment_method: pm.body.id,
  });
  expect(sub.status).toBe(200);
  await until(
    () => api(`/v1/subscriptions/${sub.body.id}`),
    (r) => r.body.status === 'active',
  );

  // One month on: the worker's billing run renews the subscription and captures the renewal.
  const advanced = await api(`/v1/test_helpers/test_clocks/${clock.body.id}/advance`, {
    frozen_time: unixOf(T0 + 32 * 86_400_000),
  });
  expect(advanced.status).toBe(200);
  await until(
    () => api(`/v1/test_helpers/test_clocks/${clock.body.id}`),
    (r) => r.body.status === 'ready',
    55_000,
  );
  const intents = await api(`/v1/payment-intents?customer=${customer.body.id}`);
  const succeeded = (intents.body.data as { id: string; status: string; created_at: number }[]).filter(
    (pi) => pi.status === 'succeeded',
  );
  expect(succeeded).toHaveLength(2);
  const renewal = await stack
    .knex('renewals')
    .where({ subscription_id: sub.body.id, period_index: 1 })
    .first();
  expect(renewal).toMatchObject({ status: 'paid' });
  const renewalIntent = renewal.payment_intent_id as string;
  expect(succeeded.map((pi) => pi.id)).toContain(renewalIntent);

  const part = await api('/v1/refunds', { payment_intent: renewalIntent, amount: 1000 });
  expect(part.status).toBe(200);
  expect(part.body).toMatchObject({ object: 'refund', amount: 1000, status: 'succeeded' });
  const rest = await api(`/v1/payment-intents/${renewalIntent}/refund`, {});
  expect(rest.status).toBe(200);
  expect(rest.body).toMatchObject({ amount: 2490, status: 'succeeded' });
  expect((await api(`/v1/payment-intents/${renewalIntent}`)).body).toMatchObject({
    amount_received: 3490,
    amount_refunded: 3490,
  });
  const again = await api('/v1/refunds', { payment_intent: renewalIntent, amount: 1 });
  expect(again.status).toBe(409);
  expect(again.body.error.code).toBe('charge_already_refunded');

  // The first payment (the sign-up charge) refunds the same way.
  const first = succeeded.find((pi) => pi.id !== renewalIntent)!;
  const firstRefund = await api('/v1/refunds', { payment_intent: first.id });
  expect(firstRefund.status).toBe(200);
  expect(firstRefund.body).toMatchObject({ amount: 3490, status: 'succeeded' });
});
