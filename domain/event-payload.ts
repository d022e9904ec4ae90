import type { Scope } from './scope';
import { environmentOf } from './scope';

/** An event as stored in the ledger. */
export interface EventRecord {
  id: string;
  merchantId: string;
  livemode: boolean;
  type: string;
  data: Record<string, unknown>;
  createdAt: Date;
}

/** The webhook body of spec §6.2, field for field; `GET /v1/events` returns the same shape. */
export interface EventPayload {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
  merchant_id: string;
  environment: 'live' | 'test';
}

/** The §6.2 body for an event. `created_at` is ISO 8601 with milliseconds in UTC. */
export function toEventPayload(event: EventRecord): EventPayload {
  const scope: Scope = { merchantId: event.merchantId, livemode: event.livemode };
  return {
    id: event.id,
    type: event.type,
    created_at: event.createdAt.toISOString(),
    data: event.data,
    merchant_id: event.merchantId,
    environment: environmentOf(scope),
  };
}

/** The one readable line a chat channel posts for an event, e.g. `[test] claim.paid clm_1 — 5,000 ISK`. */
export function chatLine(event: EventPayload): string {
  const subject = typeof event.data.id === 'string' ? ` ${event.data.id}` : '';
  const amount = event.data.amount;
  const money =
    typeof amount === 'number' && Number.isInteger(amount)
      ? ` — ${amount.toLocaleString('en-US')} ${typeof event.data.currency === 'string' ? event.data.currency.toUpperCase() : 'ISK'}`
      : '';
  return `[${event.environment}] ${event.type}${subject}${money} (${event.id})`;
}
