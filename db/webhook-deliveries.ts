import type { Db } from './knex';
import type { Scope } from '../domain/scope';
import { pageByCreated } from './pagination';
import { newId, ID_PREFIX } from '../domain/ids';
import { WEBHOOK_RETRY_DELAYS_MS } from '../domain/webhook-schedule';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface DeliveryRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  channel_id: string;
  event_id: string;
  status: DeliveryStatus;
  attempt_count: number;
  max_attempts: number;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface AttemptRow {
  delivery_id: string;
  attempt_number: number;
  outcome: 'in_progress' | 'succeeded' | 'failed';
  started_at: Date;
  finished_at: Date | null;
  response_status: number | null;
  latency_ms: number | null;
  error: string | null;
}

/** How an attempt ended, as recorded. */
export interface AttemptResult {
  succeeded: boolean;
  responseStatus: number | null;
  latencyMs: number | null;
  error: string | null;
}

export function createDeliveryRepository(db: Db) {
  const scoped = (scope: Scope, trx: Db) =>
    trx<DeliveryRow>('webhook_deliveries').where({ merchant_id: scope.merchantId, livemode: scope.livemode });
  // Attempts carry no tenant columns of their own: they are reached through their scoped delivery.
  const attemptsOf = (scope: Scope, deliveryId: string, trx: Db) =>
    trx<AttemptRow>('webhook_attempts')
      .where({ delivery_id: deliveryId })
      .whereExists(
        trx('webhook_deliveries')
          .whereRaw('webhook_deliveries.id = webhook_attempts.delivery_id')
          .where({ merchant_id: scope.merchantId, livemode: scope.livemode }),
      );

  return {
    /** Pending deliveries of a channel that are due now, oldest first, and when the next one falls due. */
    async findDue(
      scope: Scope,
      channelId: string,
      limit: number,
      trx: Db = db,
    ): Promise<{ due: { id: string; attemptNumber: number }[]; nextDueAt: Date | null }> {
      // Both reads see one now(): PostgreSQL fixes it per transaction. With two different instants a
      // delivery falling due between them would be neither due nor upcoming, and the channel would
      // sleep until the relay noticed it.
      const read = async (q: Db) => {
        const due = await scoped(scope, q)
          .where({ channel_id: channelId, status: 'pending' })
          .where('next_attempt_at', '<=', q.fn.now())
          .orderBy([{ column: 'next_attempt_at' }, { column: 'id' }])
          .limit(limit)
          .select('id', 'attempt_count');
        const next = await scoped(scope, q)
          .where({ channel_id: channelId, status: 'pending' })
          .where('next_attempt_at', '>', q.fn.now())
          .min<{ min: Date | null }>('next_attempt_at as min')
          .first();
        return {
          due: due.map((d) => ({ id: d.id, attemptNumber: d.attempt_count + 1 })),
          nextDueAt: next?.min ?? null,
        };
      };
      return trx.isTransaction ? read(trx) : trx.transaction(read);
    },

    async findById(scope: Scope, id: string, trx: Db = db): Promise<DeliveryRow | undefined> {
      return scoped(scope, trx).where({ id }).first();
    },

    /** Locks a delivery for the length of the caller's transaction. */
    async lock(scope: Scope, id: string, trx: Db): Promise<DeliveryRow | undefined> {
      return scoped(scope, trx).where({ id }).forUpdate().first();
    },

    async findAttempt(
      scope: Scope,
      deliveryId: string,
      attemptNumber: number,
      trx: Db = db,
    ): Promise<AttemptRow | undefined> {
      return attemptsOf(scope, deliveryId, trx).where({ attempt_number: attemptNumber }).first();
    },

    /** Records that attempt `attemptNumber` has begun; the caller holds the delivery's lock. */
    async insertAttempt(scope: Scope, deliveryId: string, attemptNumber: number, trx: Db): Promise<void> {
      const owned: unknown = await scoped(scope, trx).where({ id: deliveryId }).first('id');
      if (!owned) throw new Error(`delivery ${deliveryId} is not in this scope`);
      await trx('webhook_attempts').insert({
        delivery_id: deliveryId,
        attempt_number: attemptNumber,
        outcome: 'in_progress',
        started_at: trx.fn.now(),
      });
    },

    /**
     * Records the end of an attempt, at `at` (the worker's clock, which the rule that disables
     * failing channels reads too), and moves the delivery on: succeeded, due again at `nextAt`, or
     * failed for good when `nextAt` is null.
     */
    async finishAttempt(
      scope: Scope,
      deliveryId: string,
      attemptNumber: number,
      result: AttemptResult,
      nextAt: Date | null,
      at: Date,
      trx: Db,
    ): Promise<void> {
      await trx('webhook_attempts')
        .where({ delivery_id: deliveryId, attempt_number: attemptNumber })
        .update({
          outcome: result.succeeded ? 'succeeded' : 'failed',
          finished_at: at,
          response_status: result.responseStatus,
          latency_ms: result.latencyMs,
          error: result.error,
        });
      await scoped(scope, trx)
        .where({ id: deliveryId })
        .update({
          attempt_count: attemptNumber,
          last_attempt_at: at,
          status: result.succeeded ? 'succeeded' : nextAt ? 'pending' : 'failed',
          next_attempt_at: result.succeeded ? null : nextAt,
          updated_at: trx.fn.now(),
        });
    },

    async attempts(scope: Scope, deliveryId: string, trx: Db = db): Promise<AttemptRow[]> {
      return attemptsOf(scope, deliveryId, trx).orderBy('attempt_number');
    },

    async listForChannel(
      scope: Scope,
      channelId: string,
      opts: { limit: number; startingAfter?: string; endingBefore?: string; status?: DeliveryStatus },
      trx: Db = db,
    ): Promise<{ data: DeliveryRow[]; hasMore: boolean }> {
      const q = scoped(scope, trx).where({ channel_id: channelId });
      if (opts.status) q.where({ status: opts.status });
      return pageByCreated<DeliveryRow>(q, 'webhook_deliveries', scope, opts);
    },

    /** A finished delivery gets one more attempt, now. Returns undefined while it is still pending. */
    async resend(scope: Scope, id: string, trx: Db = db): Promise<DeliveryRow | undefined> {
      const [row] = await scoped(scope, trx)
        .where({ id })
        .whereNot({ status: 'pending' })
        .update({
          status: 'pending',
          max_attempts: trx.raw('attempt_count + 1'),
          next_attempt_at: trx.fn.now(),
          updated_at: trx.fn.now(),
        })
        .returning('*');
      return row;
    },

    /**
     * One event's delivery to one channel, pending now: made when the channel never had the event
     * (one delivery per channel and event, by its unique key), else undefined for the caller to resend.
     */
    async createForEvent(
      scope: Scope,
      eventId: string,
      channelId: string,
      trx: Db = db,
    ): Promise<{ created: DeliveryRow } | { existing: DeliveryRow }> {
      const [created] = await trx<DeliveryRow>('webhook_deliveries')
        .insert({
          id: newId(ID_PREFIX.webhookDelivery),
          merchant_id: scope.merchantId,
          livemode: scope.livemode,
          channel_id: channelId,
          event_id: eventId,
          status: 'pending',
          max_attempts: WEBHOOK_RETRY_DELAYS_MS.length,
          next_attempt_at: trx.fn.now() as unknown as Date,
        })
        .onConflict(['channel_id', 'event_id'])
        .ignore()
        .returning('*');
      if (created) return { created };
      const existing = await scoped(scope, trx).where({ channel_id: channelId, event_id: eventId }).first();
      return { existing: existing! };
    },

    /** The deliveries of some events (of the caller's scope), as created when they were recorded. */
    async listForEvents(scope: Scope, eventIds: string[], trx: Db = db): Promise<DeliveryRow[]> {
      if (eventIds.length === 0) return [];
      return scoped(scope, trx).whereIn('event_id', eventIds);
    },

    /**
     * Channels with a delivery overdue by more than `graceMs`: a healthy channel workflow attempts a
     * due delivery within moments, so these are ones whose wake-up signal was lost (a crash between
     * commit and signal). Across all merchants: the relay that calls this serves every tenant.
     */
    async channelsWithOverdueDeliveries(graceMs: number, limit: number, trx: Db = db): Promise<string[]> {
      const rows = await trx('webhook_deliveries')
        .distinct('channel_id')
        .where({ status: 'pending' })
        .where('next_attempt_at', '<', trx.raw(`now() - (? * interval '1 millisecond')`, [graceMs]))
        .limit(limit);
      return rows.map((r: { channel_id: string }) => r.channel_id);
    },

    /**
     * The delivery backlog across every tenant, for the operators' metrics: deliveries not yet
     * made (due now or waiting for a retry) and how long the oldest due one has waited (0 when
     * none). Reads the partial index of pending deliveries only.
     */
    async backlog(trx: Db = db): Promise<{ pending: number; oldestDueSeconds: number }> {
      const row = await trx('webhook_deliveries')
        .where({ status: 'pending' })
        .first<{ pending: number; oldest: number | null }>(
          trx.raw('count(*)::int as pending'),
          trx.raw(
            'extract(epoch from now() - min(next_attempt_at) filter (where next_attempt_at <= now()))::float8 as oldest',
          ),
        );
      return { pending: row?.pending ?? 0, oldestDueSeconds: Math.max(0, row?.oldest ?? 0) };
    },
  };
}

export type DeliveryRepository = ReturnType<typeof createDeliveryRepository>;
