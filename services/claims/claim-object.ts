import { z } from 'zod';
import type { ClaimRow } from '../../db/claims';
import { claimAccount } from '../../adapters/banks/claims-api';
import { unix } from '../../domain/unix-time';
import { interestFromWire, tiersFromWire } from './claim-wire-terms';

export const CLAIM_STATUSES = [
  'pending',
  'issued',
  'paid',
  'partially_paid',
  'cancelled',
  'expired',
] as const;

const zReferenceDate = z.enum(['due_date', 'final_due_date']).nullable();
const TierSchema = z.object({ type: z.enum(['amount', 'percentage']), days: z.number(), value: z.number() });
const TiersSchema = z.object({
  reference_date: zReferenceDate,
  first: TierSchema.nullable(),
  second: TierSchema.nullable(),
});
const InterestSchema = z.object({
  reference_date: zReferenceDate,
  base: z.enum(['amount', 'amount_and_default_charge']).nullable(),
  day_count: z.enum(['daily', '360', 'calendar']).nullable(),
  percentage: z.number().nullable(),
});

export const ClaimSchema = z.object({
  id: z.string(),
  object: z.literal('claim'),
  livemode: z.boolean(),
  status: z.enum(CLAIM_STATUSES),
  customer: z.string().nullable(),
  payer_kennitala: z.string(),
  claim_number: z.number(),
  claim_key: z.object({ claimant_id: z.string(), account: z.string(), due_date: z.string() }).nullable(),
  amount: z.number(),
  amount_paid: z.number(),
  currency: z.literal('ISK'),
  due_date: z.string(),
  final_due_date: z.string(),
  cancellation_date: z.string(),
  notice_fee: z.number().nullable(),
  default_charges: TiersSchema.nullable(),
  default_interest: InterestSchema.nullable(),
  discount: TiersSchema.nullable(),
  allow_partial_payment: z.boolean(),
  description: z.string().nullable(),
  payment_intent: z.string().nullable(),
  bank_error: z.object({ code: z.string().nullable(), message: z.string() }).nullable(),
  metadata: z.record(z.string(), z.string()),
  created_at: z.number(),
});

export type ClaimObject = z.output<typeof ClaimSchema>;

/** A claim as the API answers it and as `claim.*` webhooks carry it in `data`. */
export function presentClaim(row: ClaimRow): ClaimObject {
  const t = row.terms;
  return {
    id: row.id,
    object: 'claim' as const,
    livemode: row.livemode,
    status: row.status,
    customer: row.customer_id,
    payer_kennitala: row.payer_kennitala,
    claim_number: row.claim_number,
    // The claim key exists at the bank once the claim is issued (a claim cancelled or refused
    // before that never had one).
    claim_key:
      row.issued_at === null
        ? null
        : {
            claimant_id: row.claimant_kennitala,
            account: claimAccount(row.bank, row.claim_number),
            due_date: row.due_date,
          },
    amount: Number(row.amount),
    amount_paid: Number(row.amount_paid),
    currency: 'ISK' as const,
    due_date: row.due_date,
    final_due_date: row.final_due_date,
    cancellation_date: row.cancellation_date,
    notice_fee: row.notice_fee === null ? null : Number(row.notice_fee),
    default_charges: tiersFromWire(t.defaultCharge),
    default_interest: interestFromWire(t.defaultInterest),
    discount: tiersFromWire(t.discount),
    allow_partial_payment: t.isPartialPaymentAllowed === true,
    description: row.description,
    payment_intent: row.payment_intent_id,
    bank_error: row.bank_error,
    metadata: row.metadata,
    created_at: unix(row.created_at),
  };
}
