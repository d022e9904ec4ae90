import { z } from 'zod';
import type { AttemptRow, DeliveryRow } from '../../db/webhook-deliveries';
import { unix } from '../../domain/unix-time';

const AttemptSchema = z.object({
  attempt: z.number(),
  outcome: z.enum(['in_progress', 'succeeded', 'failed']),
  started_at: z.number(),
  finished_at: z.number().nullable(),
  response_status: z.number().nullable(),
  latency_ms: z.number().nullable(),
  error: z.string().nullable(),
});

export const DeliverySchema = z.object({
  id: z.string(),
  object: z.literal('webhook_delivery'),
  livemode: z.boolean(),
  channel: z.string(),
  event: z.string(),
  status: z.enum(['pending', 'succeeded', 'failed']),
  attempt_count: z.number(),
  max_attempts: z.number(),
  next_attempt_at: z.number().nullable(),
  last_attempt_at: z.number().nullable(),
  created_at: z.number(),
  attempts: z.array(AttemptSchema).optional().describe('Every attempt; present when retrieving one delivery'),
});

export type DeliveryObject = z.output<typeof DeliverySchema>;

/** A delivery; with every attempt where one delivery is shown. */
export function presentDelivery(row: DeliveryRow, attempts?: AttemptRow[]): DeliveryObject {
  return {
    id: row.id,
    object: 'webhook_delivery' as const,
    livemode: row.livemode,
    channel: row.channel_id,
    event: row.event_id,
    status: row.status,
    attempt_count: row.attempt_count,
    max_attempts: row.max_attempts,
    next_attempt_at: unix(row.next_attempt_at),
    last_attempt_at: unix(row.last_attempt_at),
    created_at: unix(row.created_at),
    ...(attempts && {
      attempts: attempts.map((a) => ({
        attempt: a.attempt_number,
        outcome: a.outcome,
        started_at: unix(a.started_at),
        finished_at: unix(a.finished_at),
        response_status: a.response_status,
        latency_ms: a.latency_ms,
        error: a.error,
      })),
    }),
  };
}
