import type { Knex } from '../../db/knex';
import { createFinanceRunRepository, type RunDetail } from '../../db/finance-runs';
import { createFinanceBankRepository } from '../../db/finance-bank';

export type {
  DailyTotal,
  LineRow,
  MerchantOption,
  PayoutRow,
  RunDetail,
  RunSummary,
} from '../../db/finance-runs';
export type { AuditActor } from '../../db/audit-log';

/**
 * What the finance pages read about settlement runs: runs by day with their totals, the merchants
 * to filter by, and one run with its lines, payout and the exceptions of its day. Read-only; the
 * approval is the settlement service's.
 */
export function createFinanceRunService(deps: { knex: Knex }) {
  const runs = createFinanceRunRepository(deps.knex);
  const bank = createFinanceBankRepository(deps.knex);

  return {
    /**
     * Runs of the `days` newest settlement dates before `before`, and the daily totals from `from`
     * to `to` for the chart; of one merchant when `merchantId` is given.
     */
    async overview(
      livemode: boolean,
      opts: {
        days: number;
        before?: string | undefined;
        merchantId?: string | undefined;
        from: string;
        to: string;
      },
    ) {
      const [recent, totals] = await Promise.all([
        runs.runsOfRecentDays(livemode, {
          days: opts.days,
          before: opts.before,
          merchantId: opts.merchantId,
        }),
        runs.dailyTotals(livemode, opts.from, opts.to, opts.merchantId),
      ]);
      return { runs: recent, totals };
    },

    /** The merchants with runs in the environment, by name: the runs page's filter. */
    merchantsWithRuns: (livemode: boolean, limit: number) => runs.merchantsWithRuns(livemode, limit),

    /** A merchant by id, whatever its environment. */
    findMerchant: (id: string) => runs.findMerchant(id),

    findRun: (livemode: boolean, id: string): Promise<RunDetail | undefined> => runs.findRun(livemode, id),

    /** A run's page: a page of its lines after line `after`, its payout, the exceptions of its day. */
    async runDetail(
      livemode: boolean,
      id: string,
      opts: { after?: number | undefined; linesPerPage: number },
    ) {
      const run = await runs.findRun(livemode, id);
      if (!run) return undefined;
      const [lines, payout, exceptions] = await Promise.all([
        runs.runLines(run, { after: opts.after, limit: opts.linesPerPage }),
        runs.runPayout(run),
        bank.exceptionsOfDay(livemode, run.settlement_date),
      ]);
      return { run, lines, payout, exceptions };
    },
  };
}

export type FinanceRunService = ReturnType<typeof createFinanceRunService>;
