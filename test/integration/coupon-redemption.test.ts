import fc from 'fast-check';
import { sharedTestStack, type TestStack, type TestMerchant } from '../helpers/stack';
import { createKnex, type Knex } from '../../db/knex';
import { createCouponRepository, type CouponInput } from '../../db/coupons';
import { createPromotionCodeRepository, type PromotionCodeInput } from '../../db/promotion-codes';
import { createCustomerRepository } from '../../db/customers';
import { createRedemptionService, type RedemptionRequest } from '../../db/coupon-redemptions';
import { priceLines } from '../../domain/discount';
import type { Scope } from '../../domain/scope';

let stack: TestStack;
let merchant: TestMerchant;
let scope: Scope;
/** A pool as wide as the race, so all 50 redemptions really are in flight at once. */
let wide: Knex;

beforeAll(async () => {
  stack = await sharedTestStack();
  merchant = await stack.merchant('Redemptions');
  scope = { merchantId: merchant.id, livemode: false };
  wide = createKnex(stack.db.url, { poolMax: 50 });
});
afterAll(async () => {
  await wide.destroy();
  await stack.stop();
});

const coupon = (input: Partial<CouponInput> = {}) =>
  createCouponRepository(stack.knex).create(scope, {
    percentOff: '10',
    duration: { duration: 'once' },
    ...input,
  });
const promo = (input: PromotionCodeInput) => createPromotionCodeRepository(stack.knex).create(scope, input);
const customer = () => createCustomerRepository(stack.knex).create(scope, {});
const service = () => createRedemptionService(stack.knex);
let keys = 0;
const key = () => `cs_test_${++keys}`;

async function settle(calls: Promise<unknown>[]) {
  const results = await Promise.allSettled(calls);
  const ok = results.filter((r) => r.status === 'fulfilled');
  const codes = results.flatMap((r) =>
    r.status === 'rejected' ? [(r.reason as { code?: string }).code] : [],
  );
  return { ok: ok.length, codes };
}

async function counts(couponId: string) {
  const c = await stack.knex('coupons').where({ id: couponId }).first('times_redeemed');
  const [row] = await stack
    .knex('coupon_redemptions')
    .where({ coupon_id: couponId })
    .count<{ n: number }[]>('* as n');
  return { timesRedeemed: c.times_redeemed as number, rows: Number(row!.n) };
}

