import { z } from 'zod';
import type { PosTerminalRow } from '../../db/pos-terminals';
import { unix } from '../../domain/unix-time';

export const PosTerminalAnnouncementSchema = z.object({
  object: z.literal('pos.terminal_announcement'),
  registration_code: z.string(),
  expires_at: z.number(),
});
/** What a terminal hears back when it announces its code: nothing about any merchant (decision 0131). */
export const presentTerminalAnnouncement = (code: string, expiresAt: Date) => ({
  object: 'pos.terminal_announcement' as const,
  registration_code: code,
  expires_at: unix(expiresAt),
});

export const PosTerminalSchema = z.object({
  id: z.string(),
  object: z.literal('pos.terminal'),
  livemode: z.boolean(),
  register: z.string(),
  label: z.string().nullable(),
  device_type: z.enum(['simulated_reader', 'tap_to_pay']),
  created_at: z.number(),
});
export const presentTerminal = (t: PosTerminalRow) => ({
  id: t.id,
  object: 'pos.terminal' as const,
  livemode: t.livemode,
  register: t.register_id,
  label: t.label,
  device_type: t.device_type,
  created_at: unix(t.created_at),
});
