import Decimal from 'decimal.js';
import { addMonths, yearFraction, type DayCount } from './day-count';
import {
  checkRateTable,
  rateChangesBetween,
  statutoryRateOn,
  type DefaultInterestRateTable,
  type PayerKind,
} from './default-interest-rates';

/**
 * Default interest (dráttarvextir) on an unpaid amount from the day it starts to run to the
 * payment date, as Act 38/2001 computes it (decision 0209):
 * - each day bears that day's rate: the period is split at every date the rate table changes;
 * - interest unpaid for twelve months is added to the principal, once every twelve months counted
 *   from the day interest started (art. 12): on each anniversary before the payment date, the
 *   interest of the twelve months just ended joins the base the next twelve months bear interest on;
 * - days are counted by the claim's own day count (`day-count.ts`), which is additive, so
 *   splitting never moves a figure by itself.
 *
 * Which rate a day bears (decision 0209): no agreed percentage → the statutory rate for the payer
 * kind (consumer when unknown); an agreed percentage → that percentage, except that a consumer
 * never owes more than the statutory rate of the day (Act 38/2001 art. 2: the Act's default-interest
 * rules give way only where it says so or in the debtor's favour). A `daily` percentage is a rate
 * per day and is not compared with the yearly statutory rate.
 *
 * The result is exact; the caller rounds it once to whole krónur (`claim-amount-due.ts`).
 */

export interface DefaultInterestInput {
  /** The amount interest runs on, whole ISK (principal, or principal and default charge). */
  principal: number;
  /** First day interest runs. */
  from: string;
  /** Payment date: interest runs up to, not including, this day. */
  to: string;
  dayCount: DayCount;
  /** The statutory table; needed unless an agreed percentage applies uncapped. */
  rates?: DefaultInterestRateTable | undefined;
  /** Who owes: decides the statutory rate and whether an agreed rate is capped. */
  payer?: PayerKind | undefined;
  /** The claim's own percentage (per year; per day for `daily`). */
  agreedPercentage?: number | undefined;
}

export interface DefaultInterestResult {
  /** Exact interest, not rounded. */
  exact: Decimal;
  /** Days counted by the day count over the whole period. */
  days: number;
  /** How many times interest was added to the principal (art. 12). */
  capitalisations: number;
}

/** The percentage a day bears, per the rule above. */
function dayRate(input: DefaultInterestInput, date: string): Decimal {
  const { agreedPercentage: agreed, payer, rates, dayCount } = input;
  if (agreed !== undefined && (dayCount === 'daily' || payer !== 'consumer')) return new Decimal(agreed);
  if (!rates)
    throw new RangeError(
      agreed === undefined
        ? 'the interest rule names no percentage and no statutory rate table was given'
        : "a consumer's agreed rate is capped at the statutory rate, and no statutory rate table was given",
    );
  const statutory = statutoryRateOn(rates, date, payer ?? 'consumer');
  return agreed === undefined ? statutory : Decimal.min(new Decimal(agreed), statutory);
}

export function accrueDefaultInterest(input: DefaultInterestInput): DefaultInterestResult {
  const { from, to, dayCount } = input;
  if (!Number.isSafeInteger(input.principal) || input.principal < 0)
    throw new RangeError('the amount interest runs on must be a whole ISK amount ≥ 0');
  if (input.agreedPercentage !== undefined && !(input.agreedPercentage >= 0))
    throw new RangeError('the interest percentage must be ≥ 0');
  if (input.rates) checkRateTable(input.rates);
  const days = yearFraction(from, to, dayCount).days;
  if (!(to > from)) return { exact: new Decimal(0), days, capitalisations: 0 };

  const anniversaries = new Set<string>();
  for (let k = 1; ; k++) {
    const a = addMonths(from, 12 * k);
    if (a >= to) break;
    anniversaries.add(a);
  }
  const cuts = new Set([...anniversaries, ...(input.rates ? rateChangesBetween(input.rates, from, to) : [])]);
  const boundaries = [from, ...[...cuts].sort(), to];

  let base = new Decimal(input.principal);
  let total = new Decimal(0);
  let sinceCapitalised = new Decimal(0);
  let capitalisations = 0;
  for (let i = 0; i + 1 < boundaries.length; i++) {
    const start = boundaries[i]!;
    const end = boundaries[i + 1]!;
    const interest = base
      .times(dayRate(input, start))
      .div(100)
      .times(yearFraction(start, end, dayCount).fraction);
    total = total.plus(interest);
    sinceCapitalised = sinceCapitalised.plus(interest);
    if (anniversaries.has(end)) {
      base = base.plus(sinceCapitalised);
      sinceCapitalised = new Decimal(0);
      capitalisations++;
    }
  }
  return { exact: total, days, capitalisations };
}
