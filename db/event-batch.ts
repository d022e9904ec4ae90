import type { Knex } from './knex';
import { newId, ID_PREFIX, ID_TIME_CHARS } from '../domain/ids';
import { WEBHOOK_RETRY_DELAYS_MS } from '../domain/webhook-schedule';

/** Bindings for set-based SQL: pg sends arrays (with nulls) as PostgreSQL arrays, which knex's types omit. */
export function sqlArgs(...values: unknown[]): Knex.RawBinding[] {
  return values as Knex.RawBinding[];
}

export interface BatchEvent {
  merchantId: string;
  livemode: boolean;
  type: string;
  /** Serialised in the given key order (events.data is json, and spec §6.2 wants id first). */
  data: Record<string, unknown>;
}

/**
 * What an event is about, for the dashboard's timelines (decision 0189): its object's id and, for a
 * refund or a dispute, the payment it belongs to. Stored as columns so no index parses `data`.
 */
export function eventRefs(data: Record<string, unknown>): {
  object_ref: string | null;
  payment_intent_ref: string | null;
} {
  const ref = (v: unknown) => (typeof v === 'string' ? v : null);
  return { object_ref: ref(data.id), payment_intent_ref: ref(data.payment_intent) };
}

/**
 * Writes many events and their deliveries in two statements, in the caller's transaction (outbox,
 * set-based): the events in the given order, then one pending delivery per enabled channel of the
 * event's merchant and environment subscribed to its type. Returns the channels to wake after commit.
 */
export async function recordEvents(trx: Knex.Transaction, events: readonly BatchEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  const ids = events.map(() => newId(ID_PREFIX.event));
  const merchants = events.map((e) => e.merchantId);
  const livemodes = events.map((e) => e.livemode);
  const types = events.map((e) => e.type);
  const refs = events.map((e) => eventRefs(e.data));
  // The objects go as one JSON array rather than a text[] of documents: pg would quote and escape
  // every `"` of every document into the array's literal (3 % of the worker's CPU on a renewal day),
  // and PostgreSQL parse it back. A json array's elements keep their text, so their key order too.
  await trx.raw(
    `insert into events (id, merchant_id, livemode, type, data, object_ref, payment_intent_ref)
     select t.id, t.merchant_id, t.livemode, t.type, t.data, t.object_ref, t.payment_intent_ref
       from rows from (unnest(?::text[]), unnest(?::text[]), unnest(?::boolean[]), unnest(?::text[]),
                       json_array_elements(?::json), unnest(?::text[]), unnest(?::text[]))
            with ordinality as t(id, merchant_id, livemode, type, data, object_ref, payment_intent_ref, ord)
      order by t.ord`,
    sqlArgs(
      ids,
      merchants,
      livemodes,
      types,
      JSON.stringify(events.map((e) => e.data)),
      refs.map((r) => r.object_ref),
      refs.map((r) => r.payment_intent_ref),
    ),
  );
  // Delivery ids: the prefix, the event id's characters of creation time (so they append to the
  // index, as newId's do), then md5 characters to 24 (hex is a subset of base62), made in SQL so
  // one statement covers every (event, channel) pair. The events are the ones just written, so
  // their scope and type come from the same arrays rather than being read back.
  const result = await trx.raw<{ rows: { channel_id: string }[] }>(
    `with inserted as (
     insert into webhook_deliveries
       (id, merchant_id, livemode, channel_id, event_id, status, max_attempts, next_attempt_at)
     select '${ID_PREFIX.webhookDelivery}_' || substr(e.id, ${ID_PREFIX.event.length + 2}, ${ID_TIME_CHARS})
              || substr(md5(e.id || c.id || random()::text), 1, ${24 - ID_TIME_CHARS}),
            e.merchant_id, e.livemode, c.id, e.id, 'pending', ?, now()
       from unnest(?::text[], ?::text[], ?::boolean[], ?::text[]) as e(id, merchant_id, livemode, type)
       join notification_channels c
         on c.merchant_id = e.merchant_id and c.livemode = e.livemode and c.status = 'enabled'
        and c.deleted_at is null and (e.type = any(c.event_subscriptions) or '*' = any(c.event_subscriptions))
     on conflict (channel_id, event_id) do nothing
     returning channel_id)
     select distinct channel_id from inserted`,
    sqlArgs(WEBHOOK_RETRY_DELAYS_MS.length, ids, merchants, livemodes, types),
  );
  return result.rows.map((r) => r.channel_id);
}
