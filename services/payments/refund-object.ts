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
  status: z
    .enum(['pending', 'succeeded', 'failed'])
    .describe('`pending`: a krafa refund whose bank transfer has not been booked yet (decision 0101)'),
  reason: z.string().nullable(),
  destination_details: z
    .discriminatedUnion('type', [
      z.object({ type: z.literal('card') }),
      z.object({
        type: z.literal('bank_transfer'),
        bank_transfer: z.object({
          account_last4: z
            .string()
            .nullable()
            .describe("The payer's account the money goes back to; null until the bank has named it"),
        }),
      }),
    ])
    .describe('Where the money goes back: the card, or (a krafa) the bank account it was paid from'),
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
    destination_details:
      row.destination_kennitala === null
        ? { type: 'card' as const }
        : {
            type: 'bank_transfer' as const,
            bank_transfer: { account_last4: row.destination_account?.slice(-4) ?? null },
          },
    created_at: unix(row.created_at),
  };
}
