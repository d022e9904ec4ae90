import {
  allHandlersFinished,
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { RunKey, SettlementActivities } from '../activities/settlement';
import {
  ADAPTER_REFUSALS,
  FailureType,
  adapterRefusalOf,
  approveSignal,
  payoutConfirmedSignal,
  settlementRunStatusQuery,
} from './contract';

// Database steps: short, retried until the database answers.
const db = proxyActivities<SettlementActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});
// The upload to the bank: idempotent by payout id (file name), so retrying is safe; a final answer
// from the bank (host key, authentication, a refused file) stops it and fails the run.
const bank = proxyActivities<SettlementActivities>({
  startToCloseTimeout: '5 minutes',
  retry: {
    initialInterval: '5 seconds',
    maximumInterval: '10 minutes',
    nonRetryableErrorTypes: [
      FailureType.SettlementRunMissing,
      FailureType.SettlementRunState,
      ...ADAPTER_REFUSALS,
    ],
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
      status = 'status' in written ? written.status : await submitPayout(key, written.payoutId);
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

/**
 * Submits the payout. The bank's final refusal (a wrong password or key, a host key that is not the
 * pinned one) fails the run with the bank's reason for an operator to mend and retry; anything else
 * the bank answers is retried by the activity's policy.
 */
async function submitPayout(key: RunKey, payoutId: string): Promise<string> {
  try {
    return await bank.submitPayout({ ...key, payoutId });
  } catch (err) {
    const refusal = adapterRefusalOf(err);
    if (!refusal) throw err;
    return db.failSettlementRun({ ...key, reason: `The bank refused the payout: ${refusal.message}` });
  }
}
