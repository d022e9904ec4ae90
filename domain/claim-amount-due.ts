import Decimal from 'decimal.js';
import { nextBankingDay } from './banking-days';
import { addDays, daysBetween, parseDate, type DayCount } from './day-count';
import { accrueDefaultInterest } from './default-interest';
import type { DefaultInterestRateTable, PayerKind } from './default-interest-rates';

export { daysBetween, yearFraction, type DayCount } from './day-count';

/**
 * What a payer owes on a bank claim (krafa) on a given date: principal, notice fee, other costs,
 * default charges (vanskilagjald), default interest (dráttarvextir) and early-payment discount
 * (CLAIMS-DOMAIN.md §1.1, §1.6; IOBWS-Claims3.1 `defaultCharge`, `defaultInterest`, `discount`).
 *
 * Rules (decisions 0070, 0071, 0209):
 * - The claim is in default when paid after its final due date (eindagi); an eindagi on a
 *   non-banking day gives grace to the next banking day. Default charges, other default costs and
 *   default interest are due only then.
 * - Default interest runs from the reference date (gjalddagi or eindagi) to the payment date:
 *   `days = paymentDate − start` calendar days, counted by the rule's day count. Each day bears that
 *   day's rate (the statutory table's, or the claim's own percentage, a consumer's capped at the
 *   statutory one), and interest unpaid for twelve months is added to the principal once every
 *   twelve months (Act 38/2001 art. 12): `default-interest.ts`, decision 0209.
 * - Default charge tiers: the highest tier whose day count is exceeded applies (it replaces the
 *   lower one, it is not added), counted in days after the charge's reference date.
 * - Discount tiers: a tier applies when paid on or before `referenceDate − day`; the largest
 *   applicable discount wins. Percentage discounts are of the total before discount (the
 *   standard: "the discount amount is calculated from totalAmount").
 * - Money is integer ISK. Each computed component (percentage charge, interest, discount) is
 *   computed exactly with decimal.js and rounded half-up to whole krónur once, in `roundIsk`
 *   (interest added to the principal under art. 12 stays exact inside the interest component);
 *   the total is the sum of the rounded components, so the parts always add up to the total.
 */

export type ReferenceDateRule = 'DueDate' | 'FinalDueDate';

export interface DayAmountTier {
  /** Days from the reference date (after it for charges, before it for discounts), 0–99. */
  day: number;
  type: 'amount' | 'percentage';
  /** Whole ISK for `amount`, percent for `percentage`. */
  value: number;
}

export interface DefaultInterestRule {
  referenceDate: ReferenceDateRule;
  dayCount: DayCount;
  /** `principal` (IOBWS `Amount`) or `principal_and_default_charge` (`AmountAndDefaultCharge`). */
  basis: 'principal' | 'principal_and_default_charge';
  /**
   * Percent per year (per day for `daily`); absent means the statutory rate table from the options.
   * A consumer never owes more than the statutory rate of the day (decision 0209).
   */
  percentage?: number | undefined;
}

export interface ClaimTerms {
  /** Principal (höfuðstóll), whole ISK. */
  principal: number;
  /** Gjalddagi, `YYYY-MM-DD`. */
  dueDate: string;
  /** Eindagi, `YYYY-MM-DD`. */
  finalDueDate: string;
  /** Notice and payment fee (seðilgjald), whole ISK. */
  noticeFee?: number | undefined;
  otherCosts?: number | undefined;
  /** Due only once the claim is in default (e.g. a collection letter's fee). */
  otherDefaultCosts?: number | undefined;
  defaultCharge?: { referenceDate: ReferenceDateRule; tiers: DayAmountTier[] } | undefined;
  defaultInterest?: DefaultInterestRule | null | undefined;
  discount?: { referenceDate: ReferenceDateRule; tiers: DayAmountTier[] } | undefined;
  /**
   * Interest already settled up to this date (after a partial payment): interest starts at the
   * later of this and the reference date.
   */
  interestPaidThrough?: string | undefined;
}

export interface AmountDueOptions {
  /**
   * The statutory default-interest rates over time (Central Bank, Act 38/2001 art. 6): applied when
   * the interest rule names no percentage, and the cap on a consumer's agreed percentage.
   */
  statutoryRates?: DefaultInterestRateTable;
  /**
   * Who owes. `consumer`: the statutory consumer rate, and an agreed percentage capped at it;
   * `business`: the business rate, an agreed percentage as agreed. Omitted: the consumer rate when
   * none is agreed, an agreed percentage as agreed (what the bank itself computes; decision 0209).
   */
  payer?: PayerKind;
}

export interface AmountDue {
  date: string;
  inDefault: boolean;
  principal: number;
  noticeFee: number;
  otherCosts: number;
  otherDefaultCosts: number;
  defaultCharge: number;
  defaultInterest: number;
  /** Days of interest counted (by the day count's own calendar for 30E/360). */
  interestDays: number;
  /** Positive number subtracted from the total. */
  discount: number;
  total: number;
}

