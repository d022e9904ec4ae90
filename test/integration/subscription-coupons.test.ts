/**
 * Coupons and promotion codes on subscriptions follow the rules checkout
 * follows: `max_redemptions`, `redeem_by` and deletion (`valid: false`) are checked, and every
 * discount applied is counted, exactly, under concurrency — on create and on update.
 */
import { sharedTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { until } from '../helpers/until';

let stack: TestStack;
let m: TestMerchant;
let price: string;

beforeAll(async () => {
  stack = await sharedTestStack();
  m = await stack.merchant('Afsláttur ehf.');
  const product = await post('/v1/products', { name: 'Áskrift', vat_rate: 24 });
  const created = await post('/v1/prices', {
    product: product.body.id,
    unit_amount: 2_990,
    recurring: { interval: 'month' },
  });
  price = created.body.id as string;
});
afterAll(async () => {
  await stack?.stop();
});

function post(path: string, json: unknown) {
  return stack.api(m.testKey, path, { method: 'POST', json });
}

/** A customer with a saved test card. */
async function customerWithCard(): Promise<{ customer: string; card: string }> {
  const customer = await post('/v1/customers', { name: 'Jóna' });
  expect(customer.status).toBe(200);
  const pm = await post('/v1/payment-methods', {
    card: { number: '4242424242424242', exp_month: 12, exp_year: 2034, cvc: '123' },
    customer: customer.body.id,
  });
  expect(pm.status).toBe(200);
  return { customer: customer.body.id as string, card: pm.body.id as string };
}

async function coupon(extra: Record<string, unknown> = {}): Promise<string> {
  const c = await post('/v1/coupons', { percent_off: 50, duration: 'forever', ...extra });
  expect(c.status).toBe(200);
  return c.body.id as string;
}

async function subscribe(extra: Record<string, unknown>) {
  const { customer, card } = await customerWithCard();
  return post('/v1/subscriptions', { customer, price, default_payment_method: card, ...extra });
}

const couponNow = async (id: string) => (await stack.api(m.testKey, `/v1/coupons/${id}`)).body;

const refusal = (r: { status: number; body: any }) => [r.status, r.body?.error?.code, r.body?.error?.param];

test('a max-1 coupon on 10 concurrent creates: one subscription discounted, nine refused, counted once', async () => {
  const c = await coupon({ max_redemptions: 1 });
  const people = await Promise.all(Array.from({ length: 10 }, customerWithCard));
  const results = await Promise.all(
    people.map((p) =>
      post('/v1/subscriptions', { customer: p.customer, price, default_payment_method: p.card, coupon: c }),
    ),
  );
  const ok = results.filter((r) => r.status === 200);
  expect(ok).toHaveLength(1);
  expect(results.filter((r) => r.status !== 200).map(refusal)).toEqual(
    Array(9).fill([400, 'coupon_max_redemptions', 'coupon']),
  );
  expect(await couponNow(c)).toMatchObject({ times_redeemed: 1, valid: false });
  // Only the one created subscription exists with it, and its first charge is discounted.
  expect(await stack.knex('subscriptions').where({ coupon_id: c }).pluck('id')).toEqual([ok[0]!.body.id]);
  await until(
    () => stack.api(m.testKey, `/v1/subscriptions/${ok[0]!.body.id}`),
    (r) => r.body.status === 'active',
  );
  const renewal = await stack.knex('renewals').where({ subscription_id: ok[0]!.body.id }).first();
  expect(renewal).toMatchObject({ amount_subtotal: 2_990, discount_amount: 1_495, amount: 1_495 });
});

test('sequential creates: a max-2 coupon discounts two subscriptions, the third is refused', async () => {
  const c = await coupon({ max_redemptions: 2 });
  const first = await subscribe({ coupon: c });
  const second = await subscribe({ coupon: c });
  const third = await subscribe({ coupon: c });
  expect([first.status, second.status]).toEqual([200, 200]);
  expect(refusal(third)).toEqual([400, 'coupon_max_redemptions', 'coupon']);
  expect(await couponNow(c)).toMatchObject({ times_redeemed: 2, valid: false });
});

test('an expired coupon (redeem_by passed) and a deleted one (valid: false) are refused', async () => {
  const soon = await coupon({ redeem_by: Math.floor(Date.now() / 1000) + 2 });
  await until(
    () => couponNow(soon),
    (b) => b.valid === false,
    10_000,
  );
  expect(refusal(await subscribe({ coupon: soon }))).toEqual([400, 'coupon_expired', 'coupon']);

  const gone = await coupon();
  expect((await stack.api(m.testKey, `/v1/coupons/${gone}`, { method: 'DELETE' })).status).toBe(200);
  expect(refusal(await subscribe({ coupon: gone }))).toEqual([400, 'coupon_deleted', 'coupon']);
  expect(await stack.knex('subscriptions').whereIn('coupon_id', [soon, gone])).toEqual([]);
  expect((await couponNow(soon)).times_redeemed).toBe(0);
});

test('update: applying a coupon counts it; a used-up or deleted one is refused; the same one again is no new redemption', async () => {
  const created = await subscribe({});
  expect(created.status).toBe(200);
  const id = created.body.id as string;
  const c = await coupon({ max_redemptions: 1 });
  const applied = await post(`/v1/subscriptions/${id}`, { coupon: c });
  expect(applied.status).toBe(200);
  expect(applied.body.discount).toMatchObject({ coupon: c });
  expect((await couponNow(c)).times_redeemed).toBe(1);
  // Sent again with the subscription's own coupon: nothing new is redeemed.
  expect((await post(`/v1/subscriptions/${id}`, { coupon: c })).status).toBe(200);
  expect((await couponNow(c)).times_redeemed).toBe(1);

  const other = await subscribe({});
  expect(refusal(await post(`/v1/subscriptions/${other.body.id}`, { coupon: c }))).toEqual([
    400,
    'coupon_max_redemptions',
    'coupon',
  ]);
  const gone = await coupon();
  await stack.api(m.testKey, `/v1/coupons/${gone}`, { method: 'DELETE' });
  expect(refusal(await post(`/v1/subscriptions/${other.body.id}`, { coupon: gone }))).toEqual([
    400,
    'coupon_deleted',
    'coupon',
  ]);
  expect((await stack.api(m.testKey, `/v1/subscriptions/${other.body.id}`)).body.discount).toBeNull();
});

test('update: 10 concurrent updates applying a max-1 coupon to 10 subscriptions: one applied', async () => {
  const subs = await Promise.all(Array.from({ length: 10 }, () => subscribe({})));
  const c = await coupon({ max_redemptions: 1 });
  const results = await Promise.all(subs.map((s) => post(`/v1/subscriptions/${s.body.id}`, { coupon: c })));
  expect(results.filter((r) => r.status === 200)).toHaveLength(1);
  expect(results.filter((r) => r.status !== 200).map(refusal)).toEqual(
    Array(9).fill([400, 'coupon_max_redemptions', 'coupon']),
  );
  expect((await couponNow(c)).times_redeemed).toBe(1);
  expect(await stack.knex('subscriptions').where({ coupon_id: c })).toHaveLength(1);
});

test('a promotion code on create and update: its limits hold and it applies its coupon', async () => {
  const c = await coupon();
  const promo = await post('/v1/promotion-codes', { coupon: c, code: 'VOR2027', max_redemptions: 1 });
  expect(promo.status).toBe(200);
  const first = await subscribe({ promotion_code: 'vor2027' });
  expect(first.status).toBe(200);
  expect(first.body.discount).toMatchObject({ coupon: c });
  expect(refusal(await subscribe({ promotion_code: 'VOR2027' }))).toEqual([
    400,
    'promotion_code_max_redemptions',
    'promotion_code',
  ]);
  const plain = await subscribe({});
  expect(refusal(await post(`/v1/subscriptions/${plain.body.id}`, { promotion_code: 'VOR2027' }))).toEqual([
    400,
    'promotion_code_max_redemptions',
    'promotion_code',
  ]);
  expect(refusal(await subscribe({ promotion_code: 'NO-SUCH-CODE' }))).toEqual([
    400,
    'promotion_code_invalid',
    'promotion_code',
  ]);
  expect(refusal(await subscribe({ coupon: c, promotion_code: 'VOR2027' }))).toEqual([
    400,
    'parameter_invalid',
    'promotion_code',
  ]);
  expect((await stack.api(m.testKey, `/v1/promotion-codes/${promo.body.id}`)).body.times_redeemed).toBe(1);
  expect((await couponNow(c)).times_redeemed).toBe(1);
});
