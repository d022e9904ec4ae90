import { sharedTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { until } from '../helpers/until';

/**
 * The one presenter per object: the `data` of a checkout session's and a payment intent's events
 * is, key order included, what a GET of the object returns afterwards, on every path that makes
 * them (subscription checkout, a card saved for a new customer, a renewal, the API).
 */

let stack: TestStack;
let m: TestMerchant;
beforeAll(async () => {
  stack = await sharedTestStack();
  m = await stack.merchant('Jafnt ehf.');
});
afterAll(async () => {
  await stack?.stop();
});
const post = (path: string, json: unknown) => stack.api(m.testKey, path, { method: 'POST', json });
const get = (path: string) => stack.api(m.testKey, path);
const card = { card_number: '4242424242424242', card_exp: '12/34', card_cvc: '123' };
async function submit(url: string, form: Record<string, string>) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
    redirect: 'manual',
  });
  return res.status;
}
const eventData = async (type: string, id: string) =>
  (await stack.knex('events').where({ merchant_id: m.id, type }).orderBy('seq'))
    .map((e) => e.data)
    .filter((d) => d.id === id);

test('event data equals a GET of the object, key order included', async () => {
  const product = await post('/v1/products', {
    name: 'Áskrift',
    vat_rate: 24,
    default_price_data: { unit_amount: 2990, recurring: { interval: 'month' } },
  });
  const T0 = Date.UTC(2027, 0, 31, 12);
  const clock = await post('/v1/test_helpers/test_clocks', { frozen_time: T0 / 1000 });
  const customer = await post('/v1/customers', { name: 'Jón', test_clock: clock.body.id });
  const s = await post('/v1/checkout/sessions', {
    mode: 'subscription',
    items: [{ price: product.body.default_price }],
    customer: customer.body.id,
    form_fields: [],
  });
  expect(await submit(s.body.url, { action: 'pay', ...card })).toBeLessThan(400);
  const done = (await get(`/v1/checkout/sessions/${s.body.id}`)).body;
  const [completed] = await eventData('checkout.session.completed', s.body.id);
  expect(JSON.stringify(completed)).toBe(JSON.stringify(done));
  const pi = (await get(`/v1/payment-intents/${done.payment_intent}`)).body;
  const [captured] = await eventData('payment_intent.captured', pi.id);
  expect(pi.subscription).toBe(done.subscription);
  expect(JSON.stringify(captured)).toBe(JSON.stringify(pi));

  // One-off with a card saved for a new customer.
  const s2 = await post('/v1/checkout/sessions', { amount: 1000, save_payment_method: true });
  expect(
    await submit(s2.body.url, { action: 'pay', f_name: 'Anna', f_email: 'a@b.is', ...card }),
  ).toBeLessThan(400);
  const done2 = (await get(`/v1/checkout/sessions/${s2.body.id}`)).body;
  const pi2 = (await get(`/v1/payment-intents/${done2.payment_intent}`)).body;
  expect(pi2.customer).toMatch(/^cus_/);
  expect(JSON.stringify((await eventData('payment_intent.captured', pi2.id))[0])).toBe(JSON.stringify(pi2));

  // The renewal a month on.
  await post(`/v1/test_helpers/test_clocks/${clock.body.id}/advance`, {
    frozen_time: (T0 + 32 * 86_400_000) / 1000,
  });
  await until(
    () => get(`/v1/test_helpers/test_clocks/${clock.body.id}`),
    (r) => r.body.status === 'ready',
    55_000,
  );
  const renewals = await stack
    .knex('renewals')
    .where({ subscription_id: done.subscription, period_index: 1 });
  expect(renewals).toHaveLength(1);
  const rpi = (await get(`/v1/payment-intents/${renewals[0].payment_intent_id}`)).body;
  expect(rpi.subscription).toBe(done.subscription);
  expect(JSON.stringify((await eventData('payment_intent.captured', rpi.id))[0])).toBe(JSON.stringify(rpi));

  // The API path.
  const api = await post('/v1/payment-intents', {
    amount: 700,
    card: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' },
    confirm: true,
  });
  const apiGet = (await get(`/v1/payment-intents/${api.body.id}`)).body;
  expect(JSON.stringify((await eventData('payment_intent.captured', api.body.id))[0])).toBe(
    JSON.stringify(apiGet),
  );
});
