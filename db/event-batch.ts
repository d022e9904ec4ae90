import type { Knex } from './knex';
import { newId, ID_PREFIX } from '../domain/ids';
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
 * Writes many events and their deliveries in two statements, in the caller's transaction (outbox,
 * set-based): the events in the given order, then one pending delivery per enabled channel of the
 * event's merchant and environment subscribed to its type. Returns the channels to wake after commit.
 */
export async function recordEvents(trx: Knex.Transaction, events: readonly BatchEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  const ids = events.map(() => newId(ID_PREFIX.event));
  await trx.raw(
    `insert into events (id, merchant_id, livemode, type, data)
     select t.id, t.merchant_id, t.livemode, t.type, t.data::json
       from unnest(?::text[], ?::text[], ?::boolean[], ?::text[], ?::text[])
            with ordinality as t(id, merchant_id, livemode, type, data, ord)
      order by t.ord`,
    sqlArgs(
      ids,
      events.map((e) => e.merchantId),
      events.map((e) => e.livemode),
      events.map((e) => e.type),
      events.map((e) => JSON.stringify(e.data)),
    ),
  );
  // Delivery ids: the prefix and 24 characters of an md5 (hex is a subset of base62), made in SQL so
  // one statement covers every (event, channel) pair.
  const result = await trx.raw<{ rows: { channel_id: string }[] }>(
    `insert into webhook_deliveries
       (id, merchant_id, livemode, channel_id, event_id, status, max_attempts, next_attempt_at)
     select '${ID_PREFIX.webhookDelivery}_' || substr(md5(e.id || c.id || random()::text), 1, 24),
            e.merchant_id, e.livemode, c.id, e.id, 'pending', ?, now()
       from events e
       join notification_channels c
         on c.merchant_id = e.merchant_id and c.livemode = e.livemode and c.status = 'enabled'
        and c.deleted_at is null and (e.type = any(c.event_subscriptions) or '*' = any(c.event_subscriptions))
      where e.id = any(?::text[])
     on conflict (channel_id, event_id) do nothing
     returning channel_id`,
    sqlArgs(WEBHOOK_RETRY_DELAYS_MS.length, ids),
  );
  return [...new Set(result.rows.map((r) => r.channel_id))];
}
