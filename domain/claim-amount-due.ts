import Decimal from 'decimal.js';
import { nextBankingDay } from './banking-days';

/**
 * What a payer owes on a bank claim (krafa) on a given date: principal, notice fee, other costs,
 * default charges (vanskilagjald), default interest (dráttarvextir) and early-payment discount
 * (CLAIMS-DOMAIN.md §1.1, §1.6; IOBWS-Claims3.1 `defaultCharge`, `defaultInterest`, `discount`).
 *
 * Rules (decisions 0070, 0071):
 * - The claim is in default when paid after its final due date (eindagi); an eindagi on a
 *   non-banking day gives grace to the next banking day. Default charges, other default costs and
 *   default interest are due only then.
 * - Default interest runs from the reference date (gjalddagi or eindagi) to the payment date:
 *   `days = paymentDate − start` calendar days, counted by the rule's day count. Simple interest,
 *   one rate for the whole period; the 12-month capitalisation of Act 38/2001 is not modelled.
 * - Default charge tiers: the highest tier whose day count is exceeded applies (it replaces the
 *   lower one, it is not added), counted in days after the charge's reference date.
 * - Discount tiers: a tier applies when paid on or before `referenceDate − day`; the largest
 *   applicable discount wins. Percentage discounts are of the total before discount (the
 *   standard: "the discount amount is calculated from totalAmount").
 * - Money is integer ISK. Each computed component (percentage charge, interest, discount) is
 *   computed exactly with decimal.js and rounded half-up to whole krónur once, in `roundIsk`;
 *   the total is the sum of the rounded components, so the parts always add up to the total.
 */

export type ReferenceDateRule = 'DueDate' | 'FinalDueDate';

/**
 * Day counts: `actual/360` (IOBWS `360`), `actual/actual` (IOBWS `Calendar`: days in each calendar
 * year over 365 or 366), `actual/365` (fixed 365), `30E/360` (RB "360/360"), and `daily`
 * (IOBWS `Daily`, state claims: the percentage is per day).
 */
export type DayCount = 'actual/360' | 'actual/actual' | 'actual/365' | '30E/360' | 'daily';

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
  /** Percent per year (per day for `daily`); absent means the statutory rate from the options. */
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
  /** Percent per year applied when the interest rule names no percentage (Central Bank maximum). */
  statutoryDefaultRate?: number;
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

const DAY_MS = 86_400_000;

function parseDate(date: string): number {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new RangeError(`expected a YYYY-MM-DD date, got ${date}`);
  const ms = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== date)
    throw new RangeError(`not a calendar date: ${date}`);
  return ms;
}

/** Calendar days from `a` to `b` (negative when b is earlier). */
export function daysBetween(a: string, b: string): number {
  return Math.round((parseDate(b) - parseDate(a)) / DAY_MS);
}

function addDays(date: string, n: number): string {
  return new Date(parseDate(date) + n * DAY_MS).toISOString().slice(0, 10);
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

/**
 * Year fraction between two dates under a day count, exact. Returns the fraction and the day count's
 * number of days. For `daily` the "fraction" is the number of days (the rate is per day).
 */
export function yearFraction(
  from: string,
  to: string,
  dayCount: DayCount,
): { fraction: Decimal; days: number } {
  const actual = daysBetween(from, to);
  if (actual <= 0) return { fraction: new Decimal(0), days: 0 };
  switch (dayCount) {
    case 'actual/360':
      return { fraction: new Decimal(actual).div(360), days: actual };
    case 'actual/365':
      return { fraction: new Decimal(actual).div(365), days: actual };
    case 'daily':
      return { fraction: new Decimal(actual), days: actual };
    case '30E/360': {
      const [y1, m1, d1] = from.split('-').map(Number) as [number, number, number];
      const [y2, m2, d2] = to.split('-').map(Number) as [number, number, number];
      const days = 360 * (y2 - y1) + 30 * (m2 - m1) + (Math.min(d2, 30) - Math.min(d1, 30));
      return { fraction: new Decimal(days).div(360), days };
    }
    case 'actual/actual': {
      // Split at each 1 January: days in year y count against that year's length.
      let fraction = new Decimal(0);
      let start = from;
      while (start < to) {
        const year = Number(start.slice(0, 4));
        const nextYear = `${year + 1}-01-01`;
        const end = to < nextYear ? to : nextYear;
        const yearLength = daysBetween(`${year}-01-01`, nextYear);
        fraction = fraction.plus(new Decimal(daysBetween(start, end)).div(yearLength));
        start = end;
      }
      return { fraction, days: actual };
    }
  }
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
    const percentage = rule.percentage ?? opts.statutoryDefaultRate;
    if (percentage === undefined)
      throw new RangeError('the interest rule names no percentage and no statutory rate was given');
    let start = refDate(rule.referenceDate);
    if (terms.interestPaidThrough && terms.interestPaidThrough > start) start = terms.interestPaidThrough;
    const { fraction, days } = yearFraction(start, date, rule.dayCount);
    const base = rule.basis === 'principal_and_default_charge' ? principal + defaultCharge : principal;
    defaultInterest = roundIsk(new Decimal(base).times(new Decimal(percentage)).div(100).times(fraction));
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
