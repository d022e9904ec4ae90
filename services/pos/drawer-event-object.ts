import { z } from 'zod';
import type { PosDrawerEventRow } from '../../db/pos-shifts';
import { unix } from '../../domain/unix-time';

export const PosDrawerEventSchema = z.object({
  id: z.string(),
  object: z.literal('pos.drawer_event'),
  shift: z.string(),
  staff: z.string(),
  kind: z.enum(['paid_in', 'paid_out', 'no_sale']),
  amount: z.number().int(),
  reason: z.string().nullable(),
  created_at: z.number(),
});

export const presentDrawerEvent = (row: PosDrawerEventRow) => ({
  id: row.id,
  object: 'pos.drawer_event' as const,
  shift: row.shift_id,
  staff: row.staff_id,
  kind: row.kind,
  amount: row.amount,
  reason: row.reason,
  created_at: unix(row.created_at),
});
