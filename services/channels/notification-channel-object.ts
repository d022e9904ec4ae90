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
  disabled_reason: z
    .enum(['failing_deliveries', 'requested'])
    .nullable()
    .describe(
      'Why the channel is disabled: every delivery of the last 72 hours failed (at least 20), or it was asked to be; null when enabled',
    ),
  disabled_at: z
    .number()
    .nullable()
    .describe('When the channel was disabled (Unix seconds); null when enabled'),
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
    disabled_reason: row.disabled_reason,
    disabled_at: unix(row.disabled_at),
    description: row.description,
    metadata: row.metadata,
    created_at: unix(row.created_at),
    updated_at: unix(row.updated_at),
  };
}
