import type { Knex } from './knex';
import type { Scope } from '../domain/scope';
import type { SettlementLineRow } from './settlement-runs';

/** A settlement line with its run, its run's payout and the statement entry that booked the payout. */
export interface PeriodLineRow extends SettlementLineRow {
  settlement_date: string;
  payout_id: string | null;
  payout_amount: number | null;
  payout_status: string | null;
  entry_ref: string | null;
  entry_booking_date: string | null;
  entry_amount: number | null;
}

/**
 * The settlement lines of every run whose settlement date is in a period, a page at a time in
 * (date, run, line) order (decision 0241): the period's payouts and what each is made of.
 */
export function createSettlementPeriodRepository(knex: Knex) {
  return {
    async page(
      scope: Scope,
      range: { start: string; end: string },
      opts: { after?: { date: string; run: string; line: number } | undefined; limit: number },
    ): Promise<PeriodLineRow[]> {
      const after = opts.after ?? { date: '', run: '', line: 0 };
      const result = await knex.raw<{ rows: PeriodLineRow[] }>(
        `select l.*, r.settlement_date::text as settlement_date, p.id as payout_id, p.amount as payout_amount,
                p.status as payout_status, be.acct_svcr_ref as entry_ref, be.booking_date as entry_booking_date,
                be.amount as entry_amount
           from settlement_runs r
           join settlement_lines l on l.settlement_run_id = r.id
           left join payouts p on p.settlement_run_id = r.id and p.livemode = r.livemode
           left join bank_entries be on be.id = p.bank_entry_id
          where r.merchant_id = :merchant and r.livemode = :livemode
            and r.settlement_date >= :start and r.settlement_date <= :end
            and (r.settlement_date::text, r.id, l.id) > (:date, :run, :line)
          order by r.settlement_date, r.id, l.id
          limit :limit`,
        {
          merchant: scope.merchantId,
          livemode: scope.livemode,
          start: range.start,
          end: range.end,
          date: after.date,
          run: after.run,
          line: after.line,
          limit: opts.limit,
        },
      );
      return result.rows;
    },
  };
}
