import type { Db } from './knex';
import type { Scope } from '../domain/scope';

/** What the merchant's home page counts as needing attention. */
export interface AttentionCounts {
  failedDeliveries: number;
  pastDueSubscriptions: number;
  unpaidClaims: number;
}

/** The counts of what needs the merchant's attention, in one statement over one merchant and mode. */
export function createDashboardOverviewRepository(db: Db) {
  return {
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
