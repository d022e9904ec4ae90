import type { Knex } from './knex';
import type { Scope } from '../domain/scope';
import { sqlArgs } from './event-batch';
import type { AttemptResult } from './webhook-deliveries';

/** A delivery whose attempt the caller may now make: its attempt row is written, in progress. */
export interface ClaimedDelivery {
  id: string;
  channel_id: string;
  event_id: string;
  max_attempts: number;
  attemptNumber: number;
}

/** How an attempt ended and where its delivery goes next: due again at `nextAt`, or done. */
export interface BatchOutcome extends AttemptResult {
  deliveryId: string;
  attemptNumber: number;
  /** When the attempt ended (the worker's clock, which the disabling rule reads too). */
  at: Date;
  /** The next attempt's time after a failure; null when the delivery succeeded or failed for good. */
  nextAt: Date | null;
}

/**
 * Set-based claiming and recording of webhook attempts: a batch of deliveries costs a few statements
 * instead of a few per delivery. The rules are those of attemptDelivery's exactly-once protocol.
 */
export function createDeliveryBatchRepository() {
  return {
    /**
     * Locks the batch's deliveries (in id order, so two claimers never deadlock) that are still
     * pending and have not reached attempt `attemptNumber`, and writes each one's attempt row, in
     * progress. `claimed` may now be sent; `interrupted` already had that attempt row: a worker
     * died mid-request, and the attempt must be recorded as failed, never sent again. The rest of
     * the batch is absent from both (finished, or already past that attempt). Run it in the
     * transaction that commits before anything is sent.
     */
    async claim(
      scope: Scope,
      batch: readonly { id: string; attemptNumber: number }[],
      trx: Knex.Transaction,
    ): Promise<{ claimed: ClaimedDelivery[]; interrupted: ClaimedDelivery[] }> {
      if (batch.length === 0) return { claimed: [], interrupted: [] };
      // `d.id = any(…)` as well as the join: the planner then reads the batch's rows by primary key.
      // From the join alone it guessed a hundred ids and scanned every pending delivery of the
      // merchant (447 ms a batch in a renewal day of 100,000; more as the table grows).
      const ids = batch.map((b) => b.id);
      const locked = await trx.raw<{ rows: (Omit<ClaimedDelivery, 'attemptNumber'> & { n: number })[] }>(
        `select d.id, d.channel_id, d.event_id, d.max_attempts, t.n
           from webhook_deliveries d
           join unnest(?::text[], ?::int[]) as t(id, n) on t.id = d.id
          where d.id = any(?::text[]) and d.merchant_id = ? and d.livemode = ? and d.status = 'pending'
            and d.attempt_count < t.n
          order by d.id
            for update of d`,
        sqlArgs(
          ids,
          batch.map((b) => b.attemptNumber),
          ids,
          scope.merchantId,
          scope.livemode,
        ),
      );
      const rows = locked.rows.map(({ n, ...row }) => ({ ...row, attemptNumber: n }));
      if (rows.length === 0) return { claimed: [], interrupted: [] };
      // The attempt's primary key (delivery, number) admits one row: a conflict is a previous try.
      const inserted = await trx.raw<{ rows: { delivery_id: string }[] }>(
        `insert into webhook_attempts (delivery_id, attempt_number, outcome, started_at)
         select t.id, t.n, 'in_progress', now() from unnest(?::text[], ?::int[]) as t(id, n)
         on conflict (delivery_id, attempt_number) do nothing
         returning delivery_id`,
        sqlArgs(
          rows.map((r) => r.id),
          rows.map((r) => r.attemptNumber),
        ),
      );
      const fresh = new Set(inserted.rows.map((r) => r.delivery_id));
      return {
        claimed: rows.filter((r) => fresh.has(r.id)),
        interrupted: rows.filter((r) => !fresh.has(r.id)),
      };
    },

    /**
     * Records the end of many attempts in two statements, and moves each delivery on: succeeded,
     * due again at `nextAt`, or failed for good. Only deliveries of `scope` are touched, and only
     * their attempts (attempts carry no tenant columns of their own).
     */
    async finish(scope: Scope, outcomes: readonly BatchOutcome[], trx: Knex.Transaction): Promise<void> {
      if (outcomes.length === 0) return;
      // `d.id = any(…)` beside the join, as in `claim`: read by primary key (decision 0196).
      await trx.raw(
        `with t as (
           select * from unnest(?::text[], ?::int[], ?::boolean[], ?::timestamptz[], ?::timestamptz[],
                                ?::int[], ?::int[], ?::text[])
                      as t(id, n, succeeded, at, next_at, response_status, latency_ms, error)
         ), moved as (
           update webhook_deliveries d
              set attempt_count = t.n,
                  last_attempt_at = t.at,
                  status = case when t.succeeded then 'succeeded'
                                when t.next_at is not null then 'pending'
                                else 'failed' end,
                  next_attempt_at = case when t.succeeded then null else t.next_at end,
                  updated_at = now()
             from t
            where d.id = t.id and d.id = any(?::text[]) and d.merchant_id = ? and d.livemode = ?
           returning d.id
         )
         update webhook_attempts a
            set outcome = case when t.succeeded then 'succeeded' else 'failed' end,
                finished_at = t.at,
                response_status = t.response_status,
                latency_ms = t.latency_ms,
                error = t.error
           from t join moved on moved.id = t.id
          where a.delivery_id = t.id and a.attempt_number = t.n`,
        sqlArgs(
          outcomes.map((o) => o.deliveryId),
          outcomes.map((o) => o.attemptNumber),
          outcomes.map((o) => o.succeeded),
          outcomes.map((o) => o.at),
          outcomes.map((o) => (o.succeeded ? null : o.nextAt)),
          outcomes.map((o) => o.responseStatus),
          outcomes.map((o) => o.latencyMs),
          outcomes.map((o) => o.error),
          outcomes.map((o) => o.deliveryId),
          scope.merchantId,
          scope.livemode,
        ),
      );
    },
  };
}

export type DeliveryBatchRepository = ReturnType<typeof createDeliveryBatchRepository>;
