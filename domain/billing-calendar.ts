import { addMonths, addWeeks, addYears, differenceInCalendarDays } from 'date-fns';
import { fromZonedTime, toZonedTime } from 'date-fns-tz';
import Decimal from 'decimal.js';

/** Billing calendar logic runs in Iceland's time zone (architecture, "Money, time and identifiers"). */
export const BILLING_TIME_ZONE = 'Atlantic/Reykjavik';

export type BillingInterval = 'week' | 'month' | 'year';

export interface Recurrence {
  interval: BillingInterval;
  /** Intervals per period, e.g. 3 with `month` bills quarterly. */
  intervalCount: number;
}

export interface BillingPeriod {
  /** 0 for the period that starts at the anchor. */
  index: number;
  start: Date;
  end: Date;
}

/**
 * Iceland's clocks have shown UTC all year since April 1968 (the time-zone database's
 * Atlantic/Reykjavik), so for an anchor from 1970 on a period's boundary is UTC calendar arithmetic.
 * The zone conversion it saves was a twentieth of the worker's CPU on a renewal day (two per
 * subscription); the unit tests hold both ways equal across the calendar.
 */
export const ICELAND_ON_UTC_SINCE = Date.UTC(1970, 0, 1);

/** The anchor moved by `steps` intervals on the UTC calendar, as date-fns moves a wall time. */
export function utcPeriodStart(anchor: Date, interval: BillingInterval, steps: number): Date {
  if (interval === 'week') return new Date(anchor.getTime() + steps * 7 * 86_400_000);
  const months = interval === 'month' ? steps : steps * 12;
  const moved = new Date(anchor.getTime());
  // The first of the target month, then the anchor's day, or the month's last when it is shorter.
  moved.setUTCFullYear(anchor.getUTCFullYear(), anchor.getUTCMonth() + months, 1);
  const lastDay = new Date(Date.UTC(moved.getUTCFullYear(), moved.getUTCMonth() + 1, 0)).getUTCDate();
  moved.setUTCDate(Math.min(anchor.getUTCDate(), lastDay));
  return moved;
}

/**
 * Start of period `index`, counted from the anchor itself, never from the previous boundary: so the
 * anchor's day survives short months. Monthly from 31 Jan gives 28/29 Feb, 31 Mar, 30 Apr; yearly from
 * 29 Feb gives 28 Feb, then 29 Feb again in leap years; weekly keeps the weekday and the wall time.
 */
export function periodStart(anchor: Date, recurrence: Recurrence, index: number): Date {
  if (!Number.isInteger(index) || index < 0)
    throw new RangeError(`period index must be a whole number ≥ 0, got ${index}`);
  if (!Number.isInteger(recurrence.intervalCount) || recurrence.intervalCount < 1) {
    throw new RangeError(`interval count must be a whole number ≥ 1, got ${recurrence.intervalCount}`);
  }
  const steps = index * recurrence.intervalCount;
  if (anchor.getTime() >= ICELAND_ON_UTC_SINCE) return utcPeriodStart(anchor, recurrence.interval, steps);
  const wall = toZonedTime(anchor, BILLING_TIME_ZONE);
  const shifted =
    recurrence.interval === 'week'
      ? addWeeks(wall, steps)
      : recurrence.interval === 'month'
        ? addMonths(wall, steps)
        : addYears(wall, steps);
  return fromZonedTime(shifted, BILLING_TIME_ZONE);
}

/** Period `index`: from its start up to (not including) the next period's start. */
export function periodAt(anchor: Date, recurrence: Recurrence, index: number): BillingPeriod {
  return {
    index,
    start: periodStart(anchor, recurrence, index),
    end: periodStart(anchor, recurrence, index + 1),
  };
}

/** The period that contains `at` (which must not be before the anchor). */
export function periodContaining(anchor: Date, recurrence: Recurrence, at: Date): BillingPeriod {
  if (at.getTime() < anchor.getTime()) throw new RangeError('the time is before the billing anchor');
  // An estimate from the average period length, then corrected: exact, and O(1) for any distance.
  const averageMs =
    { week: 7, month: 30.436875, year: 365.2425 }[recurrence.interval] *
    86_400_000 *
    recurrence.intervalCount;
  let index = Math.max(0, Math.floor((at.getTime() - anchor.getTime()) / averageMs) - 1);
  while (periodStart(anchor, recurrence, index + 1).getTime() <= at.getTime()) index += 1;
  while (index > 0 && periodStart(anchor, recurrence, index).getTime() > at.getTime()) index -= 1;
  return periodAt(anchor, recurrence, index);
}

/** Calendar days from `from` to `to` in Iceland (a period from 31 Jan to 28 Feb is 28 days). */
export function billingDays(from: Date, to: Date): number {
  return differenceInCalendarDays(toZonedTime(to, BILLING_TIME_ZONE), toZonedTime(from, BILLING_TIME_ZONE));
}

/**
 * The share of `amount` for the unused days of a period, from `at` to the period's end, computed to
 * the day and rounded half-up to whole krónur once: amount × remaining days ÷ days in the period.
 */
export function prorate(amount: number, period: Pick<BillingPeriod, 'start' | 'end'>, at: Date): number {
  if (!Number.isSafeInteger(amount) || amount < 0)
    throw new RangeError(`amount must be a whole number of krónur ≥ 0, got ${amount}`);
  const total = billingDays(period.start, period.end);
  const remaining = Math.min(total, Math.max(0, billingDays(at, period.end)));
  if (total <= 0) return 0;
  return new Decimal(amount).mul(remaining).div(total).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();
}
