import { z } from 'zod';
import type { SettlementLineRow } from '../../db/settlement-runs';
import { unix } from '../../domain/unix-time';

export const SettlementLineSchema = z.object({
  id: z.string(),
  object: z.literal('settlement_line'),
  kind: z
    .enum(['payment', 'refund', 'reversal', 'acquirer_fee', 'bank_cost', 'dispute', 'dispute_reversal'])
    .describe(
      'acquirer_fee and bank_cost: a cost added on top of the service fee (gross 0, fee the cost, net −the cost); dispute: a card dispute’s amount withdrawn (negative), dispute_reversal: a won dispute paid back',
    ),
  fee_kind: z.enum(['card_online', 'card_pos', 'claim']),
  source: z.string(),
  payment_intent: z.string().nullable(),
  gross: z.number(),
  fee: z.number(),
  net: z.number(),
  currency: z.literal('ISK'),
  occurred_at: z.number(),
  refund: z.string().nullable().describe('A refund line: the refund (re_…)'),
  dispute: z.string().nullable().describe('A dispute or its reversal: the dispute'),
  cost: z
    .object({ type: z.enum(['acquirer_fee', 'bank_cost']), source: z.string() })
    .nullable()
    .describe(
      "A cost line: what it is charged for (the capture's authorization, the krafa payment's bank key)",
    ),
  claim_transaction: z.string().nullable().describe("A krafa reversal: the bank's transaction key"),
});

export type SettlementLineObject = z.output<typeof SettlementLineSchema>;

export function presentLine(l: SettlementLineRow): SettlementLineObject {
  return {
    id: String(l.id),
    object: 'settlement_line' as const,
    kind: l.kind,
    fee_kind: l.fee_kind,
    source: l.source_id,
    payment_intent: l.payment_intent_id,
    gross: l.gross,
    fee: l.fee,
    net: l.net,
    currency: 'ISK' as const,
    occurred_at: unix(l.occurred_at),
    ...lineLinks(l),
  };
}

/** What a line settles, by kind (decision 0241): the object a bookkeeper opens it to. */
export function lineLinks(l: Pick<SettlementLineRow, 'kind' | 'source_id'>) {
  return {
    refund: l.kind === 'refund' ? l.source_id : null,
    dispute: l.kind === 'dispute' || l.kind === 'dispute_reversal' ? l.source_id : null,
    cost: l.kind === 'acquirer_fee' || l.kind === 'bank_cost' ? { type: l.kind, source: l.source_id } : null,
    claim_transaction: l.kind === 'reversal' ? l.source_id : null,
  };
}

export const LINES_CSV_HEADER = 'id,kind,fee_kind,source,payment_intent,gross,fee,net,currency,occurred_at';

const csvField = (v: string): string => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/**
 * The lines of a run as CSV (decision 0093): the line object's fields in its order, a header row,
 * exact integers, and times in ISO 8601 UTC rather than Unix seconds, for spreadsheets.
 */
export function linesCsv(lines: SettlementLineRow[]): string {
  const rows = lines.map((l) =>
    [
      String(l.id),
      l.kind,
      l.fee_kind,
      l.source_id,
      l.payment_intent_id ?? '',
      String(l.gross),
      String(l.fee),
      String(l.net),
      'ISK',
      l.occurred_at.toISOString(),
    ]
      .map(csvField)
      .join(','),
  );
  return [LINES_CSV_HEADER, ...rows].join('\n') + '\n';
}
