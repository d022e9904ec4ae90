import { z } from 'zod';
import type { PosStaffRow } from '../../db/pos-staff';
import { unix } from '../../domain/unix-time';

export const PosStaffSchema = z.object({
  id: z.string(),
  object: z.literal('pos.staff'),
  livemode: z.boolean(),
  name: z.string(),
  role: z.enum(['cashier', 'manager']),
  active: z.boolean(),
  locked_until: z.number().nullable().describe('Set while locked after repeated wrong PINs'),
  created_at: z.number(),
});
export const presentStaff = (s: PosStaffRow) => ({
  id: s.id,
  object: 'pos.staff' as const,
  livemode: s.livemode,
  name: s.name,
  role: s.role,
  active: s.active,
  locked_until: s.locked_until && s.locked_until > new Date() ? unix(s.locked_until) : null,
  created_at: unix(s.created_at),
});
