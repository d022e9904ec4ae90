import { z } from 'zod';
import type { FinishedRenewal } from '../../db/renewals';
import { unix } from '../../domain/unix-time';

// The renewal object: one billed period of a subscription. It appears as `latest_renewal` in the
// data of the subscription events a charge causes (renewed, activated, payment failed, ...).

export const RenewalSchema = z.object({
  id: z.string(),
  object: z.literal('renewal'),
  period_start: z.number(),
  period_end: z.number(),
  price: z.string(),
  amount_subtotal: z.number().int(),
  discount_amount: z.number().int(),
  amount: z.number().int(),
  vat_amount: z.number().int(),
  proration_amount: z.number().int(),
  currency: z.literal('ISK'),
  status: z.enum(['paid', 'failed', 'awaiting_claim', 'void']),
  attempt_count: z.number().int(),
  payment_intent: z.string().nullable(),
});

/** The columns a renewal is presented from. */
export type RenewalFields = Omit<FinishedRenewal, 'subscription_id' | 'period_index'>;

export function presentRenewal(r: RenewalFields) {
  return {
    id: r.id,
    object: 'renewal' as const,
    period_start: unix(r.period_start),
    period_end: unix(r.period_end),
    price: r.price_id,
    amount_subtotal: r.amount_subtotal,
    discount_amount: r.discount_amount,
    amount: r.amount,
    vat_amount: r.vat_amount,
    proration_amount: r.proration_amount,
    currency: 'ISK' as const,
    status: r.status,
    attempt_count: r.attempt_count,
    payment_intent: r.payment_intent_id,
  };
}
