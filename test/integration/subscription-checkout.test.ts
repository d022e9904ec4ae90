import { sharedTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { CheckoutSessionSchema } from '../../services/checkout/checkout-session-object';
import { periodAt } from '../../domain/billing-calendar';
import { until as waitUntil } from '../helpers/until';

/**
 * Subscription sign-up through checkout (spec §2.1, decision 0050): a paid sign-up whose
 * checkout payment is period 0, a trial sign-up that charges nothing and discounts the first
 * charge after the trial, validation, and a double submit that subscribes once.
 */

let stack: TestStack;
let m: TestMerchant;

beforeAll(async () => {
  // A real base URL: the pages follow the URLs the API hands out (portal links, the simulated acquirer).
  stack = await sharedTestStack();
  m = await stack.merchant('Áskriftir ehf.');
});
afterAll(async () => {
  await stack?.stop();
});

const T0 = Date.UTC(2027, 0, 31, 12, 0, 0);
const DAY = 86_400_000;
const unixOf = (ms: number) => Math.floor(ms / 1000);
const post = (path: string, json: unknown) => stack.api(m.testKey, path, { method: 'POST', json });
const get = (path: string) => stack.api(m.testKey, path);
const card = { card_number: '4242424242424242', card_exp: '12/34', card_cvc: '123' };

const until = <T>(what: () => Promise<T>, ok: (v: T) => boolean, ms = 55_000) => waitUntil(what, ok, ms);

/** Submits the hosted checkout form as a browser would, without following redirects. */
async function submit(url: string, form: Record<string, string>) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
    redirect: 'manual',
  });
  return { status: res.status, text: await res.text() };
}

async function recurringPrice(unitAmount = 2990) {
  const product = await post('/v1/products', {
    name: 'Áskrift',
    vat_rate: 24,
    default_price_data: { unit_amount: unitAmount, recurring: { interval: 'month' } },
  });
  expect(product.status).toBe(200);
  return { product: product.body.id as string, price: product.body.default_price as string };
}

async function promotionCode(code: string, percentOff: number) {
  const coupon = await post('/v1/coupons', { percent_off: percentOff, duration: 'once' });
  expect(coupon.status).toBe(200);
  const promo = await post('/v1/promotion-codes', { coupon: coupon.body.id, code });
  expect(promo.status).toBe(200);
  return { coupon: coupon.body.id as string, promotionCode: promo.body.id as string };
}

async function clockedCustomer() {
  const clock = await post('/v1/test_helpers/test_clocks', { frozen_time: unixOf(T0), name: 'signup' });
  expect(clock.status).toBe(200);
  const customer = await post('/v1/customers', {
    name: 'Jón',
    email: 'jon@example.is',
    test_clock: clock.body.id,
  });
  expect(customer.status).toBe(200);
  return { clock: clock.body.id as string, customer: customer.body.id as string };
}

async function advance(clock: string, toMs: number) {
  const res = await post(`/v1/test_helpers/test_clocks/${clock}/advance`, { frozen_time: unixOf(toMs) });
  expect(res.status).toBe(200);
  await until(
    () => get(`/v1/test_helpers/test_clocks/${clock}`),
    (r) => r.body.status === 'ready',
  );
}

/** The merchant's events, oldest first. */
async function allEvents() {
  const rows = await stack
    .knex('events')
    .where({ merchant_id: m.id })
    .orderBy('seq')
    .select<{ type: string; data: { id: string; subscription?: string } }[]>('type', 'data');
  return rows;
}
const subscriptionEvents = async (id: string) =>
  (await allEvents())
    .filter((e) => e.type.startsWith('subscription.') && e.data.id === id)
    .map((e) => e.type);

