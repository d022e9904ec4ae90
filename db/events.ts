import type { Db } from './knex';
import type { Scope } from '../domain/scope';
import type { EventRecord } from '../domain/event-payload';
import { newId, ID_PREFIX } from '../domain/ids';
import { WEBHOOK_RETRY_DELAYS_MS } from '../domain/webhook-schedule';
import { eventRefs, sqlArgs } from './event-batch';

interface EventRow {
  seq: number;
  id: string;
  merchant_id: string;
  livemode: boolean;
  type: string;
  data: Record<string, unknown>;
  object_ref: string | null;
  payment_intent_ref: string | null;
  created_at: Date;
}

function toRecord(row: EventRow): EventRecord {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    livemode: row.livemode,
    type: row.type,
    data: row.data,
    createdAt: row.created_at,
  };
}

/** What recording an event produced: the event, and the channels that now have a delivery due. */
export interface RecordedEvent {
  event: EventRecord;
  channelIds: string[];
}

/*
 * The visibility horizon of the event listing (decision 0106): the earliest millisecond an event not
 * yet visible could carry. A transaction writing events holds, from before its first stamp until it
 * ends, a shared advisory lock keyed by the millisecond it began stamping (migration
 * 20261121_1510_events_visibility); a transaction that starts writing after this statement began
 * stamps after statement_timestamp(). Read before the listing takes its snapshot: a writer that
 * commits in between is visible to the listing, one that does not still holds its lock here.
 */
const HORIZON_SQL = `
select least(
         date_trunc('milliseconds', statement_timestamp()),
         (select timestamptz '2020-01-01 00:00:00+00'
                 + min(((l.classid::bigint & 65535) << 32) | l.objid::bigint) * interval '1 millisecond'
            from pg_locks l
           where l.locktype = 'advisory' and l.objsubid = 1 and (l.classid::bigint >> 16) = 24190
             and l.database = (select oid from pg_database where datname = current_database()))
       ) as horizon`;

export function createEventRepository(db: Db) {
  return {
    /**
     * Writes an event and one pending delivery per enabled channel subscribed to its type, in the
     * caller's transaction, so the event exists exactly when the change it records does (outbox).
     * `onlyChannelId` targets one channel whatever its subscriptions (used by debug.check).
     */
    async record(
      scope: Scope,
      input: { type: string; data: Record<string, unknown>; onlyChannelId?: string },
      trx: Db = db,
    ): Promise<RecordedEvent> {
      const [row] = await trx<EventRow>('events')
        .insert({
          id: newId(ID_PREFIX.event),
          merchant_id: scope.merchantId,
          livemode: scope.livemode,
          type: input.type,
          data: input.data,
          ...eventRefs(input.data),
        })
        .returning('*');
      const event = toRecord(row!);
      const channels = trx('notification_channels')
        .select<{ id: string }[]>('id')
        .where({ merchant_id: scope.merchantId, livemode: scope.livemode, status: 'enabled' })
        .whereNull('deleted_at');
      if (input.onlyChannelId !== undefined) channels.where('id', input.onlyChannelId);
      else
        channels.whereRaw("(? = any(event_subscriptions) or '*' = any(event_subscriptions))", [input.type]);
      const targets = await channels;
      if (targets.length === 0) return { event, channelIds: [] };
      // One insert for every subscribed channel, however many there are.
      const rows = await trx('webhook_deliveries')
        .insert(
          targets.map((c) => ({
            id: newId(ID_PREFIX.webhookDelivery),
            merchant_id: scope.merchantId,
            livemode: scope.livemode,
            channel_id: c.id,
            event_id: event.id,
            status: 'pending',
            max_attempts: WEBHOOK_RETRY_DELAYS_MS.length,
            next_attempt_at: trx.fn.now(),
          })),
        )
        .onConflict(['channel_id', 'event_id'])
        .ignore()
        .returning<{ channel_id: string }[]>('channel_id');
      return { event, channelIds: rows.map((r) => r.channel_id) };
    },

    async findById(scope: Scope, id: string, trx: Db = db): Promise<EventRecord | undefined> {
      const row = await trx<EventRow>('events')
        .where({ id, merchant_id: scope.merchantId, livemode: scope.livemode })
        .first();
      return row && toRecord(row);
    },

    /**
     * Some events of the caller's scope by id, in one read (a batch of webhook deliveries), each id
     * its own primary-key probe: as one `id in (…)` with the scope, on fresh statistics the planner
     * also scanned the scope's index for every event of the merchant (decision 0196).
     */
    async findByIds(scope: Scope, ids: readonly string[], trx: Db = db): Promise<EventRecord[]> {
      if (ids.length === 0) return [];
      const result = await trx.raw<{ rows: EventRow[] }>(
        `select e.* from unnest(?::text[]) as t(id)
           cross join lateral (select * from events where id = t.id and merchant_id = ? and livemode = ?) e`,
        sqlArgs([...new Set(ids)], scope.merchantId, scope.livemode),
      );
      return result.rows.map(toRecord);
    },

    /**
     * Events oldest first. `after` keeps those created strictly after a time (polling); `startingAfter`
     * continues after an event id, which is lossless even when several events share a millisecond.
     * Only events stamped before the visibility horizon are listed (decision 0106), so an event that
     * commits late never lands before one a client has already seen. Two statements, in this order,
     * each with its own snapshot: run it outside a repeatable-read transaction.
     */
    async list(
      scope: Scope,
      opts: { limit: number; after?: Date; startingAfter?: string; type?: string; objectId?: string },
      trx: Db = db,
    ): Promise<{ data: EventRecord[]; hasMore: boolean }> {
      const horizon = (await trx.raw<{ rows: { horizon: Date }[] }>(HORIZON_SQL)).rows[0]!.horizon;
      const q = trx<EventRow>('events')
        .where({ merchant_id: scope.merchantId, livemode: scope.livemode })
        .where('created_at', '<', horizon)
        .orderBy([{ column: 'created_at' }, { column: 'seq' }])
        .limit(opts.limit + 1);
      if (opts.after) q.where('created_at', '>', opts.after);
      if (opts.type) q.where('type', opts.type);
      // Events about one object: its own, and those of its refunds (the dashboard's timelines).
      const objectId = opts.objectId;
      if (objectId) q.where((w) => w.where('object_ref', objectId).orWhere('payment_intent_ref', objectId));
      if (opts.startingAfter) {
        q.whereRaw(
          '(created_at, seq) > (select created_at, seq from events where id = ? and merchant_id = ? and livemode = ?)',
          [opts.startingAfter, scope.merchantId, scope.livemode],
        );
      }
      const rows = await q;
      return { data: rows.slice(0, opts.limit).map(toRecord), hasMore: rows.length > opts.limit };
    },
  };
}

export type EventRepository = ReturnType<typeof createEventRepository>;
