import { z } from 'zod';
import type { PosRefundRow } from '../../db/pos-refunds';
import { unix } from '../../domain/unix-time';

export const PosRefundSchema = z.object({
  id: z.string(),
  object: z.literal('pos.refund'),
  livemode: z.boolean(),
  sale: z.string(),
  register: z.string(),
  staff: z.string(),
  method: z.enum(['cash', 'card']),
  amount: z.number().int(),
  refund: z.string().nullable().describe('The card refund (re_…), for a refund to card'),
  created_at: z.number(),
});
export const presentRefund = (r: PosRefundRow) => ({
  id: r.id,
  object: 'pos.refund' as const,
  livemode: r.livemode,
  sale: r.sale_id,
  register: r.register_id,
  staff: r.staff_id,
  method: r.method,
  amount: r.amount,
  refund: r.refund_id,
  created_at: unix(r.created_at),
});