test('paid sign-up: the checkout payment is period 0, charged once; the next renewal is at anchor + 1 month', async () => {
  const { price } = await recurringPrice(2990);
  await promotionCode('FYRSTI', 10);
  const { clock, customer } = await clockedCustomer();
  const created = await post('/v1/checkout/sessions', {
    mode: 'subscription',
    items: [{ price }],
    customer,
    promotion_code: 'fyrsti',
    form_fields: [],
    subscription_data: { metadata: { plan: 'basic' } },
  });
  expect(created.status).toBe(200);
  const open = CheckoutSessionSchema.strict().parse(created.body);
  // 2990 less 10 % (299): the first period, charged now.
  expect(open).toMatchObject({
    amount: 2691,
    amount_subtotal: 2990,
    discount_amount: 299,
    save_payment_method: true,
    subscription: null,
  });
  expect(open.promotion_code_id).toMatch(/^promo_/);

  expect((await submit(open.url, { action: 'pay', ...card })).status).toBeLessThan(400);
  const done = CheckoutSessionSchema.strict().parse((await get(`/v1/checkout/sessions/${open.id}`)).body);
  expect(done).toMatchObject({ status: 'complete', payment_status: 'paid', customer });
  expect(done.subscription).toMatch(/^sub_/);
  expect(done.payment_method).toMatch(/^pm_/);
  expect(done.payment_intent).toMatch(/^pi_/);
  const subId = done.subscription!;

  const sub = (await get(`/v1/subscriptions/${subId}`)).body;
  const period0 = periodAt(new Date(T0), { interval: 'month', intervalCount: 1 }, 0);
  expect(sub).toMatchObject({
    status: 'active',
    customer,
    price,
    quantity: 1,
    default_payment_method: done.payment_method,
    billing_cycle_anchor: unixOf(T0),
    current_period_start: unixOf(T0),
    current_period_end: unixOf(period0.end.getTime()),
    trial_end: null,
    metadata: { plan: 'basic' },
  });
  expect(sub.discount).not.toBeNull();

  const renewals = await stack.knex('renewals').where({ subscription_id: subId }).orderBy('period_index');
  expect(renewals).toHaveLength(1);
  expect(renewals[0]).toMatchObject({
    period_index: 0,
    status: 'paid',
    payment_intent_id: done.payment_intent,
  });
  expect(Number(renewals[0].amount)).toBe(2691);
  expect(Number(renewals[0].discount_amount)).toBe(299);
  const intents = await stack.knex('payment_intents').where({ customer_id: customer });
  expect(intents).toHaveLength(1);
  expect(intents[0]).toMatchObject({ id: done.payment_intent, status: 'succeeded', subscription_id: subId });

  const completed = (await allEvents()).filter((e) => e.type === 'checkout.session.completed');
  expect(completed.map((e) => e.data.subscription)).toEqual([subId]);
  expect(await subscriptionEvents(subId)).toEqual(['subscription.created', 'subscription.activated']);

  // Just before period 1 nothing more is charged; at anchor + 1 month the full price is (a `once` coupon).
  await advance(clock, period0.end.getTime() - 60_000);
  expect(await stack.knex('renewals').where({ subscription_id: subId })).toHaveLength(1);
  await advance(clock, period0.end.getTime() + 60_000);
  const after = await stack.knex('renewals').where({ subscription_id: subId }).orderBy('period_index');
  expect(after.map((r) => [r.period_index, r.status, Number(r.amount)])).toEqual([
    [0, 'paid', 2691],
    [1, 'paid', 2990],
  ]);
  expect(after[1].period_start).toEqual(period0.end);
  expect(await subscriptionEvents(subId)).toEqual([
    'subscription.created',
    'subscription.activated',
    'subscription.renewed',
  ]);
}, 120_000);

test('trial sign-up with a promotion code: amount 0, code kept, trialing; the first charge after the trial is discounted', async () => {
  const { price } = await recurringPrice(2990);
  const { coupon, promotionCode: promoId } = await promotionCode('PRUFA', 20);
  const { clock, customer } = await clockedCustomer();
  const created = await post('/v1/checkout/sessions', {
    mode: 'subscription',
    items: [{ price }],
    customer,
    promotion_code: 'PRUFA',
    subscription_data: { trial_period_days: 14 },
  });
  expect(created.status).toBe(200);
  const open = CheckoutSessionSchema.strict().parse(created.body);
  expect(open).toMatchObject({
    amount: 0,
    amount_subtotal: 0,
    discount_amount: 0,
    promotion_code_id: promoId,
    save_payment_method: true,
  });
  // The page offers to save the card, not to pay 0 kr.
  const page = await fetch(open.url);
  expect(await page.text()).toContain('card_number');

  const paid = await submit(open.url, { action: 'pay', f_name: 'Jón', f_email: 'jon@example.is', ...card });
  expect(paid.status).toBeLessThan(400);
  const done = CheckoutSessionSchema.strict().parse((await get(`/v1/checkout/sessions/${open.id}`)).body);
  expect(done).toMatchObject({
    status: 'complete',
    payment_status: 'no_payment_required',
    amount: 0,
    discount_amount: 0,
    promotion_code_id: promoId,
    payment_intent: null,
  });
  expect(done.payment_method).toMatch(/^pm_/);
  const subId = done.subscription!;
  expect(subId).toMatch(/^sub_/);
  expect((await get(`/v1/subscriptions/${subId}`)).body).toMatchObject({
    status: 'trialing',
    trial_start: unixOf(T0),
    trial_end: unixOf(T0 + 14 * DAY),
    default_payment_method: done.payment_method,
    discount: { coupon },
  });
  // No money moved.
  expect(await stack.knex('payment_intents').where({ customer_id: customer })).toHaveLength(0);
  expect(await stack.knex('renewals').where({ subscription_id: subId })).toHaveLength(0);

  await advance(clock, T0 + 14 * DAY + 3_600_000);
  const active = await until(
    () => get(`/v1/subscriptions/${subId}`),
    (r) => r.body.status === 'active',
  );
  expect(active.body.current_period_start).toBe(unixOf(T0 + 14 * DAY));
  const renewals = await stack.knex('renewals').where({ subscription_id: subId });
  expect(renewals).toHaveLength(1);
  // 2990 less 20 % (598), once, on the first charge after the trial.
  expect(renewals[0]).toMatchObject({ period_index: 0, status: 'paid' });
  expect(Number(renewals[0].amount)).toBe(2392);
  expect(Number(renewals[0].discount_amount)).toBe(598);
  expect(await subscriptionEvents(subId)).toEqual([
    'subscription.created',
    'subscription.trial_ended',
    'subscription.activated',
  ]);
  const completed = (await allEvents()).filter((e) => e.type === 'checkout.session.completed');
  expect(completed.filter((e) => e.data.subscription === subId)).toHaveLength(1);
}, 120_000);

