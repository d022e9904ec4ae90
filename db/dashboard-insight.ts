import type { Db } from './knex';
import type { Scope } from '../domain/scope';

/** Money and counts of one period (decision 0230). */
export interface PeriodTotals {
  /** Captured in the period: card payments and kröfur paid (their payment intents). */
  gross: number;
  /** The fees stored with those captures. */
  fees: number;
  refunds: number;
  refundCount: number;
  disputes: number;
  disputeCount: number;
  newCustomers: number;
}

/** One UTC day's captures by payment kind: a krafa's payment intent, or any other (a card's). */
export interface DayByKind {
  date: string;
  card: number;
  krafa: number;
}

/** MRR at an instant: the exact sum as decimal text (rounded by the caller) and the count behind it. */
export interface MrrSample {
  at: Date;
  mrr: string;
  active: number;
}

export interface ClaimsOutstanding {
  count: number;
  amount: number;
  overdueCount: number;
  overdueAmount: number;
}

export interface PayoutPoint {
  id: string;
  settlementDate: string;
  amount: number;
  status: string;
}

export interface NextPayout {
  runId: string;
  settlementDate: string;
  net: number;
  status: string;
}

/**
 * Whether a subscription counts towards MRR at the instant `at` (decision 0230): it had started, its
 * trial is over and it has not ended; one that never started, is unpaid or paused never counts. Its
 * start is in its own time (a test clock's for a subscription on one), as its end is: the trial's
 * start, else the billing anchor.
 */
const COUNTS_AT = (at: string) =>
  `s.status not in ('incomplete', 'incomplete_expired', 'unpaid') and not s.paused
   and coalesce(s.trial_start, s.billing_cycle_anchor) <= ${at}
   and (s.trial_end is null or s.trial_end <= ${at}) and (s.ended_at is null or s.ended_at > ${at})`;

/** A subscription's price per month as an exact fraction: weekly ×52/12, yearly /12, per interval count. */
const MONTHLY = `(s.quantity * pr.unit_amount
    * (case pr.recurring_interval when 'week' then 52 else 1 end))::numeric
  / ((case pr.recurring_interval when 'month' then 1 else 12 end) * pr.recurring_interval_count)`;

/**
 * The home page's figures in set-based SQL over one merchant and mode: period totals, captures by
 * day and kind, MRR at sample instants, churn, kröfur outstanding and the payouts.
 */
