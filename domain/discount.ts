import Decimal from 'decimal.js';
import { addMonths } from 'date-fns';
import { fromZonedTime, toZonedTime } from 'date-fns-tz';
import { roundKronur, vatOf, type VatRate } from './vat';

/**
 * Discount computation for checkout sessions and subscriptions: pure, integer ISK in and out, one
 * half-up rounding per discount. Every result satisfies amount_subtotal = amount + discount_amount
 * (spec §2.1) and amount ≥ 0.
 */

/** What a coupon takes off: exactly one of a percentage (up to two decimals) or a fixed amount. */
export interface CouponTerms {
  /** Decimal text such as "12.5", kept out of floating point. */
  percentOff: string | null;
  amountOff: number | null;
  /** Only lines of these products are discounted; null means every line. */
  appliesToProducts: readonly string[] | null;
}

export interface AmountBreakdown {
  amountSubtotal: number;
  discountAmount: number;
  amount: number;
}

export interface LineInput {
  productId: string | null;
  quantity: number;
  /** VAT-inclusive price per unit. */
  unitAmount: number;
  vatRate: VatRate;
}

export interface PricedLine extends LineInput, AmountBreakdown {
  /** VAT contained in the line's amount after discount. */
  vatAmount: number;
}

export interface LinesBreakdown extends AmountBreakdown {
  lines: PricedLine[];
  vatAmount: number;
}

function assertAmount(value: number, name: string): void {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`${name} must be a whole ISK amount ≥ 0`);
}

/** The discount a coupon gives on an eligible amount: never more than the amount itself. */
export function discountOn(eligible: number, coupon: Pick<CouponTerms, 'percentOff' | 'amountOff'>): number {
  assertAmount(eligible, 'eligible');
  if (coupon.percentOff !== null) {
    const pct = new Decimal(coupon.percentOff);
    if (pct.lte(0) || pct.gt(100)) throw new RangeError('percentOff must be in (0, 100]');
    return Math.min(eligible, roundKronur(new Decimal(eligible).mul(pct).div(100)));
  }
  if (coupon.amountOff !== null) {
    assertAmount(coupon.amountOff, 'amountOff');
    return Math.min(eligible, coupon.amountOff);
  }
  return 0;
}

/** A plain amount (a checkout with no line items): product-restricted coupons do not apply. */
export function priceAmount(amountSubtotal: number, coupon: CouponTerms | null): AmountBreakdown {
  assertAmount(amountSubtotal, 'amount');
  const discountAmount = coupon && coupon.appliesToProducts === null ? discountOn(amountSubtotal, coupon) : 0;
  return { amountSubtotal, discountAmount, amount: amountSubtotal - discountAmount };
}

/** Whether a coupon reaches a line: it has no product list, or the line's product is on it. */
export function lineIsEligible(line: Pick<LineInput, 'productId'>, coupon: CouponTerms): boolean {
  return (
    coupon.appliesToProducts === null ||
    (line.productId !== null && coupon.appliesToProducts.includes(line.productId))
  );
}

/**
 * Splits a total discount over lines in proportion to their subtotals (largest remainder, ties to
 * the earlier line), so the parts are whole krónur that add up to the total exactly.
 */
export function allocate(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (sum === 0 || total === 0) return weights.map(() => 0);
  const exact = weights.map((w) => new Decimal(total).mul(w).div(sum));
  const parts = exact.map((d) => d.floor().toNumber());
  let left = total - parts.reduce((a, b) => a + b, 0);
  const order = exact
    .map((d, i) => ({ i, frac: d.minus(d.floor()) }))
    .sort((a, b) => b.frac.comparedTo(a.frac) || a.i - b.i);
  for (const { i } of order) {
    if (left === 0) break;
    parts[i]! += 1;
    left -= 1;
  }
  return parts;
}

/**
 * Prices line items with an optional coupon: the discount is computed once on the eligible
 * subtotal, spread over the eligible lines, and each line's VAT is taken from what is left of it.
 */
export function priceLines(lines: readonly LineInput[], coupon: CouponTerms | null): LinesBreakdown {
  const subtotals = lines.map((l) => {
    if (!Number.isSafeInteger(l.quantity) || l.quantity < 1) throw new RangeError('quantity must be ≥ 1');
    assertAmount(l.unitAmount, 'unitAmount');
    const subtotal = l.unitAmount * l.quantity;
    assertAmount(subtotal, 'line subtotal');
    return subtotal;
  });
  const eligible = subtotals.map((s, i) => (coupon && lineIsEligible(lines[i]!, coupon) ? s : 0));
  const eligibleTotal = eligible.reduce((a, b) => a + b, 0);
  const discount = coupon ? discountOn(eligibleTotal, coupon) : 0;
  const shares = allocate(discount, eligible);
  const priced = lines.map((l, i): PricedLine => {
    const amountSubtotal = subtotals[i]!;
    const discountAmount = shares[i]!;
    const amount = amountSubtotal - discountAmount;
    return { ...l, amountSubtotal, discountAmount, amount, vatAmount: vatOf(amount, l.vatRate) };
  });
  const sum = (f: (l: PricedLine) => number) => priced.reduce((a, l) => a + f(l), 0);
  return {
    lines: priced,
    amountSubtotal: sum((l) => l.amountSubtotal),
    discountAmount: sum((l) => l.discountAmount),
    amount: sum((l) => l.amount),
    vatAmount: sum((l) => l.vatAmount),
  };
}

const ZONE = 'Atlantic/Reykjavik';

function addReykjavikMonths(date: Date, months: number): Date {
  return fromZonedTime(addMonths(toZonedTime(date, ZONE), months), ZONE);
}

/** How long a discount lasts once applied (Stripe's coupon `duration`). */
export type CouponDuration =
  | { duration: 'once' }
  | { duration: 'forever' }
  | { duration: 'repeating'; months: number | null; periods: number | null };

/**
 * Whether a discount applied at `discountStart` still covers a billing period: `once` covers the
 * first period only; `repeating` covers the first N periods, or the periods that start within N
 * months on the Reykjavik calendar (Jan 31 + 1 month = Feb 28/29); `forever` covers all.
 */
export function discountCoversPeriod(
  terms: CouponDuration,
  period: { index: number; start: Date },
  discountStart: Date,
): boolean {
  switch (terms.duration) {
    case 'once':
      return period.index === 0;
    case 'forever':
      return true;
    case 'repeating':
      if (terms.periods !== null) return period.index < terms.periods;
      return period.start.getTime() < addReykjavikMonths(discountStart, terms.months ?? 0).getTime();
  }
}
