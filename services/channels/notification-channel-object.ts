import { z } from 'zod';
import type { ChannelRow } from '../../db/notification-channels';
import { unix } from '../../domain/unix-time';

export const ChannelSchema = z.object({
  id: z.string(),
  object: z.literal('notification_channel'),
  livemode: z.boolean(),
  type: z.enum(['webhook', 'chat']),
  config: z.object({
    url: z.string(),
    secret: z.string().optional().describe('Signing secret; omitted in lists'),
    previous_secret_expires_at: z
      .number()
      .nullable()
      .describe(
        'Until when the secret before the last rotation still signs X-Service-Signature-Previous (Unix seconds); null when there is none',
      ),
  }),
  event_subscriptions: z.array(z.string()),
  status: z.enum(['enabled', 'disabled']),
  description: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
  created_at: z.number(),
  updated_at: z.number(),
});

export type ChannelObject = z.output<typeof ChannelSchema>;

/** A channel; its signing secret only where one channel is shown (create, retrieve, update). */
export function presentChannel(row: ChannelRow, withSecret: boolean): ChannelObject {
  return {
    id: row.id,
    object: 'notification_channel' as const,
    livemode: row.livemode,
    type: row.type,
    config: {
      url: row.url,
      ...(withSecret && { secret: row.secret }),
      previous_secret_expires_at: unix(row.previous_secret_expires_at),
    },
    event_subscriptions: row.event_subscriptions,
    status: row.status,
    description: row.description,
    metadata: row.metadata,
    created_at: unix(row.created_at),
    updated_at: unix(row.updated_at),
  };
}