export function createDashboardInsightRepository(db: Db) {
  return {
    async periodTotals(scope: Scope, from: Date, to: Date): Promise<PeriodTotals> {
      const { rows } = await db.raw<{ rows: Record<keyof PeriodTotals, string>[] }>(
        `select
           (select coalesce(sum(amount_captured), 0) from payment_intents
             where merchant_id = :m and livemode = :l and captured_at >= :from and captured_at < :to) as "gross",
           (select coalesce(sum(fee_amount), 0) from payment_intents
             where merchant_id = :m and livemode = :l and captured_at >= :from and captured_at < :to) as "fees",
           (select coalesce(sum(amount), 0) from refunds
             where merchant_id = :m and livemode = :l and status = 'succeeded'
               and created_at >= :from and created_at < :to) as "refunds",
           (select count(*) from refunds
             where merchant_id = :m and livemode = :l and status = 'succeeded'
               and created_at >= :from and created_at < :to) as "refundCount",
           (select coalesce(sum(amount), 0) from disputes
             where merchant_id = :m and livemode = :l and created_at >= :from and created_at < :to) as "disputes",
           (select count(*) from disputes
             where merchant_id = :m and livemode = :l and created_at >= :from and created_at < :to) as "disputeCount",
           (select count(*) from customers
             where merchant_id = :m and livemode = :l and deleted_at is null
               and created_at >= :from and created_at < :to) as "newCustomers"`,
        { m: scope.merchantId, l: scope.livemode, from, to },
      );
      const r = rows[0]!;
      return {
        gross: Number(r.gross),
        fees: Number(r.fees),
        refunds: Number(r.refunds),
        refundCount: Number(r.refundCount),
        disputes: Number(r.disputes),
        disputeCount: Number(r.disputeCount),
        newCustomers: Number(r.newCustomers),
      };
    },

    /** Captures per UTC day in [from, to), by kind; days with none are absent. */
    async capturesByDay(scope: Scope, from: Date, to: Date): Promise<DayByKind[]> {
      const { rows } = await db.raw<{ rows: { date: string; card: string; krafa: string }[] }>(
        `select to_char(pi.captured_at at time zone 'UTC', 'YYYY-MM-DD') as date,
                coalesce(sum(pi.amount_captured) filter (where c.id is null), 0) as card,
                coalesce(sum(pi.amount_captured) filter (where c.id is not null), 0) as krafa
           from payment_intents pi
           left join claims c
             on c.payment_intent_id = pi.id and c.merchant_id = pi.merchant_id and c.livemode = pi.livemode
          where pi.merchant_id = :m and pi.livemode = :l and pi.captured_at >= :from and pi.captured_at < :to
          group by 1 order by 1`,
        { m: scope.merchantId, l: scope.livemode, from, to },
      );
      return rows.map((r) => ({ date: r.date, card: Number(r.card), krafa: Number(r.krafa) }));
    },

    /** MRR and the subscriptions counted, at each instant given (in that order). */
    async mrrAt(scope: Scope, points: readonly Date[]): Promise<MrrSample[]> {
      const { rows } = await db.raw<{ rows: { mrr: string; active: string; n: string }[] }>(
        `select p.n, count(s.id) as active, coalesce(sum(${MONTHLY}), 0)::text as mrr
           from unnest(:points::timestamptz[]) with ordinality as p(at, n)
           left join subscriptions s
             on s.merchant_id = :m and s.livemode = :l and ${COUNTS_AT('p.at')}
           left join prices pr on pr.id = s.price_id
          group by p.n order by p.n`,
        { m: scope.merchantId, l: scope.livemode, points: points.map((p) => p.toISOString()) },
      );
      return rows.map((r, i) => ({ at: points[i]!, mrr: r.mrr, active: Number(r.active) }));
    },

    /** Subscriptions counted at `from` that ended in [from, to), and how many were counted at `from`. */
    async churn(scope: Scope, from: Date, to: Date): Promise<{ atStart: number; ended: number }> {
      const { rows } = await db.raw<{ rows: { at_start: string; ended: string }[] }>(
        `select count(*) as at_start,
                count(*) filter (where s.ended_at >= :from and s.ended_at < :to) as ended
           from subscriptions s
          where s.merchant_id = :m and s.livemode = :l and ${COUNTS_AT(':from')}`,
        { m: scope.merchantId, l: scope.livemode, from, to },
      );
      return { atStart: Number(rows[0]!.at_start), ended: Number(rows[0]!.ended) };
    },

    /** Kröfur not yet paid or ended; overdue: past their final due date (eindagi) on `today`. */
    async claimsOutstanding(scope: Scope, today: string): Promise<ClaimsOutstanding> {
      const { rows } = await db.raw<{ rows: Record<keyof ClaimsOutstanding, string>[] }>(
        `select count(*) as "count", coalesce(sum(amount - amount_paid), 0) as "amount",
                count(*) filter (where final_due_date < :today) as "overdueCount",
                coalesce(sum(amount - amount_paid) filter (where final_due_date < :today), 0) as "overdueAmount"
           from claims
          where merchant_id = :m and livemode = :l and status in ('pending', 'issued', 'partially_paid')`,
        { m: scope.merchantId, l: scope.livemode, today },
      );
      const r = rows[0]!;
      return {
        count: Number(r.count),
        amount: Number(r.amount),
        overdueCount: Number(r.overdueCount),
        overdueAmount: Number(r.overdueAmount),
      };
    },

    /** The earliest settlement run not yet paid out: what the next payout will be. */
    async nextPayout(scope: Scope): Promise<NextPayout | null> {
      const row: { id: string; settlement_date: string; net: number; status: string } | undefined = await db(
        'settlement_runs',
      )
        .where({ merchant_id: scope.merchantId, livemode: scope.livemode })
        .whereIn('status', ['open', 'pending_review', 'approved', 'submitted'])
        .orderBy([
          { column: 'settlement_date', order: 'asc' },
          { column: 'id', order: 'asc' },
        ])
        .first('id', 'settlement_date', 'net', 'status');
      return row
        ? { runId: row.id, settlementDate: row.settlement_date, net: Number(row.net), status: row.status }
        : null;
    },

    /** The latest `limit` payouts, oldest first, by their run's settlement date. */
    async recentPayouts(scope: Scope, limit: number): Promise<PayoutPoint[]> {
      const rows = await db('payouts as p')
        .join('settlement_runs as r', 'r.id', 'p.settlement_run_id')
        .where({ 'p.merchant_id': scope.merchantId, 'p.livemode': scope.livemode })
        .orderBy([
          { column: 'r.settlement_date', order: 'desc' },
          { column: 'p.id', order: 'desc' },
        ])
        .limit(limit)
        .select('p.id', 'r.settlement_date', 'p.amount', 'p.status');
      return rows
        .map((r: { id: string; settlement_date: string; amount: number; status: string }) => ({
          id: r.id,
          settlementDate: r.settlement_date,
          amount: Number(r.amount),
          status: r.status,
        }))
        .reverse();
    },
  };
}
