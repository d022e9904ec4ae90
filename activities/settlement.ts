import { heartbeat } from '@temporalio/activity';
import type { Payouts } from '../services/settlement/payouts';
import type { SettlementDayPlan, SettlementRunSteps } from '../services/settlement/settlement-run-steps';
import type {
  RunKey,
  SettlementRunRef,
  SettlementRunStatus,
} from '../services/settlement/settlement-run-ref';
import { callAdapter } from './adapter-failure';

export type { RunKey, SettlementDayPlan, SettlementRunRef };

export interface SettlementActivityDeps {
  /** Planning, gathering, reading and failing runs (services/settlement/settlement-run-steps.ts). */
  settlementRuns: SettlementRunSteps;
  /** Writing a run's payout and handing it to the bank (services/settlement/payouts.ts). */
  payouts: Payouts;
}

/**
 * The settlement day's and settlement run's steps (decision 0093). A run that is gone or in the
 * wrong state, or the bank's final refusal of a payout, fails the step for good (decision 0095).
 */
export function createSettlementActivities(deps: SettlementActivityDeps) {
  return {
    /** The banking day a settlement day settles and the merchants to gather. */
    async planSettlementDay(input: {
      livemode: boolean;
      cutoff: string;
      settlementDate?: string;
      scheduled?: boolean;
    }): Promise<SettlementDayPlan> {
      return deps.settlementRuns.planDay(input);
    },

    /** Gathers the day's run of each merchant, heartbeating after each; the runs that exist. */
    async gatherSettlementRuns(input: {
      livemode: boolean;
      settlementDate: string;
      cutoff: string;
      merchantIds: string[];
    }): Promise<SettlementRunRef[]> {
      return deps.settlementRuns.gatherRuns(input, (merchantId) => heartbeat(merchantId));
    },

    /** One merchant's run for the day: gathered now, or the one an earlier gather opened. */
    async gatherSettlementRun(input: {
      livemode: boolean;
      merchantId: string;
      settlementDate: string;
      cutoff: string;
    }): Promise<SettlementRunRef | null> {
      return deps.settlementRuns.gatherRun(input);
    },

    /** The run's status in the database, the source of truth signals only hint at. */
    async settlementRunStatus(key: RunKey): Promise<SettlementRunStatus> {
      return callAdapter(() => deps.settlementRuns.status(key));
    },

    /**
     * Writes the approved run's payout once, or fails the run when it has nowhere to go; a payout
     * account whose change is held answers `payout_held` and writes nothing (decision 0228).
     */
    async writePayout(key: RunKey): Promise<{ payoutId: string } | { status: 'failed' | 'payout_held' }> {
      return callAdapter(() => deps.payouts.write(key));
    },

    /** Fails an approved or submitted run (and its unsent payout) after the bank refused the payout. */
    async failSettlementRun(input: RunKey & { reason: string }): Promise<SettlementRunStatus> {
      return callAdapter(() => deps.settlementRuns.fail(input));
    },

    /** Hands the payout to the bank and marks payout and run submitted. */
    async submitPayout(key: RunKey & { payoutId: string }): Promise<SettlementRunStatus> {
      return callAdapter(() => deps.payouts.submit(key));
    },
  };
}

export type SettlementActivities = ReturnType<typeof createSettlementActivities>;
