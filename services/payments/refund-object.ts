import { z } from 'zod';
import type { RefundRow } from '../../db/payment-intents';
import { unix } from '../../domain/unix-time';

export const RefundSchema = z.object({
  id: z.string(),
  object: z.literal('refund'),
  livemode: z.boolean(),
  payment_intent: z.string(),
  amount: z.number(),
  currency: z.literal('ISK'),
  status: z.enum(['succeeded', 'failed']),
  reason: z.string().nullable(),
  created_at: z.number(),
});

export function presentRefund(row: RefundRow) {
  return {
    id: row.id,
    object: 'refund' as const,
    livemode: row.livemode,
    payment_intent: row.payment_intent_id,
    amount: row.amount,
    currency: row.currency,
    status: row.status,
    reason: row.reason,
    created_at: unix(row.created_at),
  };
}