/** Whole ISK, half-up: the one place amounts are rounded. */
function roundIsk(value: Decimal): number {
  return value.toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();
}

function wholeIsk(name: string, value: number | undefined): number {
  const v = value ?? 0;
  if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`${name} must be a whole ISK amount ≥ 0`);
  return v;
}

function tierAmount(tier: DayAmountTier, base: number): Decimal {
  if (tier.type === 'amount') return new Decimal(wholeIsk('tier amount', tier.value));
  return new Decimal(base).times(new Decimal(tier.value)).div(100);
}

function checkTier(tier: DayAmountTier): void {
  if (!Number.isInteger(tier.day) || tier.day < 0 || tier.day > 99)
    throw new RangeError('tier day must be a whole number 0–99');
  if (!(tier.value >= 0)) throw new RangeError('tier value must be ≥ 0');
}

/** The amount due on `date` (the payment's value date, `YYYY-MM-DD`) under the claim's terms. */
export function claimAmountDue(terms: ClaimTerms, date: string, opts: AmountDueOptions = {}): AmountDue {
  parseDate(date);
  const principal = wholeIsk('principal', terms.principal);
  const noticeFee = wholeIsk('noticeFee', terms.noticeFee);
  const otherCosts = wholeIsk('otherCosts', terms.otherCosts);
  if (daysBetween(terms.dueDate, terms.finalDueDate) < 0)
    throw new RangeError('the final due date is before the due date');
  const refDate = (rule: ReferenceDateRule) => (rule === 'DueDate' ? terms.dueDate : terms.finalDueDate);

  const graceEnds = nextBankingDay(terms.finalDueDate);
  const inDefault = date > graceEnds;

  let defaultCharge = 0;
  if (inDefault && terms.defaultCharge) {
    const late = daysBetween(refDate(terms.defaultCharge.referenceDate), date);
    let best: DayAmountTier | undefined;
    for (const tier of terms.defaultCharge.tiers) {
      checkTier(tier);
      if (late > tier.day && (!best || tier.day > best.day)) best = tier;
    }
    if (best) defaultCharge = roundIsk(tierAmount(best, principal));
  }
  const otherDefaultCosts = inDefault ? wholeIsk('otherDefaultCosts', terms.otherDefaultCosts) : 0;

  let defaultInterest = 0;
  let interestDays = 0;
  const rule = terms.defaultInterest;
  if (inDefault && rule) {
    let start = refDate(rule.referenceDate);
    if (terms.interestPaidThrough && terms.interestPaidThrough > start) start = terms.interestPaidThrough;
    const base = rule.basis === 'principal_and_default_charge' ? principal + defaultCharge : principal;
    const { exact, days } = accrueDefaultInterest({
      principal: base,
      from: start,
      to: date,
      dayCount: rule.dayCount,
      rates: opts.statutoryRates,
      payer: opts.payer,
      agreedPercentage: rule.percentage,
    });
    defaultInterest = roundIsk(exact);
    interestDays = days;
  }

  const beforeDiscount =
    principal + noticeFee + otherCosts + otherDefaultCosts + defaultCharge + defaultInterest;

  let discount = 0;
  if (terms.discount) {
    const ref = refDate(terms.discount.referenceDate);
    for (const tier of terms.discount.tiers) {
      checkTier(tier);
      if (date <= addDays(ref, -tier.day))
        discount = Math.max(discount, roundIsk(tierAmount(tier, beforeDiscount)));
    }
    discount = Math.min(discount, beforeDiscount);
  }

  return {
    date,
    inDefault,
    principal,
    noticeFee,
    otherCosts,
    otherDefaultCosts,
    defaultCharge,
    defaultInterest,
    interestDays,
    discount,
    total: beforeDiscount - discount,
  };
}

/**
 * RB's default-interest codes (dráttarvaxtakóti, CLAIMS-DOMAIN.md §1.6) as rules. Codes 4/5, 7/8
 * and blank differed only in the 21:00 end-of-day convention that RB dropped on 8 September 2025.
 * Code 1 is "no interest" (null).
 */
export function rbDefaultInterestCode(
  code: '' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9',
  percentage?: number,
): DefaultInterestRule | null {
  const rule = (referenceDate: ReferenceDateRule, dayCount: DayCount): DefaultInterestRule => ({
    referenceDate,
    dayCount,
    basis: 'principal',
    percentage,
  });
  switch (code) {
    case '1':
      return null;
    case '':
    case '7':
    case '8':
      return rule('DueDate', '30E/360');
    case '2':
      return rule('FinalDueDate', '30E/360');
    case '3':
      return rule('FinalDueDate', 'daily');
    case '4':
    case '5':
    case '9':
      return rule('DueDate', 'actual/360');
    case '6':
      return rule('FinalDueDate', 'actual/360');
  }
}
