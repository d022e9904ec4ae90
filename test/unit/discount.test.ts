import Decimal from 'decimal.js';
import { roundKronur, vatOf, type VatRate } from '../../domain/vat';
import {
  allocate,
  discountCoversPeriod,
  discountOn,
  priceAmount,
  priceLines,
  type CouponTerms,
} from '../../domain/discount';
import {
  couponRejection,
  promotionRejection,
  type CouponState,
  type PromotionState,
  type RedemptionContext,
} from '../../domain/redemption';

const percent = (p: string, appliesToProducts: string[] | null = null): CouponTerms => ({
  percentOff: p,
  amountOff: null,
  appliesToProducts,
});
const amountOff = (a: number, appliesToProducts: string[] | null = null): CouponTerms => ({
  percentOff: null,
  amountOff: a,
  appliesToProducts,
});

describe('roundKronur: half up, once', () => {
  test.each([
    ['0.5', 1],
    ['1.5', 2],
    ['2.5', 3],
    ['1.4999999', 1],
    ['193548387096.580645', 193548387097],
    ['0', 0],
  ])('%s → %d', (value, expected) => expect(roundKronur(new Decimal(value))).toBe(expected));
});

describe('vatOf: the VAT inside a VAT-inclusive ISK amount', () => {
  test.each<[number, VatRate, number]>([
    [1240, 24, 240],
    [1000, 24, 194], // 193.548…
    [100, 24, 19], // 19.354…
    [3, 24, 1], // 0.580…
    [2, 24, 0], // 0.387…
    [1110, 11, 110],
    [1000, 11, 99], // 99.099…
    [9, 11, 1], // 0.891…
    [5, 11, 0], // 0.495…
    [1000, 0, 0],
    [0, 24, 0],
    [999_999_999_999, 24, 193_548_387_097],
  ])('%d ISK at %d%% holds %d ISK VAT', (gross, rate, vat) => expect(vatOf(gross, rate)).toBe(vat));

  test('refuses a fractional or negative gross', () => {
    expect(() => vatOf(10.5, 24)).toThrow(RangeError);
    expect(() => vatOf(-1, 24)).toThrow(RangeError);
  });
});

describe('discountOn', () => {
  test.each<[string, number, CouponTerms, number]>([
    ['10% of 1000', 1000, percent('10'), 100],
    ['12.5% of 999 (124.875)', 999, percent('12.5'), 125],
    ['33.33% of 100', 100, percent('33.33'), 33],
    ['50% of 1 (0.5 rounds up)', 1, percent('50'), 1],
    ['50% of 3 (1.5 rounds up)', 3, percent('50'), 2],
    ['100% of 12345', 12345, percent('100'), 12345],
    ['0.01% of 49', 49, percent('0.01'), 0],
    ['0.01% of 5000 (0.5)', 5000, percent('0.01'), 1],
    ['500 off 1000', 1000, amountOff(500), 500],
    ['500 off 300 is capped', 300, amountOff(500), 300],
    ['anything off 0', 0, amountOff(500), 0],
  ])('%s → %d', (_name, amount, coupon, expected) => expect(discountOn(amount, coupon)).toBe(expected));

  test('refuses a percentage out of range', () => {
    expect(() => discountOn(100, percent('0'))).toThrow(RangeError);
    expect(() => discountOn(100, percent('100.01'))).toThrow(RangeError);
  });
});

describe('priceAmount (a checkout without line items)', () => {
  test.each<[string, number, CouponTerms | null, [number, number, number]]>([
    ['no coupon', 5000, null, [5000, 0, 5000]],
    ['20% off', 5000, percent('20'), [5000, 1000, 4000]],
    ['amount off larger than the amount', 400, amountOff(1000), [400, 400, 0]],
    ['a coupon restricted to products does not apply', 5000, percent('20', ['prod_a']), [5000, 0, 5000]],
  ])('%s', (_name, amount, coupon, [amountSubtotal, discountAmount, net]) => {
    expect(priceAmount(amount, coupon)).toEqual({ amountSubtotal, discountAmount, amount: net });
  });
});

