import { nextBankingDay } from './banking-days';

/** How often a merchant files its VAT return: every two months, or once a year (Reg. 667/1995 art. 1, 3). */
export const VAT_PERIOD_KINDS = ['two_month', 'yearly'] as const;
export type VatPeriodKind = (typeof VAT_PERIOD_KINDS)[number];

/** A VAT period: its id as the API writes it, first and last day (Iceland dates, which are UTC). */
export interface VatPeriod {
  id: string;
  kind: VatPeriodKind;
  start: string;
  end: string;
  /** The return's due date: the 5th of the second month after the period, moved to a banking day. */
  due_date: string;
}

const pad = (n: number) => String(n).padStart(2, '0');
const lastDay = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();

/** The period a `period` parameter names: `YYYY-MM` (an odd month: the first of its two) or `YYYY`. */
export function parseVatPeriod(
  value: string,
): { ok: true; period: VatPeriod } | { ok: false; message: string } {
  const year = /^(\d{4})$/.exec(value);
  if (year) return { ok: true, period: vatPeriod('yearly', Number(year[1]), 1) };
  const month = /^(\d{4})-(\d{2})$/.exec(value);
  if (!month)
    return { ok: false, message: "must be a two-month period 'YYYY-MM' (its first month) or a year 'YYYY'" };
  const y = Number(month[1]);
  const m = Number(month[2]);
  if (m < 1 || m > 12) return { ok: false, message: 'must name a month 01 to 12' };
  if (m % 2 === 0)
    return {
      ok: false,
      message: `two-month periods start in an odd month: ${value} is in the period ${y}-${pad(m - 1)}`,
    };
  return { ok: true, period: vatPeriod('two_month', y, m) };
}

/** The period of this kind that begins with month `firstMonth` (1-12) of `year`. */
export function vatPeriod(kind: VatPeriodKind, year: number, firstMonth: number): VatPeriod {
  const first = kind === 'yearly' ? 1 : firstMonth;
  const lastMonth = kind === 'yearly' ? 12 : first + 1;
  // Due the 5th of the second month after the period: Jan–Feb on 5 April, Nov–Dec and the year on
  // 5 February; a due date on a weekend or holiday moves to the next working day.
  const dueMonth = lastMonth + 2;
  const dueYear = year + Math.floor((dueMonth - 1) / 12);
  const due = `${dueYear}-${pad(((dueMonth - 1) % 12) + 1)}-05`;
  return {
    id: kind === 'yearly' ? String(year) : `${year}-${pad(first)}`,
    kind,
    start: `${year}-${pad(first)}-01`,
    end: `${year}-${pad(lastMonth)}-${pad(lastDay(year, lastMonth))}`,
    due_date: nextBankingDay(due),
  };
}

/** The period of this kind that contains the Iceland date `date` (YYYY-MM-DD). */
export function vatPeriodOf(kind: VatPeriodKind, date: string): VatPeriod {
  const y = Number(date.slice(0, 4));
  const m = Number(date.slice(5, 7));
  return vatPeriod(kind, y, m % 2 === 0 ? m - 1 : m);
}

/** The last period of this kind that has ended by `date`: the one a bookkeeper files next. */
export function lastEndedVatPeriod(kind: VatPeriodKind, date: string): VatPeriod {
  const current = vatPeriodOf(kind, date);
  const before = new Date(`${current.start}T00:00:00Z`);
  before.setUTCDate(0);
  return vatPeriodOf(kind, before.toISOString().slice(0, 10));
}

/** The instants a period covers: from its first day's midnight to the next day after its last. */
export function vatPeriodRange(p: VatPeriod): { from: Date; to: Date } {
  const to = new Date(`${p.end}T00:00:00Z`);
  to.setUTCDate(to.getUTCDate() + 1);
  return { from: new Date(`${p.start}T00:00:00Z`), to };
}
