import type { Db } from './knex';
import type { Scope } from '../domain/scope';
import type { EventRecord } from '../domain/event-payload';
import { newId, ID_PREFIX } from '../domain/ids';
import { WEBHOOK_RETRY_DELAYS_MS } from '../domain/webhook-schedule';

interface EventRow {
  seq: number;
  id: string;
  merchant_id: string;
  livemode: boolean;
  type: string;
  data: Record<string, unknown>;
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
     * Events oldest first. `after` keeps those created strictly after a time (polling); `startingAfter`
     * continues after an event id, which is lossless even when several events share a millisecond.
     */
    async list(
      scope: Scope,
      opts: { limit: number; after?: Date; startingAfter?: string; type?: string },
      trx: Db = db,
    ): Promise<{ data: EventRecord[]; hasMore: boolean }> {
      const q = trx<EventRow>('events')
        .where({ merchant_id: scope.merchantId, livemode: scope.livemode })
        .orderBy([{ column: 'created_at' }, { column: 'seq' }])
        .limit(opts.limit + 1);
      if (opts.after) q.where('created_at', '>', opts.after);
      if (opts.type) q.where('type', opts.type);
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