test('validation: recurring price only, one item, no amount or custom amount; one-off checkout refuses recurring prices', async () => {
  const { price, product } = await recurringPrice();
  const oneOff = await post('/v1/products', { name: 'Kaffi', default_price_data: { unit_amount: 500 } });
  const expectParam = (r: { status: number; body: { error: { param: string } } }, param: string) => {
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe(param);
  };
  expectParam(
    await post('/v1/checkout/sessions', { mode: 'subscription', items: [{ product: oneOff.body.id }] }),
    'items.0',
  );
  expectParam(
    await post('/v1/checkout/sessions', {
      mode: 'subscription',
      items: [{ description: 'Ad hoc', unit_amount: 100 }],
    }),
    'items.0',
  );
  expectParam(
    await post('/v1/checkout/sessions', { mode: 'subscription', allow_custom_amount: true }),
    'allow_custom_amount',
  );
  expectParam(await post('/v1/checkout/sessions', { mode: 'subscription', amount: 2990 }), 'amount');
  expectParam(await post('/v1/checkout/sessions', { mode: 'subscription' }), 'items');
  expectParam(
    await post('/v1/checkout/sessions', { mode: 'subscription', items: [{ price }, { price }] }),
    'items',
  );
  expectParam(
    await post('/v1/checkout/sessions', {
      mode: 'subscription',
      items: [{ price }],
      subscription_data: { trial_period_days: 7, trial_end: unixOf(Date.now() + 30 * DAY) },
    }),
    'subscription_data.trial_end',
  );
  expectParam(
    await post('/v1/checkout/sessions', {
      mode: 'subscription',
      items: [{ price }],
      subscription_data: { trial_end: unixOf(Date.now() + 3_600_000) },
    }),
    'subscription_data.trial_end',
  );
  expectParam(
    await post('/v1/checkout/sessions', { items: [{ price }], subscription_data: { trial_period_days: 7 } }),
    'subscription_data',
  );
  expectParam(await post('/v1/checkout/sessions', { items: [{ price }] }), 'items.0');
  // The `product` shorthand's errors name `product`, the parameter the client sent (decision 0108).
  expectParam(await post('/v1/checkout/sessions', { product }), 'product');
  // A product whose default price is recurring signs up through `product`.
  const ok = await post('/v1/checkout/sessions', { mode: 'subscription', product });
  expect(ok.status).toBe(200);
  expect(ok.body).toMatchObject({ amount: 2990, product, save_payment_method: true });
});

test('a double-submitted sign-up subscribes once and charges once', async () => {
  const { price } = await recurringPrice(4990);
  const created = await post('/v1/checkout/sessions', {
    mode: 'subscription',
    items: [{ price, quantity: 2 }],
  });
  expect(created.status).toBe(200);
  expect(created.body).toMatchObject({ amount: 9980, customer: null });
  const form = { action: 'pay', f_name: 'Anna', f_email: 'anna@example.is', ...card };
  const results = await Promise.all([submit(created.body.url, form), submit(created.body.url, form)]);
  for (const r of results) expect(r.status).toBeLessThan(400);
  const done = (await get(`/v1/checkout/sessions/${created.body.id}`)).body;
  expect(done).toMatchObject({ status: 'complete', payment_status: 'paid' });
  // The customer was created from the form.
  const customer = (await get(`/v1/customers/${done.customer}`)).body;
  expect(customer).toMatchObject({ name: 'Anna', email: 'anna@example.is' });
  const subs = await stack.knex('subscriptions').where({ customer_id: done.customer });
  expect(subs).toHaveLength(1);
  expect(subs[0]).toMatchObject({ id: done.subscription, status: 'active', quantity: 2 });
  expect(await stack.knex('payment_intents').where({ customer_id: done.customer })).toHaveLength(1);
  const renewals = await stack.knex('renewals').where({ subscription_id: done.subscription });
  expect(renewals).toHaveLength(1);
  expect(Number(renewals[0].amount)).toBe(9980);
  expect(Number(renewals[0].vat_amount)).toBe(1932);
  const completed = (await allEvents()).filter((e) => e.type === 'checkout.session.completed');
  expect(completed.filter((e) => e.data.subscription === done.subscription)).toHaveLength(1);
  expect(await subscriptionEvents(done.subscription)).toEqual([
    'subscription.created',
    'subscription.activated',
  ]);
});
