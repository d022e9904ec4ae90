import Holidays from 'date-holidays';

/**
 * Icelandic banking days (CLAIMS-DOMAIN.md §5): weekdays that are not public holidays. Holidays come
 * from the maintained `date-holidays` data for Iceland (type `public` only: its many `observance`
 * days are working days). On top of it, local rules the library does not know:
 * - 31 December is not a banking day from 2025 on (rule 912/2025), although the library lists it as
 *   a half-day holiday;
 * - 24 December is a half-day holiday whose banking status the banks have not published; it is
 *   treated as closed unless the caller opts in, so a due date never lands on it.
 * Dates are Iceland calendar dates, `YYYY-MM-DD` (Iceland keeps UTC all year).
 */
export interface BankingCalendarOptions {
  christmasEveIsBankingDay?: boolean;
}

const holidaysIS = new Holidays('IS');
const cache = new Map<number, Set<string>>();

function publicHolidays(year: number): Set<string> {
  let set = cache.get(year);
  if (!set) {
    set = new Set(
      (holidaysIS.getHolidays(year) || []).filter((h) => h.type === 'public').map((h) => h.date.slice(0, 10)),
    );
    cache.set(year, set);
  }
  return set;
}

function parse(date: string): Date {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new RangeError(`expected a YYYY-MM-DD date, got ${date}`);
  const d = new Date(`${date}T00:00:00Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== date)
    throw new RangeError(`not a calendar date: ${date}`);
  return d;
}

function format(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** Whether banks settle on this Iceland calendar date. */
export function isBankingDay(date: string, opts: BankingCalendarOptions = {}): boolean {
  const d = parse(date);
  const weekday = d.getUTCDay();
  if (weekday === 0 || weekday === 6) return false;
  const year = d.getUTCFullYear();
  const monthDay = date.slice(5);
  if (monthDay === '12-31') return year < 2025; // half-day before rule 912/2025, closed since
  if (monthDay === '12-24') return opts.christmasEveIsBankingDay === true;
  return !publicHolidays(year).has(date);
}

/** The date itself when it is a banking day, otherwise the next one (claims' NextBankingDay rule). */
export function nextBankingDay(date: string, opts: BankingCalendarOptions = {}): string {
  const d = parse(date);
  while (!isBankingDay(format(d), opts)) d.setUTCDate(d.getUTCDate() + 1);
  return format(d);
}

/** The banking day `n` banking days after `date` (n ≥ 0; 0 gives nextBankingDay). */
export function addBankingDays(date: string, n: number, opts: BankingCalendarOptions = {}): string {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`n must be a whole number ≥ 0, got ${n}`);
  let current = nextBankingDay(date, opts);
  for (let i = 0; i < n; i++) {
    const d = parse(current);
    d.setUTCDate(d.getUTCDate() + 1);
    current = nextBankingDay(format(d), opts);
  }
  return current;
}