describe('allocate: whole krónur in proportion, summing exactly', () => {
  test.each<[number, number[], number[]]>([
    [250, [2000, 500], [200, 50]],
    [100, [1, 1, 1], [34, 33, 33]],
    [5, [1, 2], [2, 3]],
    [10, [3, 7], [3, 7]],
    [0, [3, 7], [0, 0]],
    [7, [0, 0], [0, 0]],
    [3, [0, 5, 0], [0, 3, 0]],
  ])('%d over %j → %j', (total, weights, expected) => expect(allocate(total, weights)).toEqual(expected));
});

describe('priceLines', () => {
  const lines = [
    { productId: 'prod_a', quantity: 2, unitAmount: 1000, vatRate: 24 as const },
    { productId: 'prod_b', quantity: 1, unitAmount: 500, vatRate: 11 as const },
    { productId: null, quantity: 3, unitAmount: 100, vatRate: 0 as const },
  ];

  test('no coupon: VAT per line at 24, 11 and 0 percent', () => {
    const r = priceLines(lines, null);
    expect(r.lines.map((l) => [l.amountSubtotal, l.discountAmount, l.amount, l.vatAmount])).toEqual([
      [2000, 0, 2000, 387], // 387.09…
      [500, 0, 500, 50], // 49.54…
      [300, 0, 300, 0],
    ]);
    expect(r).toMatchObject({ amountSubtotal: 2800, discountAmount: 0, amount: 2800, vatAmount: 437 });
  });

  test('10% off everything: one rounding, spread over the lines, VAT from what is left', () => {
    const r = priceLines(lines, percent('10'));
    expect(r.lines.map((l) => [l.discountAmount, l.amount, l.vatAmount])).toEqual([
      [200, 1800, 348], // 348.38…
      [50, 450, 45], // 44.59…
      [30, 270, 0],
    ]);
    expect(r).toMatchObject({ amountSubtotal: 2800, discountAmount: 280, amount: 2520, vatAmount: 393 });
  });

  test('an amount off restricted to one product touches only its line', () => {
    const r = priceLines(lines, amountOff(100, ['prod_b']));
    expect(r.lines.map((l) => l.discountAmount)).toEqual([0, 100, 0]);
    expect(r.lines[1]).toMatchObject({ amount: 400, vatAmount: 40 }); // 39.63…
    expect(r).toMatchObject({ amountSubtotal: 2800, discountAmount: 100, amount: 2700 });
  });

  test('33.33% of three equal lines: the rounded total is spread without losing a króna', () => {
    const three = [1, 2, 3].map((i) => ({
      productId: `prod_${i}`,
      quantity: 1,
      unitAmount: 10,
      vatRate: 24 as const,
    }));
    const r = priceLines(three, percent('33.33'));
    expect(r.discountAmount).toBe(10); // 9.999 → 10, once
    expect(r.lines.map((l) => l.discountAmount)).toEqual([4, 3, 3]);
  });

  test('refuses a zero quantity', () => {
    expect(() => priceLines([{ ...lines[0]!, quantity: 0 }], null)).toThrow(RangeError);
  });
});

