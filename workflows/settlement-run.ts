import {
  allHandlersFinished,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { SettlementActivities } from '../activities/settlement';

// Database steps: short, retried until the database answers.
const db = proxyActivities<SettlementActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});
// The upload to the bank: idempotent by payout id (file name), so retrying is safe; a final answer
// from the transport (host key, authentication) stops it.
const bank = proxyActivities<SettlementActivities>({
  startToCloseTimeout: '5 minutes',
  retry: {
    initialInterval: '5 seconds',
    maximumInterval: '10 minutes',
    nonRetryableErrorTypes: ['SettlementRunMissing', 'SettlementRunState'],
  },
});

export interface SettlementRunInput {
  livemode: boolean;
  merchantId: string;
  /** The Iceland banking day settled, YYYY-MM-DD. */
  settlementDate: string;
  /** ISO 8601: payments captured up to here are settled. */
  cutoff: string;
  /** How often the database is re-read while waiting, in case a signal was lost (default 1 hour). */
  recheckMs?: number;
}

export interface SettlementRunResult {
  runId: string | null;
  status: string;
}

/** An operator (or the auto-approve policy) approved the run in the database: go on. */
export const approveSignal = defineSignal('approve');
/** Bank sync matched the payout's debit and marked payout and run paid: finish. */
export const payoutConfirmedSignal = defineSignal('payoutConfirmed');
export const settlementRunStatusQuery = defineQuery<string>('settlementRunStatus');

/**
 * `settlement/{env}/{merchant}/{date}`: gathers the merchant's unsettled money into a run, waits for
 * approval, writes and submits the payout, and waits for the bank to confirm it (decision 0093).
 * PostgreSQL holds the run's state; signals only wake the workflow, which re-reads the status, and
 * it re-reads hourly anyway. Started again with the same input it resumes from that state.
 */
export async function settlementRun(input: SettlementRunInput): Promise<SettlementRunResult> {
  let woken = false;
  let status = 'gathering';
  setHandler(approveSignal, () => void (woken = true));
  setHandler(payoutConfirmedSignal, () => void (woken = true));
  setHandler(settlementRunStatusQuery, () => status);

  const run = await db.gatherSettlementRun({
    livemode: input.livemode,
    merchantId: input.merchantId,
    settlementDate: input.settlementDate,
    cutoff: input.cutoff,
  });
  if (!run) return { runId: null, status: 'none' };
  const key = { runId: run.runId, merchantId: input.merchantId, livemode: input.livemode };
  status = run.status;

  for (;;) {
    if (status === 'failed' && woken) {
      // Retried by an operator while this run was failing it: the signal came here, not to a new run.
      woken = false;
      status = await db.settlementRunStatus(key);
      continue;
    }
    if (status === 'paid' || status === 'failed') return { runId: run.runId, status };
    if (status === 'approved') {
      const written = await db.writePayout(key);
      status =
        'status' in written
          ? written.status
          : await bank.submitPayout({ ...key, payoutId: written.payoutId });
      continue;
    }
    // pending_review waits for approval, submitted for the bank's debit.
    await condition(() => woken, input.recheckMs ?? 3_600_000);
    woken = false;
    status = await db.settlementRunStatus(key);
    if (workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      return continueAsNew<typeof settlementRun>(input);
    }
  }
}
