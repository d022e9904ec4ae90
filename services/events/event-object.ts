import { z } from 'zod';
import { toEventPayload, type EventRecord } from '../../domain/event-payload';

export const EventSchema = z.object({
  id: z.string(),
  object: z.literal('event'),
  type: z.string(),
  created_at: z.string().describe('ISO 8601 with milliseconds, UTC'),
  data: z.record(z.string(), z.unknown()),
  merchant_id: z.string(),
  environment: z.enum(['live', 'test']),
});

export type EventObject = z.output<typeof EventSchema>;

/** An event of the ledger: the webhook body's fields (spec §6.2), and `object`. */
export function presentEvent(event: EventRecord): EventObject {
  return { ...toEventPayload(event), object: 'event' as const };
}
