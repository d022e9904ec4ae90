import type { Knex } from './knex';
import type { SubscriptionRow } from './subscriptions';
import { sqlArgs } from './event-batch';

/** Where one subscription goes after a charge of one of its periods. */
export interface ChargedPeriod {
  subscriptionId: string;
  status: string;
  paid: boolean;
  /** Whether the subscription moves to the charged period (a failed first charge does not). */
  advance: boolean;
  periodIndex: number;
  periodStart: Date;
  periodEnd: Date;
  priceId: string;
  proration: number;
}

/** What a charge needs to know of a subscription it has locked: whether it may still be charged. */
export type LockedSubscription = Pick<
  SubscriptionRow,
  'id' | 'status' | 'cancel_at_period_end' | 'current_period_end'
>;

/**
 * Locks the subscriptions a charge is about to open or finish renewals of and returns what decides
 * whether they may be charged (only that: a page locks hundreds, and whole rows cost their parsing).
 * A cancel locks the same row, so a charge and a cancel of one subscription happen one after the
 * other (decision 0100). Rows are locked in id order, so two pages never wait on each other.
 */
export async function lockForCharge(
  trx: Knex.Transaction,
  ids: readonly string[],
): Promise<LockedSubscription[]> {
  if (ids.length === 0) return [];
  const result = await trx.raw<{ rows: LockedSubscription[] }>(
    `select id, status, cancel_at_period_end, current_period_end from subscriptions
      where id = any(?::text[]) order by id for update`,
    sqlArgs(...[ids]),
  );
  return result.rows;
}

/** Whole rows of subscriptions this transaction has locked already. */
export async function lockedRows(trx: Knex.Transaction, ids: readonly string[]): Promise<SubscriptionRow[]> {
  if (ids.length === 0) return [];
  const result = await trx.raw<{ rows: SubscriptionRow[] }>(
    `select * from subscriptions where id = any(?::text[])`,
    sqlArgs(...[ids]),
  );
  return result.rows;
}

/**
 * Moves each subscription to the period it was just charged for, in one statement: the given
 * status, the period and its price when it advances (a pending price that took effect is cleared,
 * the proration charged is taken off), and the failure time kept or cleared. Returns the rows.
 * An ended subscription (canceled, incomplete_expired) is never moved: whatever a charge in flight
 * at its cancel did, it stays ended (decision 0100). `s.id = any(…)` beside the join: read by primary
 * key whatever the statistics say (decision 0196).
 */
export async function moveToChargedPeriods(
  trx: Knex.Transaction,
  moved: readonly ChargedPeriod[],
  asOf: Date,
): Promise<SubscriptionRow[]> {
  const result = await trx.raw<{ rows: SubscriptionRow[] }>(
    `update subscriptions s set
            status = t.status,
            current_period_index = case when t.advance then t.period_index else s.current_period_index end,
            current_period_start = case when t.advance then t.period_start else s.current_period_start end,
            current_period_end = case when t.advance then t.period_end else s.current_period_end end,
            price_id = case when t.advance then t.price_id else s.price_id end,
            pending_price_id = case when t.advance and s.pending_price_id = t.price_id then null
                                    else s.pending_price_id end,
            proration_amount = case when t.advance then s.proration_amount - t.proration else s.proration_amount end,
            payment_failed_at = case when t.paid then null else coalesce(s.payment_failed_at, ?::timestamptz) end,
            payment_retry_requested = false,
            paused = case when t.paid then false else s.paused end,
            updated_at = now()
       from unnest(?::text[], ?::text[], ?::boolean[], ?::boolean[], ?::integer[], ?::timestamptz[],
                   ?::timestamptz[], ?::text[], ?::bigint[])
            as t(id, status, paid, advance, period_index, period_start, period_end, price_id, proration)
      where s.id = t.id and s.id = any(?::text[]) and s.status not in ('canceled', 'incomplete_expired')
     returning s.*`,
    sqlArgs(
      ...[
        asOf,
        moved.map((m) => m.subscriptionId),
        moved.map((m) => m.status),
        moved.map((m) => m.paid),
        moved.map((m) => m.advance),
        moved.map((m) => m.periodIndex),
        moved.map((m) => m.periodStart),
        moved.map((m) => m.periodEnd),
        moved.map((m) => m.priceId),
        moved.map((m) => m.proration),
        moved.map((m) => m.subscriptionId),
      ],
    ),
  );
  return result.rows;
}
