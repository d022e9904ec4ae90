import Decimal from 'decimal.js';
import { parseDate } from './day-count';

/**
 * The statutory default-interest rate (dráttarvextir) over time, as the Central Bank of Iceland
 * publishes it (Act 38/2001 art. 6 and 10; decision 0209). Each entry holds from its `from` date
 * until the day before the next entry's; the Central Bank changes the rate on the 1st of a month
 * and announces it beforehand, but the table does not insist on the 1st so that a correction can
 * be entered as it was published.
 *
 * Two rates per entry: the one owed by a consumer and the one owed between businesses. The
 * Central Bank's monthly notices found so far publish one figure; decision 0209 says what is
 * known about a separate business rate and why the table keeps room for it.
 */

export type PayerKind = 'consumer' | 'business';

export interface DefaultInterestRate {
  /** First day the rate applies, `YYYY-MM-DD`. */
  from: string;
  /** Percent per year owed by a consumer. */
  consumer: number;
  /** Percent per year owed between businesses. */
  business: number;
}

/** Entries in strictly ascending `from` order. */
export type DefaultInterestRateTable = readonly DefaultInterestRate[];

/** Refuses a table the computation cannot read: unsorted, duplicate dates, negative or non-finite rates. */
export function checkRateTable(table: DefaultInterestRateTable): void {
  if (table.length === 0) throw new RangeError('the statutory rate table is empty');
  let previous = '';
  for (const entry of table) {
    parseDate(entry.from);
    if (entry.from <= previous)
      throw new RangeError(`statutory rates must be in ascending date order (${entry.from})`);
    for (const rate of [entry.consumer, entry.business])
      if (!(Number.isFinite(rate) && rate >= 0 && rate <= 100))
        throw new RangeError(`a statutory rate must be 0–100 percent (${entry.from})`);
    previous = entry.from;
  }
}

/** The rate (percent per year) on `date` for `payer`; a RangeError before the table's first entry. */
export function statutoryRateOn(table: DefaultInterestRateTable, date: string, payer: PayerKind): Decimal {
  let found: DefaultInterestRate | undefined;
  for (const entry of table) {
    if (entry.from > date) break;
    found = entry;
  }
  if (!found) throw new RangeError(`no statutory default-interest rate is known for ${date}`);
  return new Decimal(payer === 'business' ? found.business : found.consumer);
}

/** The dates after `from` and up to `to` on which the table's rate changes. */
export function rateChangesBetween(table: DefaultInterestRateTable, from: string, to: string): string[] {
  return table.map((e) => e.from).filter((d) => d > from && d < to);
}

/**
 * One rate for all time, for both payer kinds: what callers that knew a single statutory rate
 * pass (the simulated bank's configured rate, validation that never reaches interest).
 */
export function constantRateTable(percent: number): DefaultInterestRateTable {
  return [{ from: '1900-01-01', consumer: percent, business: percent }];
}
