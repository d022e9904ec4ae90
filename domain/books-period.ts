import { vatPeriodOf, vatPeriodRange, type VatPeriod } from './vat-period';

/** A closed period of the books as placement needs it: its id and last day. */
export interface ClosedPeriodRef {
  period_id: string;
  end_date: string;
}

/** Where a period's journal and VAT figures come from (decision 0240). */
export type BooksPlacement = { closed: string } | { live: { from: Date; to: Date } };

const nextDay = (date: string) => {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
};

/**
 * A closed period reads what its close copied; an open one reads the sources that no closed period
 * holds, by their own time, and the first open period (the one after the last closed) also every
 * such source from before it: a late refund lands there. `closed` is ordered by end date.
 */
export function booksPlacement(period: VatPeriod, closed: readonly ClosedPeriodRef[]): BooksPlacement {
  if (closed.some((c) => c.period_id === period.id)) return { closed: period.id };
  const range = vatPeriodRange(period);
  const through = closed.at(-1)?.end_date;
  if (through !== undefined && vatPeriodOf(period.kind, nextDay(through)).id === period.id)
    range.from = new Date(0);
  return { live: range };
}

/** The period a close must take next: the one after the last closed, any when none is. */
export function firstOpenPeriod(
  kind: VatPeriod['kind'],
  closed: readonly ClosedPeriodRef[],
): VatPeriod | null {
  const through = closed.at(-1)?.end_date;
  return through === undefined ? null : vatPeriodOf(kind, nextDay(through));
}
