import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { VatPeriod } from '../../domain/vat-period';
import { createSettlementPeriodRepository } from '../../db/settlement-period';
import { csvRow } from '../../domain/csv';
import { lineLinks } from '../settlement/settlement-line-object';

/** The period download's columns (decision 0241). */
export const SETTLEMENT_PERIOD_COLUMNS = [
  'settlement_date',
  'settlement_run',
  'payout',
  'payout_status',
  'payout_amount',
  'statement_ref',
  'statement_booking_date',
  'statement_amount',
  'line',
  'kind',
  'fee_kind',
  'source',
  'payment_intent',
  'refund',
  'dispute',
  'cost',
  'gross',
  'fee',
  'net',
  'occurred_at',
];

const PAGE = 1000;

/**
 * Every settlement line of the runs settled in a period, each beside its run's payout and the
 * camt.053 entry that booked it, and linked to its refund, dispute or cost: one file a bookkeeper
 * reconciles the period's payouts from (decision 0241). Streamed a page at a time.
 */
export async function* settlementPeriodCsv(
  knex: Knex,
  scope: Scope,
  period: VatPeriod,
): AsyncGenerator<string> {
  const repo = createSettlementPeriodRepository(knex);
  yield csvRow(SETTLEMENT_PERIOD_COLUMNS);
  let after: { date: string; run: string; line: number } | undefined;
  for (;;) {
    const rows = await repo.page(scope, { start: period.start, end: period.end }, { after, limit: PAGE });
    let chunk = '';
    for (const r of rows) {
      const links = lineLinks(r);
      chunk += csvRow([
        r.settlement_date,
        r.settlement_run_id,
        r.payout_id,
        r.payout_status,
        r.payout_amount,
        r.entry_ref,
        r.entry_booking_date,
        r.entry_amount,
        r.id,
        r.kind,
        r.fee_kind,
        r.source_id,
        r.payment_intent_id,
        links.refund,
        links.dispute,
        links.cost && `${links.cost.type}:${links.cost.source}`,
        r.gross,
        r.fee,
        r.net,
        r.occurred_at.toISOString(),
      ]);
    }
    if (chunk) yield chunk;
    if (rows.length < PAGE) return;
    const last = rows.at(-1)!;
    after = { date: last.settlement_date, run: last.settlement_run_id, line: last.id };
  }
}
