import Decimal from 'decimal.js';
import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import {
  changePerMille,
  daysOf,
  mrrSamplePoints,
  periodRanges,
  type Period,
  type Range,
} from '../../domain/dashboard-periods';
import {
  createDashboardInsightRepository,
  type ClaimsOutstanding,
  type DayByKind,
  type NextPayout,
  type PayoutPoint,
  type PeriodTotals,
} from '../../db/dashboard-insight';

/** A figure of the current period beside the previous one's, and the change in per mille. */
export interface Compared {
  now: number;
  before: number;
  changePerMille: number | null;
}

/** Churn of a period: subscriptions counted at its start that ended in it, per mille of those. */
export interface Churn {
  atStart: number;
  ended: number;
  perMille: number | null;
}

export interface HomeFigures {
  period: Period;
  current: Range;
  previous: Range;
  gross: Compared;
  fees: Compared;
  net: Compared;
  refunds: Compared;
  refundCount: Compared;
  disputes: Compared;
  disputeCount: Compared;
  newCustomers: Compared;
  /** MRR and active subscriptions at the end of each period (now, for the current one). */
  mrr: Compared;
  activeSubscriptions: Compared;
  churn: { now: Churn; before: Churn };
  claims: ClaimsOutstanding;
  nextPayout: NextPayout | null;
  /** Every day of the current period, oldest first. */
  days: DayByKind[];
  /** MRR at the start of each of the last twelve months and now (decision 0230). */
  mrrMonths: { at: string; mrr: number }[];
  payouts: PayoutPoint[];
}

const compare = (now: number, before: number): Compared => ({
  now,
  before,
  changePerMille: changePerMille(now, before),
});

/** The exact MRR sum rounded half up to whole krónur, once (decision 0230). */
const wholeKronur = (exact: string) =>
  new Decimal(exact).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();

const churnOf = (c: { atStart: number; ended: number }): Churn => ({
  ...c,
  perMille: c.atStart === 0 ? null : Math.round((c.ended * 1000) / c.atStart),
});

/**
 * The merchant home page's figures for a period against the previous one (decision 0230): money
 * captured, fees and net, refunds and disputes, new customers, MRR, active subscriptions, churn,
 * kröfur outstanding and overdue, the next payout, and the series the charts draw.
 */
export function createHomeFiguresService(deps: { knex: Knex; now?: () => number }) {
  const repo = createDashboardInsightRepository(deps.knex);
  const clock = deps.now ?? Date.now;
  return {
    async figures(scope: Scope, period: Period): Promise<HomeFigures> {
      const now = new Date(clock());
      const { current, previous } = periodRanges(period, now);
      // MRR is a state, read at each period's end; the current period's end is now.
      const endNow = current.to < now ? current.to : now;
      const months = mrrSamplePoints(now);
      const [cur, prev, byDay, samples, churnNow, churnBefore, claims, nextPayout, payouts] =
        await Promise.all([
          repo.periodTotals(scope, current.from, current.to),
          repo.periodTotals(scope, previous.from, previous.to),
          repo.capturesByDay(scope, current.from, current.to),
          repo.mrrAt(scope, [endNow, previous.to, ...months]),
          repo.churn(scope, current.from, endNow),
          repo.churn(scope, previous.from, previous.to),
          repo.claimsOutstanding(scope, now.toISOString().slice(0, 10)),
          repo.nextPayout(scope),
          repo.recentPayouts(scope, 12),
        ]);
      const pair = (k: keyof PeriodTotals) => compare(cur[k], prev[k]);
      const [mrrNow, mrrBefore, ...mrrMonths] = samples;
      const byDate = new Map(byDay.map((d) => [d.date, d]));
      return {
        period,
        current,
        previous,
        gross: pair('gross'),
        fees: pair('fees'),
        net: compare(cur.gross - cur.fees, prev.gross - prev.fees),
        refunds: pair('refunds'),
        refundCount: pair('refundCount'),
        disputes: pair('disputes'),
        disputeCount: pair('disputeCount'),
        newCustomers: pair('newCustomers'),
        mrr: compare(wholeKronur(mrrNow!.mrr), wholeKronur(mrrBefore!.mrr)),
        activeSubscriptions: compare(mrrNow!.active, mrrBefore!.active),
        churn: { now: churnOf(churnNow), before: churnOf(churnBefore) },
        claims,
        nextPayout,
        days: daysOf(current).map((date) => byDate.get(date) ?? { date, card: 0, krafa: 0 }),
        mrrMonths: mrrMonths.map((s) => ({ at: s.at.toISOString().slice(0, 10), mrr: wholeKronur(s.mrr) })),
        payouts,
      };
    },
  };
}

export type HomeFiguresService = ReturnType<typeof createHomeFiguresService>;
