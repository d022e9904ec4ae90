import { z } from 'zod';
import type { PosShiftRow } from '../../db/pos-shifts';
import { unix } from '../../domain/unix-time';

export const PosShiftSchema = z.object({
  id: z.string(),
  object: z.literal('pos.shift'),
  livemode: z.boolean(),
  register: z.string(),
  status: z.enum(['open', 'closed']),
  opened_by: z.string(),
  opening_float: z.number().int(),
  opened_at: z.number(),
  closed_by: z.string().nullable(),
  closed_at: z.number().nullable(),
  expected_cash: z.number().int().nullable(),
  counted_cash: z.number().int().nullable(),
  difference: z.number().int().nullable().describe('counted − expected'),
});
export const presentShift = (s: PosShiftRow) => ({
  id: s.id,
  object: 'pos.shift' as const,
  livemode: s.livemode,
  register: s.register_id,
  status: s.closed_at ? ('closed' as const) : ('open' as const),
  opened_by: s.opened_by,
  opening_float: s.opening_float,
  opened_at: unix(s.opened_at),
  closed_by: s.closed_by,
  closed_at: unix(s.closed_at),
  expected_cash: s.expected_cash,
  counted_cash: s.counted_cash,
  difference: s.counted_cash !== null && s.expected_cash !== null ? s.counted_cash - s.expected_cash : null,
});
