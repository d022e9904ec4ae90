import { z } from 'zod';
import type { SettlementRunRow } from '../../db/settlement-runs';
import type { PayoutRow } from '../../db/payouts';
import { unix } from '../../domain/unix-time';
import { feeDetails } from '../../domain/settlement-lines';

export const SETTLEMENT_RUN_STATUSES = [
  'open',
  'pending_review',
  'approved',
  'submitted',
  'paid',
  'failed',
] as const;

export const PayoutSchema = z.object({
  id: z.string(),
  object: z.literal('payout'),
  status: z.enum(['pending', 'submitted', 'paid', 'failed']),
  amount: z.number(),
  currency: z.literal('ISK'),
  destination_account: z.string(),
  end_to_end_id: z.string(),
  channel: z.string(),
  file_name: z.string().nullable(),
  submitted_at: z.number().nullable(),
  paid_at: z.number().nullable(),
  bank_entry: z
    .object({
      id: z.string(),
      acct_svcr_ref: z.string().nullable().describe("The bank's reference of the entry (AcctSvcrRef)"),
      end_to_end_id: z.string().nullable(),
      booking_date: z.string().nullable(),
      value_date: z.string().nullable(),
      amount: z.number().int(),
      file: z.string().describe('The camt.053 statement file it was booked in'),
    })
    .nullable()
    .describe(
      'The camt.053 statement entry that booked the payout, once bank sync matched it (decision 0241)',
    ),
});

export const SettlementRunSchema = z.object({
  id: z.string(),
  object: z.literal('settlement_run'),
  livemode: z.boolean(),
  status: z.enum(SETTLEMENT_RUN_STATUSES),
  settlement_date: z.string(),
  cutoff: z.number(),
  currency: z.literal('ISK'),
  gross: z.number(),
  fee: z.number(),
  net: z.number(),
  fee_details: z
    .array(z.object({ type: z.enum(['service_fee', 'acquirer_fee', 'bank_cost']), amount: z.number() }))
    .describe('How `fee` divides: the service fee and the costs added on top of it (spec §1)'),
  line_count: z.number(),
  payout: PayoutSchema.nullable(),
  approved_at: z.number().nullable(),
  submitted_at: z.number().nullable(),
  paid_at: z.number().nullable(),
  failure_reason: z.string().nullable(),
  created: z.number(),
});

/** An operator sees whose run it is and who approved it. */
export const OperatorSettlementRunSchema = SettlementRunSchema.extend({
  merchant: z.string(),
  approved_by: z.string().nullable(),
});

export type SettlementRunObject = z.output<typeof SettlementRunSchema>;
export type OperatorSettlementRunObject = z.output<typeof OperatorSettlementRunSchema>;

export function presentPayout(p: PayoutRow) {
  return {
    id: p.id,
    object: 'payout' as const,
    status: p.status,
    amount: p.amount,
    currency: 'ISK' as const,
    destination_account: p.destination_account,
    end_to_end_id: p.end_to_end_id,
    channel: p.channel,
    file_name: p.file_name,
    submitted_at: unix(p.submitted_at),
    paid_at: unix(p.paid_at),
    bank_entry: p.bank_entry
      ? {
          id: String(p.bank_entry.id),
          acct_svcr_ref: p.bank_entry.acct_svcr_ref,
          end_to_end_id: p.bank_entry.end_to_end_id,
          booking_date: p.bank_entry.booking_date,
          value_date: p.bank_entry.value_date,
          amount: Number(p.bank_entry.amount),
          file: p.bank_entry.file,
        }
      : null,
  };
}

/** A settlement run as the API shows it (Stripe-like, amounts in whole ISK), with its payout. */
export function presentSettlementRun(
  row: SettlementRunRow,
  payout: PayoutRow | undefined,
): SettlementRunObject {
  return {
    id: row.id,
    object: 'settlement_run' as const,
    livemode: row.livemode,
    status: row.status,
    settlement_date: row.settlement_date,
    cutoff: unix(row.cutoff),
    currency: 'ISK' as const,
    gross: row.gross,
    fee: row.fee,
    net: row.net,
    fee_details: feeDetails({ fee: row.fee, acquirerFee: row.acquirer_fee, bankCost: row.bank_cost }),
    line_count: row.line_count,
    payout: payout ? presentPayout(payout) : null,
    approved_at: unix(row.approved_at),
    submitted_at: unix(row.submitted_at),
    paid_at: unix(row.paid_at),
    failure_reason: row.failure_reason,
    created: unix(row.created_at),
  };
}

/** The operator's view of a run: the merchant's view, and whose run it is and who approved it. */
export function presentOperatorRun(
  row: SettlementRunRow,
  payout: PayoutRow | undefined,
): OperatorSettlementRunObject {
  return { ...presentSettlementRun(row, payout), merchant: row.merchant_id, approved_by: row.approved_by };
}
