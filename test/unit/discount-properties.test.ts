import fc from 'fast-check';
import Decimal from 'decimal.js';
import { priceAmount, priceLines, type CouponTerms, type LineInput } from '../../domain/discount';
import { promotionRejection, type PromotionState, type RedemptionContext } from '../../domain/redemption';
import { vatOf } from '../../domain/vat';

/**
 * No coupon or promotion code combination makes an amount negative or breaks
 * amount_subtotal = amount + discount_amount (spec §2.1), for plain amounts and line items.
 */

const PRODUCTS = ['prod_a', 'prod_b', 'prod_c'];
const MAX_AMOUNT = 999_999_999_999;

const percentOff = fc
  .integer({ min: 1, max: 10_000 })
  .map((hundredths) => new Decimal(hundredths).div(100).toString());
const coupon: fc.Arbitrary<CouponTerms> = fc
  .record({
    off: fc.oneof(
      percentOff.map((p) => ({ percentOff: p, amountOff: null })),
      fc.integer({ min: 1, max: MAX_AMOUNT }).map((a) => ({ percentOff: null, amountOff: a })),
      fc.integer({ min: 1, max: 5000 }).map((a) => ({ percentOff: null, amountOff: a })),
    ),
    appliesToProducts: fc.option(fc.subarray(PRODUCTS, { minLength: 1 }), { nil: null }),
  })
  .map(({ off, appliesToProducts }) => ({ ...off, appliesToProducts }));

const line: fc.Arbitrary<LineInput> = fc.record({
  productId: fc.constantFrom(...PRODUCTS, null),
  quantity: fc.integer({ min: 1, max: 1000 }),
  unitAmount: fc.oneof(fc.integer({ min: 0, max: 100_000 }), fc.integer({ min: 0, max: 1_000_000_000 })),
  vatRate: fc.constantFrom(0 as const, 11 as const, 24 as const),
});

const promotion: fc.Arbitrary<PromotionState> = fc.record({
  active: fc.boolean(),
  expiresAt: fc.option(
    fc.date({ min: new Date('2026-01-01'), max: new Date('2027-01-01'), noInvalidDate: true }),
    {
      nil: null,
    },
  ),
  maxRedemptions: fc.option(fc.integer({ min: 1, max: 5 }), { nil: null }),
  timesRedeemed: fc.integer({ min: 0, max: 5 }),
  customerId: fc.option(fc.constantFrom('cus_1', 'cus_2'), { nil: null }),
  firstTimeTransaction: fc.boolean(),
  minimumAmount: fc.option(fc.integer({ min: 0, max: 10_000_000 }), { nil: null }),
});

const context = (amountSubtotal: number): fc.Arbitrary<RedemptionContext> =>
  fc.record({
    at: fc.date({ min: new Date('2026-01-01'), max: new Date('2027-01-01'), noInvalidDate: true }),
    customerId: fc.option(fc.constantFrom('cus_1', 'cus_2'), { nil: null }),
    firstTimeCustomer: fc.boolean(),
    amountSubtotal: fc.constant(amountSubtotal),
  });

const RUNS = { numRuns: 2000 };

test('a plain amount: never negative, subtotal = amount + discount, discount ≤ subtotal', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: MAX_AMOUNT }), fc.option(coupon, { nil: null }), (amount, c) => {
      const r = priceAmount(amount, c);
      expect(r.amount).toBeGreaterThanOrEqual(0);
      expect(r.discountAmount).toBeGreaterThanOrEqual(0);
      expect(r.amountSubtotal).toBe(amount);
      expect(r.amountSubtotal).toBe(r.amount + r.discountAmount);
      expect(Number.isSafeInteger(r.amount) && Number.isSafeInteger(r.discountAmount)).toBe(true);
    }),
    RUNS,
  );
});

test('line items: every line and the total keep the invariant, discounts stay on eligible lines', () => {
  fc.assert(
    fc.property(fc.array(line, { maxLength: 12 }), fc.option(coupon, { nil: null }), (lines, c) => {
      const r = priceLines(lines, c);
      for (const [i, l] of r.lines.entries()) {
        expect(l.amount).toBeGreaterThanOrEqual(0);
        expect(l.discountAmount).toBeGreaterThanOrEqual(0);
        expect(l.amountSubtotal).toBe(lines[i]!.unitAmount * lines[i]!.quantity);
        expect(l.amountSubtotal).toBe(l.amount + l.discountAmount);
        expect(l.vatAmount).toBe(vatOf(l.amount, l.vatRate));
        expect(l.vatAmount).toBeLessThanOrEqual(l.amount);
        const eligible =
          c !== null && (c.appliesToProducts === null || c.appliesToProducts.includes(l.productId!));
        if (!eligible) expect(l.discountAmount).toBe(0);
      }
      expect(r.amount).toBeGreaterThanOrEqual(0);
      expect(r.amountSubtotal).toBe(r.amount + r.discountAmount);
      expect(r.discountAmount).toBe(r.lines.reduce((a, l) => a + l.discountAmount, 0));
      if (c?.percentOff === '100' && c.appliesToProducts === null) expect(r.amount).toBe(0);
    }),
    { numRuns: 1000 },
  );
});

test('with a promotion code: either refused, or priced with the invariant and its minimum met', () => {
  const scenario = fc
    .record({ lines: fc.array(line, { minLength: 1, maxLength: 6 }), coupon, promo: promotion })
    .chain((s) => {
      const subtotal = s.lines.reduce((a, l) => a + l.unitAmount * l.quantity, 0);
      return context(subtotal).map((ctx) => ({ ...s, ctx }));
    });
  let accepted = 0;
  fc.assert(
    fc.property(scenario, ({ lines, coupon: c, promo, ctx }) => {
      const refused = promotionRejection(promo, ctx);
      if (refused) return;
      accepted += 1;
      const r = priceLines(lines, c);
      expect(r.amount).toBeGreaterThanOrEqual(0);
      expect(r.amountSubtotal).toBe(r.amount + r.discountAmount);
      if (promo.minimumAmount !== null) expect(r.amountSubtotal).toBeGreaterThanOrEqual(promo.minimumAmount);
      if (promo.customerId !== null) expect(ctx.customerId).toBe(promo.customerId);
    }),
    RUNS,
  );
  expect(accepted).toBeGreaterThan(20); // the property was exercised, not vacuously true
});