describe('exact counting under concurrency', () => {
  test('a coupon with max_redemptions 1, redeemed by 50 checkouts at once, succeeds once', async () => {
    const c = await coupon({ maxRedemptions: 1 });
    const svc = createRedemptionService(wide);
    const started = Date.now();
    const { ok, codes } = await settle(
      Array.from({ length: 50 }, (_, i) =>
        svc.redeem(scope, { target: { couponId: c.id }, amount: 10_000, idempotencyKey: `race-1-${i}` }),
      ),
    );
    const ms = Date.now() - started;
    expect(ok).toBe(1);
    expect(codes).toEqual(Array(49).fill('coupon_max_redemptions'));
    expect(await counts(c.id)).toEqual({ timesRedeemed: 1, rows: 1 });
    expect(ms).toBeLessThan(10_000);
    const api = await stack.api(merchant.testKey, `/v1/coupons/${c.id}`);
    expect(api.body).toMatchObject({ times_redeemed: 1, valid: false });
  });

  test('a promotion code with max_redemptions 3: 50 at once, 3 succeed', async () => {
    const c = await coupon();
    const p = await promo({ couponId: c.id, code: 'RACE3', maxRedemptions: 3 });
    const svc = createRedemptionService(wide);
    const { ok, codes } = await settle(
      Array.from({ length: 50 }, (_, i) =>
        svc.redeem(scope, { target: { code: 'race3' }, amount: 1000, idempotencyKey: `race-3-${i}` }),
      ),
    );
    expect(ok).toBe(3);
    expect(new Set(codes)).toEqual(new Set(['promotion_code_max_redemptions']));
    expect((await stack.knex('promotion_codes').where({ id: p.id }).first()).times_redeemed).toBe(3);
    expect(await counts(c.id)).toEqual({ timesRedeemed: 3, rows: 3 });
  });

  test('two codes (max 4 each) on a coupon with max 5: 50 at once, 5 in all, neither code over 4', async () => {
    const c = await coupon({ maxRedemptions: 5 });
    const a = await promo({ couponId: c.id, code: 'RACE-A', maxRedemptions: 4 });
    const b = await promo({ couponId: c.id, code: 'RACE-B', maxRedemptions: 4 });
    const svc = createRedemptionService(wide);
    const { ok } = await settle(
      Array.from({ length: 50 }, (_, i) =>
        svc.redeem(scope, {
          target: { promotionCodeId: i % 2 ? a.id : b.id },
          amount: 1000,
          idempotencyKey: `race-ab-${i}`,
        }),
      ),
    );
    expect(ok).toBe(5);
    expect(await counts(c.id)).toEqual({ timesRedeemed: 5, rows: 5 });
    const codes = await stack.knex('promotion_codes').whereIn('id', [a.id, b.id]).select('times_redeemed');
    for (const row of codes) expect(row.times_redeemed).toBeLessThanOrEqual(4);
    const perCode = await stack
      .knex('coupon_redemptions')
      .where({ coupon_id: c.id })
      .groupBy('promotion_code_id')
      .select('promotion_code_id')
      .count<{ promotion_code_id: string; count: number }[]>('* as count');
    const byId = Object.fromEntries(perCode.map((r) => [r.promotion_code_id, Number(r.count)]));
    for (const row of await stack.knex('promotion_codes').whereIn('id', [a.id, b.id]))
      expect(byId[row.id] ?? 0).toBe(row.times_redeemed);
  });

  test('a first-time-only code used by one customer in 10 checkouts at once succeeds once', async () => {
    const c = await coupon();
    const cus = await customer();
    await promo({ couponId: c.id, code: 'FIRST-RACE', firstTimeTransaction: true });
    const svc = createRedemptionService(wide);
    const { ok, codes } = await settle(
      Array.from({ length: 10 }, (_, i) =>
        svc.redeem(scope, {
          target: { code: 'FIRST-RACE' },
          customerId: cus.id,
          amount: 1000,
          idempotencyKey: `ft-${i}`,
        }),
      ),
    );
    expect(ok).toBe(1);
    expect(new Set(codes)).toEqual(new Set(['promotion_code_first_time_only']));
  });
});

describe('idempotency by business key', () => {
  test('the same key 10 times at once: one redemption, counted once, every call gets it', async () => {
    const c = await coupon({ maxRedemptions: 10 });
    const svc = createRedemptionService(wide);
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        svc.redeem(scope, { target: { couponId: c.id }, amount: 2000, idempotencyKey: 'cs_same' }),
      ),
    );
    expect(new Set(results.map((r) => r.redemption.id)).size).toBe(1);
    expect(results.filter((r) => !r.replayed)).toHaveLength(1);
    expect(results.every((r) => r.pricing.amount === 1800 && r.pricing.discountAmount === 200)).toBe(true);
    expect(await counts(c.id)).toEqual({ timesRedeemed: 1, rows: 1 });
  });

  test('the same key for another coupon is refused', async () => {
    const c1 = await coupon();
    const c2 = await coupon();
    const k = key();
    await service().redeem(scope, { target: { couponId: c1.id }, amount: 100, idempotencyKey: k });
    await expect(
      service().redeem(scope, { target: { couponId: c2.id }, amount: 100, idempotencyKey: k }),
    ).rejects.toMatchObject({ status: 409, code: 'idempotency_key_reused', param: 'coupon' });
  });

  test('a replay still answers after the code was deactivated', async () => {
    const c = await coupon();
    const p = await promo({ couponId: c.id, code: 'GONE-LATER' });
    const k = key();
    const first = await service().redeem(scope, {
      target: { code: 'gone-later' },
      amount: 100,
      idempotencyKey: k,
    });
    await createPromotionCodeRepository(stack.knex).update(scope, p.id, { active: false });
    const again = await service().redeem(scope, {
      target: { code: 'GONE-LATER' },
      amount: 100,
      idempotencyKey: k,
    });
    expect(again).toMatchObject({ replayed: true, redemption: { id: first.redemption.id } });
  });
});

