import { z } from 'zod';
import type { PosDeviceRow } from '../../db/pos-devices';
import { signedInStaffId } from '../../domain/pos';
import { unix } from '../../domain/unix-time';

export const PosPairingCodeSchema = z.object({
  object: z.literal('pos.pairing_code'),
  register: z.string(),
  code: z.string().describe('Typed once on the till; single use'),
  expires_at: z.number(),
});
/** The code in the clear, this once: only its hash is stored (decision 0126). */
export const presentPairingCode = (registerId: string, code: string, expiresAt: Date) => ({
  object: 'pos.pairing_code' as const,
  register: registerId,
  code,
  expires_at: unix(expiresAt),
});

export const PosDeviceSchema = z.object({
  id: z.string(),
  object: z.literal('pos.device'),
  livemode: z.boolean(),
  register: z.string(),
  credential: z
    .string()
    .nullable()
    .describe('The device credential, shown once at pairing: it opens this register’s POS actions only'),
  signed_in_staff: z.string().nullable(),
  created_at: z.number(),
});
export const presentDevice = (d: PosDeviceRow, credential: string | null = null) => ({
  id: d.id,
  object: 'pos.device' as const,
  livemode: d.livemode,
  register: d.register_id,
  credential,
  signed_in_staff: signedInStaffId(d),
  created_at: unix(d.created_at),
});
