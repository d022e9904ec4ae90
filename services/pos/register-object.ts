import { z } from 'zod';
import type { PosRegisterRow } from '../../db/pos-registers';
import { unix } from '../../domain/unix-time';

export const PosRegisterSchema = z.object({
  id: z.string(),
  object: z.literal('pos.register'),
  livemode: z.boolean(),
  name: z.string(),
  location: z.string().nullable(),
  created_at: z.number(),
});
export const presentRegister = (r: PosRegisterRow) => ({
  id: r.id,
  object: 'pos.register' as const,
  livemode: r.livemode,
  name: r.name,
  location: r.location,
  created_at: unix(r.created_at),
});