describe('discountCoversPeriod', () => {
  const start = new Date('2026-01-31T00:00:00Z');
  test.each<[string, Parameters<typeof discountCoversPeriod>[0], number, string, boolean]>([
    ['once: the first period', { duration: 'once' }, 0, '2026-01-31', true],
    ['once: not the second', { duration: 'once' }, 1, '2026-02-28', false],
    ['forever: the 100th period', { duration: 'forever' }, 99, '2034-05-31', true],
    ['3 periods: the third', { duration: 'repeating', months: null, periods: 3 }, 2, '2026-03-31', true],
    [
      '3 periods: not the fourth',
      { duration: 'repeating', months: null, periods: 3 },
      3,
      '2026-04-30',
      false,
    ],
    [
      '1 month from Jan 31: Feb 27 starts inside',
      { duration: 'repeating', months: 1, periods: null },
      1,
      '2026-02-27',
      true,
    ],
    [
      '1 month from Jan 31 ends Feb 28',
      { duration: 'repeating', months: 1, periods: null },
      1,
      '2026-02-28',
      false,
    ],
    [
      '2 months, weekly periods: Mar 30 inside',
      { duration: 'repeating', months: 2, periods: null },
      8,
      '2026-03-30',
      true,
    ],
    [
      '2 months, weekly periods: Mar 31 outside',
      { duration: 'repeating', months: 2, periods: null },
      9,
      '2026-03-31',
      false,
    ],
  ])('%s', (_name, terms, index, day, expected) => {
    expect(discountCoversPeriod(terms, { index, start: new Date(`${day}T00:00:00Z`) }, start)).toBe(expected);
  });
});

describe('redemption rules', () => {
  const at = new Date('2026-06-01T12:00:00Z');
  const coupon: CouponState = { deleted: false, redeemBy: null, maxRedemptions: null, timesRedeemed: 0 };
  const promo: PromotionState = {
    active: true,
    expiresAt: null,
    maxRedemptions: null,
    timesRedeemed: 0,
    customerId: null,
    firstTimeTransaction: false,
    minimumAmount: null,
  };
  const ctx: RedemptionContext = { at, customerId: 'cus_1', firstTimeCustomer: true, amountSubtotal: 5000 };

  test.each<[string, Partial<CouponState>, string | null]>([
    ['a plain coupon', {}, null],
    ['deleted', { deleted: true }, 'coupon_deleted'],
    ['redeem_by passed', { redeemBy: new Date('2026-06-01T11:59:59Z') }, 'coupon_expired'],
    ['redeem_by exactly now', { redeemBy: at }, 'coupon_expired'],
    ['redeem_by ahead', { redeemBy: new Date('2026-06-01T12:00:01Z') }, null],
    ['max reached', { maxRedemptions: 1, timesRedeemed: 1 }, 'coupon_max_redemptions'],
    ['max not reached', { maxRedemptions: 2, timesRedeemed: 1 }, null],
  ])('coupon: %s', (_name, change, code) => {
    expect(couponRejection({ ...coupon, ...change }, at)?.code ?? null).toBe(code);
  });

  test.each<[string, Partial<PromotionState>, Partial<RedemptionContext>, string | null]>([
    ['a plain code', {}, {}, null],
    ['inactive', { active: false }, {}, 'promotion_code_inactive'],
    ['expired', { expiresAt: at }, {}, 'promotion_code_expired'],
    ['max reached', { maxRedemptions: 3, timesRedeemed: 3 }, {}, 'promotion_code_max_redemptions'],
    ['for another customer', { customerId: 'cus_2' }, {}, 'promotion_code_customer_mismatch'],
    ['for this customer', { customerId: 'cus_1' }, {}, null],
    [
      'customer-restricted, no customer',
      { customerId: 'cus_1' },
      { customerId: null },
      'promotion_code_customer_required',
    ],
    [
      'first-time, no customer',
      { firstTimeTransaction: true },
      { customerId: null },
      'promotion_code_customer_required',
    ],
    [
      'first-time, returning customer',
      { firstTimeTransaction: true },
      { firstTimeCustomer: false },
      'promotion_code_first_time_only',
    ],
    ['first-time, first purchase', { firstTimeTransaction: true }, {}, null],
    ['minimum not met', { minimumAmount: 5001 }, {}, 'promotion_code_minimum_amount'],
    ['minimum met exactly', { minimumAmount: 5000 }, {}, null],
  ])('promotion code: %s', (_name, change, context, code) => {
    expect(promotionRejection({ ...promo, ...change }, { ...ctx, ...context })?.code ?? null).toBe(code);
  });
});
