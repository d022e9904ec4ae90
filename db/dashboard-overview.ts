import type { Db } from './knex';
import type { Scope } from '../domain/scope';

/** One day's money received by kind: card payments captured, kröfur paid (ISK). */
export interface DailyVolume {
  date: string;
  card: number;
  krafa: number;
}

/** What the merchant's home page counts as needing attention. */
export interface AttentionCounts {
  failedDeliveries: number;
  pastDueSubscriptions: number;
  unpaidClaims: number;
}

/**
 * The merchant home page's figures, in set-based SQL over one merchant and mode: money received per
 * day and kind (card captures by `captured_at`, kröfur by `paid_at`), and the counts of what needs
 * attention.
 */
export function createDashboardOverviewRepository(db: Db) {
  return {
    /** Received per UTC day from `from` (inclusive, yyyy-mm-dd) on; days with nothing are absent. */
    async dailyVolume(scope: Scope, from: string): Promise<DailyVolume[]> {
      const { rows } = await db.raw<{ rows: { date: string; card: string; krafa: string }[] }>(
        `select to_char(day, 'YYYY-MM-DD') as date, sum(card)::bigint as card, sum(krafa)::bigint as krafa
           from (
             select date_trunc('day', captured_at at time zone 'UTC') as day, amount_captured as card, 0 as krafa
               from payment_intents
              where merchant_id = :m and livemode = :l and captured_at >= :from::date
             union all
             select date_trunc('day', paid_at at time zone 'UTC'), 0, amount_paid
               from claims
              where merchant_id = :m and livemode = :l and paid_at >= :from::date
           ) received
          group by day order by day`,
        { m: scope.merchantId, l: scope.livemode, from },
      );
      return rows.map((r) => ({ date: r.date, card: Number(r.card), krafa: Number(r.krafa) }));
    },

    async attention(scope: Scope): Promise<AttentionCounts> {
      const { rows } = await db.raw<{ rows: { d: string; s: string; c: string }[] }>(
        `select
           (select count(*) from webhook_deliveries where merchant_id = :m and livemode = :l and status = 'failed') as d,
           (select count(*) from subscriptions where merchant_id = :m and livemode = :l and status = 'past_due') as s,
           (select count(*) from claims where merchant_id = :m and livemode = :l
               and status in ('issued', 'partially_paid') and due_date < to_char(current_date, 'YYYY-MM-DD')) as c`,
        { m: scope.merchantId, l: scope.livemode },
      );
      const r = rows[0]!;
      return {
        failedDeliveries: Number(r.d),
        pastDueSubscriptions: Number(r.s),
        unpaidClaims: Number(r.c),
      };
    },
  };
}
