import Decimal from 'decimal.js';

/**
 * Calendar dates (`YYYY-MM-DD`, UTC, which is Atlantic/Reykjavik all year) and the day counts a
 * claim's default interest may use (CLAIMS-DOMAIN.md §1.6; decision 0070).
 *
 * Day counts: `actual/360` (IOBWS `360`), `actual/actual` (IOBWS `Calendar`: days in each calendar
 * year over 365 or 366), `actual/365` (fixed 365), `30E/360` (RB "360/360"), and `daily`
 * (IOBWS `Daily`, state claims: the percentage is per day).
 *
 * Every day count here is additive: the fraction from a to c is the fraction from a to b plus the
 * fraction from b to c. Default interest splits its period at rate changes and at the yearly
 * capitalisation (decision 0209) and relies on that to give the same figure as one unsplit period.
 */
export type DayCount = 'actual/360' | 'actual/actual' | 'actual/365' | '30E/360' | 'daily';

const DAY_MS = 86_400_000;

/** Milliseconds of a `YYYY-MM-DD` date at 00:00 UTC; a RangeError for anything else. */
export function parseDate(date: string): number {
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

export function addDays(date: string, n: number): string {
  return new Date(parseDate(date) + n * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The same day `n` months later; a day the later month lacks becomes its last day
 * (31 Jan + 1 month = 28 or 29 Feb, 29 Feb 2028 + 12 months = 28 Feb 2029).
 */
export function addMonths(date: string, n: number): string {
  parseDate(date);
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const first = new Date(Date.UTC(y, m - 1 + n, 1));
  const lastDay = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
  first.setUTCDate(Math.min(d, lastDay));
  return first.toISOString().slice(0, 10);
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