describe('restrictions', () => {
  const redeem = (req: Omit<RedemptionRequest, 'idempotencyKey'>) =>
    service().redeem(scope, { ...req, idempotencyKey: key() });

  test.each<[string, Partial<PromotionCodeInput>, Partial<RedemptionRequest>, string]>([
    ['another customer', { customerId: 'OTHER' }, { customerId: 'SELF' }, 'promotion_code_customer_mismatch'],
    ['no customer for a customer code', { customerId: 'SELF' }, {}, 'promotion_code_customer_required'],
    [
      'no customer for a first-time code',
      { firstTimeTransaction: true },
      {},
      'promotion_code_customer_required',
    ],
    ['below the minimum', { minimumAmount: 5000 }, { amount: 4999 }, 'promotion_code_minimum_amount'],
    [
      'expired by the test clock',
      { expiresAt: new Date('2030-01-01') },
      { at: new Date('2030-01-01') },
      'promotion_code_expired',
    ],
    ['inactive, by id', { active: false }, {}, 'promotion_code_inactive'],
  ])('%s is refused, and nothing is counted', async (_name, promoInput, req, code) => {
    const self = await customer();
    const other = await customer();
    const c = await coupon();
    const sub = (v: unknown) => (v === 'SELF' ? self.id : v === 'OTHER' ? other.id : v);
    const p = await promo({
      couponId: c.id,
      ...promoInput,
      customerId: (sub(promoInput.customerId) as string) ?? null,
    });
    await expect(
      redeem({
        target: { promotionCodeId: p.id },
        amount: 10_000,
        ...req,
        ...(req.customerId !== undefined && { customerId: sub(req.customerId) as string }),
      }),
    ).rejects.toMatchObject({ status: 400, code, param: 'promotion_code' });
    expect(await counts(c.id)).toEqual({ timesRedeemed: 0, rows: 0 });
  });

  test('the minimum met exactly, the right customer, a first purchase: accepted', async () => {
    const self = await customer();
    const c = await coupon({ percentOff: null, amountOff: 700 });
    const p = await promo({
      couponId: c.id,
      customerId: self.id,
      minimumAmount: 5000,
      firstTimeTransaction: true,
    });
    const r = await redeem({ target: { promotionCodeId: p.id }, customerId: self.id, amount: 5000 });
    expect(r.pricing).toEqual({ amountSubtotal: 5000, discountAmount: 700, amount: 4300, lines: null });
    expect(r.redemption).toMatchObject({
      amount_subtotal: 5000,
      discount_amount: 700,
      amount: 4300,
      customer_id: self.id,
    });
    expect(await service().isFirstTimeCustomer(scope, self.id)).toBe(false);
  });

  test('an unknown, deactivated or other-mode code is not found by its text', async () => {
    const c = await coupon();
    const p = await promo({ couponId: c.id, code: 'OFFLINE' });
    await createPromotionCodeRepository(stack.knex).update(scope, p.id, { active: false });
    for (const code of ['NOPE', 'offline'])
      await expect(redeem({ target: { code }, amount: 100 })).rejects.toMatchObject({
        code: 'promotion_code_invalid',
      });
    await expect(
      service().redeem(
        { ...scope, livemode: true },
        { target: { couponId: c.id }, amount: 100, idempotencyKey: key() },
      ),
    ).rejects.toMatchObject({ code: 'resource_missing', param: 'coupon' });
  });

  test('a deleted coupon or one past redeem_by is refused', async () => {
    const c = await coupon({ redeemBy: new Date('2031-01-01') });
    await expect(
      redeem({ target: { couponId: c.id }, amount: 100, at: new Date('2031-01-02') }),
    ).rejects.toMatchObject({ code: 'coupon_expired' });
    await createCouponRepository(stack.knex).delete(scope, c.id);
    await expect(redeem({ target: { couponId: c.id }, amount: 100 })).rejects.toMatchObject({
      code: 'coupon_deleted',
    });
  });

  test('a coupon restricted to products discounts only their lines, and needs one of them', async () => {
    const c = await coupon({ percentOff: '50', appliesToProducts: ['prod_book'] });
    const lines = [
      { productId: 'prod_book', quantity: 1, unitAmount: 3000, vatRate: 11 as const },
      { productId: 'prod_mug', quantity: 2, unitAmount: 1500, vatRate: 24 as const },
    ];
    const r = await redeem({ target: { couponId: c.id }, lines });
    expect(r.pricing).toMatchObject({ amountSubtotal: 6000, discountAmount: 1500, amount: 4500 });
    expect(r.pricing.lines!.map((l) => [l.discountAmount, l.vatAmount])).toEqual([
      [1500, 149], // 1500 × 11/111 = 148.6…
      [0, 581], // 3000 × 24/124 = 580.6…
    ]);
    await expect(redeem({ target: { couponId: c.id }, lines: [lines[1]!] })).rejects.toMatchObject({
      code: 'coupon_not_applicable',
    });
    await expect(redeem({ target: { couponId: c.id }, amount: 6000 })).rejects.toMatchObject({
      code: 'coupon_not_applicable',
    });
  });

  test('preview prices without counting', async () => {
    const c = await coupon({ maxRedemptions: 1 });
    const pricing = await service().preview(scope, {
      target: { couponId: c.id },
      amount: 999,
      idempotencyKey: key(),
    });
    expect(pricing).toEqual({ amountSubtotal: 999, discountAmount: 100, amount: 899, lines: null });
    expect(await counts(c.id)).toEqual({ timesRedeemed: 0, rows: 0 });
  });

  test("a refusal inside the caller's transaction leaves that transaction usable and nothing behind", async () => {
    const c = await coupon({ maxRedemptions: 1 });
    await redeem({ target: { couponId: c.id }, amount: 100 });
    await stack.knex.transaction(async (trx) => {
      await expect(
        service().redeem(scope, { target: { couponId: c.id }, amount: 100, idempotencyKey: key() }, trx),
      ).rejects.toMatchObject({ code: 'coupon_max_redemptions' });
      await trx('coupons').where({ id: c.id }).first(); // still usable
    });
    expect(await counts(c.id)).toEqual({ timesRedeemed: 1, rows: 1 });
  });
});

