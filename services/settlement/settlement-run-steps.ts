import type { Knex } from '../../db/knex';
import type { Logger } from '../../stack/logger';
import type { WorkerMetrics } from '../../stack/worker-metrics';
import { createSettlementRunRepository } from '../../db/settlement-runs';
import { isBankingDay, nextBankingDay } from '../../domain/banking-days';
import { createSettlementRunFailure } from './settlement-run-failure';
import {
  runMissing,
  scopeOf,
  toRunRef,
  type RunKey,
  type SettlementRunRef,
  type SettlementRunStatus,
} from './settlement-run-ref';

export interface SettlementDayPlan {
  /** Unset: nothing to do today (a scheduled run on a closed day). */
  settlementDate: string | null;
  merchantIds: string[];
}

export interface SettlementRunStepDeps {
  knex: Knex;
  log: Logger;
  /** The worker's Prometheus metrics; unset: nothing is counted (tests, benchmarks). */
  metrics?: WorkerMetrics | undefined;
  /** SETTLEMENT_AUTO_APPROVE_MAX_NET: runs with net at or under it are approved by policy; 0 = off. */
  autoApproveMaxNet?: number | undefined;
}

/**
 * The settlement day's and settlement run's steps up to the payout: plan the day, gather each
 * merchant's run (approved by policy when small enough), read a run's status, fail a run.
 */
export function createSettlementRunSteps(deps: SettlementRunStepDeps) {
  const runs = createSettlementRunRepository(deps.knex);
  const failRun = createSettlementRunFailure(deps);
  /** Counts a gathered run by the status it was gathered in (a re-gather of an open run counts again). */
  const counted = (ref: SettlementRunRef): SettlementRunRef => {
    deps.metrics?.settlementRuns.inc({ status: ref.status });
    return ref;
  };

  return {
    /**
     * The banking day a settlement day settles and the merchants to gather. On demand the date is
     * the given one or the next banking day; a scheduled run on a closed day does nothing, so the
     * weekend's money is gathered on Monday with Monday's cutoff.
     */
    async planDay(input: {
      livemode: boolean;
      cutoff: string;
      settlementDate?: string;
      scheduled?: boolean;
    }): Promise<SettlementDayPlan> {
      const today = input.cutoff.slice(0, 10); // Iceland keeps UTC all year
      if (input.scheduled && !isBankingDay(today)) return { settlementDate: null, merchantIds: [] };
      const settlementDate = input.settlementDate ?? nextBankingDay(today);
      const unsettled = await runs.merchantsWithUnsettled(input.livemode, new Date(input.cutoff));
      // Merchants whose run for the day exists already: their workflows are (re)started, harmlessly.
      const existing = (await runs.listByDate(input.livemode, settlementDate)).map((r) => r.merchant_id);
      return { settlementDate, merchantIds: [...new Set([...existing, ...unsettled])].sort() };
    },

    /**
     * Gathers the day's run of each merchant, each in its own transaction; the runs that exist.
     * `onMerchant` hears of each merchant done (the activity's heartbeat).
     */
    async gatherRuns(
      input: { livemode: boolean; settlementDate: string; cutoff: string; merchantIds: string[] },
      onMerchant: (merchantId: string) => void = () => undefined,
    ): Promise<SettlementRunRef[]> {
      const out: SettlementRunRef[] = [];
      for (const merchantId of input.merchantIds) {
        const run = await runs.gather({
          scope: { merchantId, livemode: input.livemode },
          settlementDate: input.settlementDate,
          cutoff: new Date(input.cutoff),
          autoApproveMaxNet: deps.autoApproveMaxNet ?? 0,
        });
        if (run) out.push(counted(toRunRef(run)));
        onMerchant(merchantId);
      }
      return out;
    },

    /** One merchant's run for the day: gathered now, or the one an earlier gather opened. */
    async gatherRun(input: {
      livemode: boolean;
      merchantId: string;
      settlementDate: string;
      cutoff: string;
    }): Promise<SettlementRunRef | null> {
      const run = await runs.gather({
        scope: scopeOf(input),
        settlementDate: input.settlementDate,
        cutoff: new Date(input.cutoff),
        autoApproveMaxNet: deps.autoApproveMaxNet ?? 0,
      });
      return run && counted(toRunRef(run));
    },

    /** The run's status in the database, the source of truth signals only hint at. */
    async status(key: RunKey): Promise<SettlementRunStatus> {
      const run = await runs.find(scopeOf(key), key.runId);
      if (!run) throw runMissing(`no settlement run ${key.runId}`);
      return run.status;
    },

    /** Fails an approved or submitted run (and its unsent payout), e.g. after the bank refused the payout. */
    async fail(input: RunKey & { reason: string }): Promise<SettlementRunStatus> {
      const { reason, ...key } = input;
      await failRun(key, reason);
      const run = await runs.find(scopeOf(key), key.runId);
      if (!run) throw runMissing(`no settlement run ${key.runId}`);
      return run.status;
    },
  };
}

export type SettlementRunSteps = ReturnType<typeof createSettlementRunSteps>;
