import { ParentClosePolicy, WorkflowIdReusePolicy, proxyActivities, startChild } from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { SettlementActivities, SettlementRunRef } from '../activities/settlement';
import { WorkflowType, settlementRunWorkflowId, type Workflows } from './contract';

const { planSettlementDay, gatherSettlementRuns } = proxyActivities<SettlementActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

export interface SettlementDayInput {
  livemode: boolean;
  /** The banking day to settle; unset: the next banking day from the cutoff's date. */
  settlementDate?: string;
  /** ISO 8601; unset: the time the workflow started. */
  cutoff?: string;
  /** Scheduled runs skip closed days; the money waits for the next banking day's run. */
  scheduled?: boolean;
}

export interface SettlementDayResult {
  settlementDate: string | null;
  cutoff: string;
  runs: SettlementRunRef[];
}

/**
 * `settlement-day/{env}/{task_queue}/{date}`: opens the day's runs for every merchant with unsettled money, set
 * based, then starts one `settlement/{env}/{merchant}/{date}` workflow per run to see it through
 * approval and payout. Runs already open for the day are returned as they are, and their workflow
 * is started only if none is running, so a second settlement day changes nothing.
 */
export async function settlementDay(input: SettlementDayInput): Promise<SettlementDayResult> {
  const cutoff = input.cutoff ?? new Date().toISOString(); // workflow time: deterministic on replay
  const plan = await planSettlementDay({
    livemode: input.livemode,
    cutoff,
    ...(input.settlementDate !== undefined && { settlementDate: input.settlementDate }),
    ...(input.scheduled !== undefined && { scheduled: input.scheduled }),
  });
  if (plan.settlementDate === null) return { settlementDate: null, cutoff, runs: [] };
  const settlementDate = plan.settlementDate;
  const runs: SettlementRunRef[] = [];
  // Pages of merchants keep each activity short and its history entry small.
  for (let i = 0; i < plan.merchantIds.length; i += 200) {
    runs.push(
      ...(await gatherSettlementRuns({
        livemode: input.livemode,
        settlementDate,
        cutoff,
        merchantIds: plan.merchantIds.slice(i, i + 200),
      })),
    );
  }
  for (const run of runs) {
    if (run.status === 'paid' || run.status === 'failed') continue;
    try {
      await startChild<Workflows['settlementRun']>(WorkflowType.settlementRun, {
        workflowId: settlementRunWorkflowId(input.livemode, run.merchantId, settlementDate),
        args: [{ livemode: input.livemode, merchantId: run.merchantId, settlementDate, cutoff }],
        // The run outlives the day that opened it: approval and the bank's debit take days.
        parentClosePolicy: ParentClosePolicy.ABANDON,
        // A finished run workflow may be started again: it resumes from the database and ends.
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      });
    } catch (err) {
      // Already running: that workflow owns the run.
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  }
  return { settlementDate, cutoff, runs };
}