test('property: stored redemptions of any coupon / promotion code combination keep the invariant', async () => {
  const scenario = fc.record({
    off: fc.oneof(
      fc.integer({ min: 1, max: 10_000 }).map((h) => ({ percentOff: (h / 100).toFixed(2), amountOff: null })),
      fc.integer({ min: 1, max: 50_000 }).map((a) => ({ percentOff: null, amountOff: a })),
    ),
    restrict: fc.boolean(),
    viaCode: fc.boolean(),
    minimumAmount: fc.option(fc.integer({ min: 0, max: 20_000 }), { nil: null }),
    lines: fc.array(
      fc.record({
        productId: fc.constantFrom('prod_a', 'prod_b', null),
        quantity: fc.integer({ min: 1, max: 5 }),
        unitAmount: fc.integer({ min: 0, max: 20_000 }),
        vatRate: fc.constantFrom(0 as const, 11 as const, 24 as const),
      }),
      { minLength: 1, maxLength: 4 },
    ),
  });
  let stored = 0;
  await fc.assert(
    fc.asyncProperty(scenario, async (s) => {
      const c = await coupon({ ...s.off, appliesToProducts: s.restrict ? ['prod_a'] : null });
      const p = s.viaCode ? await promo({ couponId: c.id, minimumAmount: s.minimumAmount }) : null;
      const target = p ? { promotionCodeId: p.id } : { couponId: c.id };
      try {
        const r = await service().redeem(scope, { target, lines: s.lines, idempotencyKey: key() });
        const row = r.redemption;
        expect(row.amount).toBeGreaterThanOrEqual(0);
        expect(row.amount_subtotal).toBe(row.amount + row.discount_amount);
        const expected = priceLines(s.lines, {
          ...s.off,
          appliesToProducts: s.restrict ? ['prod_a'] : null,
        });
        expect([row.amount_subtotal, row.discount_amount, row.amount]).toEqual([
          expected.amountSubtotal,
          expected.discountAmount,
          expected.amount,
        ]);
        stored += 1;
      } catch (err) {
        expect(['coupon_not_applicable', 'promotion_code_minimum_amount']).toContain(
          (err as { code: string }).code,
        );
      }
    }),
    { numRuns: 60 },
  );
  expect(stored).toBeGreaterThan(10);
});
