import type { ClaimRow } from '../../db/claims';
import { sharedTestStack, type TestMerchant, type TestStack } from '../helpers/stack';

/**
 * The merchant's claim terms rule (decision 0065): set through PATCH /v1/merchant,
 * validated at both edges, merged field by field, and used for the kröfur of claim-collected
 * subscription renewals.
 */

const CLAIMANT = '5510730339';
const PAYER = '1201603389';
const T0 = Date.UTC(2027, 0, 4, 12, 0, 0);

let stack: TestStack;
let m: TestMerchant;

beforeAll(async () => {
  stack = await sharedTestStack();
  m = await stack.merchant('Skilmálar ehf.');
  await stack.knex('merchants').where({ id: m.id }).update({ kennitala: CLAIMANT });
});
afterAll(async () => {
  await stack?.stop();
});

const get = (p: string) => stack.api(m.testKey, p);
const post = (p: string, json: unknown) => stack.api(m.testKey, p, { method: 'POST', json });
const patch = (json: unknown) => stack.api(m.testKey, '/v1/merchant', { method: 'PATCH', json });

test('claim_terms: defaults, limits at both edges, unknown fields refused, partial updates merged', async () => {
  expect((await get('/v1/merchant')).body.claim_terms).toEqual({
    days_until_due: 14,
    days_until_final_due: 0,
    days_until_cancellation: 90,
  });
  const refused: [Record<string, unknown>, string][] = [
    [{ days_until_due: 366 }, 'claim_terms.days_until_due'],
    [{ days_until_due: -1 }, 'claim_terms.days_until_due'],
    [{ days_until_due: 1.5 }, 'claim_terms.days_until_due'],
    [{ days_until_final_due: 366 }, 'claim_terms.days_until_final_due'],
    [{ days_until_cancellation: 1081 }, 'claim_terms.days_until_cancellation'],
    [{ grace_days: 3 }, 'claim_terms.grace_days'],
  ];
  for (const [terms, param] of refused) {
    const res = await patch({ claim_terms: terms });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe(param);
  }
  // Nothing above changed anything.
  expect((await get('/v1/merchant')).body.claim_terms.days_until_due).toBe(14);

  const edges = await patch({
    claim_terms: { days_until_due: 365, days_until_final_due: 365, days_until_cancellation: 1080 },
  });
  expect(edges.status).toBe(200);
  expect(edges.body.claim_terms).toEqual({
    days_until_due: 365,
    days_until_final_due: 365,
    days_until_cancellation: 1080,
  });
  const zero = await patch({ claim_terms: { days_until_due: 0 } });
  expect(zero.body.claim_terms).toEqual({
    days_until_due: 0,
    days_until_final_due: 365,
    days_until_cancellation: 1080,
  });

  const rule = await patch({
    claim_terms: { days_until_due: 7, days_until_final_due: 3, days_until_cancellation: 30 },
  });
  expect(rule.body.claim_terms).toEqual({
    days_until_due: 7,
    days_until_final_due: 3,
    days_until_cancellation: 30,
  });
});

test("a claim-collected renewal's krafa is dated by the merchant's rule", async () => {
  await patch({ claim_terms: { days_until_due: 7, days_until_final_due: 3, days_until_cancellation: 30 } });
  const product = await post('/v1/products', { name: 'Áskrift', vat_rate: 24 });
  const price = await post('/v1/prices', {
    product: product.body.id,
    unit_amount: 4990,
    recurring: { interval: 'month' },
  });
  const clock = (await post('/v1/test_helpers/test_clocks', { frozen_time: T0 / 1000, name: 'skilmálar' }))
    .body.id as string;
  const customer = await post('/v1/customers', { name: 'Jón', kennitala: PAYER, test_clock: clock });
  const sub = await post('/v1/subscriptions', {
    customer: customer.body.id,
    price: price.body.id,
    collection_method: 'claim',
  });
  expect(sub.status).toBe(200);

  const deadline = Date.now() + 30_000;
  let claim: ClaimRow | undefined;
  while (!claim && Date.now() < deadline) {
    claim = await stack
      .knex<ClaimRow>('claims')
      .join('renewals', 'renewals.id', 'claims.renewal_id')
      .where('renewals.subscription_id', sub.body.id)
      .first<ClaimRow>('claims.*');
    if (!claim) await new Promise((r) => setTimeout(r, 100));
  }
  // 2027-01-04 (Mon) + 7 = 01-11 (Mon); + 3 = 01-14 (Thu); + 30 = 02-13 (Sat) → 02-15 (Mon).
  expect(claim).toMatchObject({
    amount: 4990,
    due_date: '2027-01-11',
    final_due_date: '2027-01-14',
    cancellation_date: '2027-02-15',
  });
});
