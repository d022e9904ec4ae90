import { proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { ClaimActivities } from '../activities/claims';

const { collectClaimBatch, submitClaimBatch, recordClaimBatch } = proxyActivities<ClaimActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

export interface ClaimBatchInput {
  livemode: boolean;
  /** The batch's business identity; unset: the workflow id (scheduled runs). */
  batch?: string;
  /** Claims per batch (the bank's batch endpoint takes thousands). */
  limit?: number;
  /** Wait between polls of the bank's batch result, in ms. */
  pollMs?: number;
}

export interface ClaimBatchTotals {
  claims: number;
  issued: number;
  failed: number;
  polls: number;
}

/**
 * `claim-batch/{env}/{batch}`: takes the pending claims into a batch, creates them through the bank's
 * batch endpoint, polls the result and records each claim key or the bank's error (decision 0061).
 * Run again with the same batch, it sends only the claims not yet issued, under the same idempotency.
 */
export async function claimBatch(input: ClaimBatchInput): Promise<ClaimBatchTotals> {
  const batchKey = input.batch ?? workflowInfo().workflowId;
  const claimIds = await collectClaimBatch({
    livemode: input.livemode,
    batchKey,
    limit: input.limit ?? 5000,
  });
  const totals: ClaimBatchTotals = { claims: claimIds.length, issued: 0, failed: 0, polls: 0 };
  if (claimIds.length === 0) return totals;
  const batchId = await submitClaimBatch({ livemode: input.livemode, batchKey, claimIds });
  for (;;) {
    totals.polls++;
    const r = await recordClaimBatch({ batchId, livemode: input.livemode });
    if (r.done) {
      totals.issued = r.issued;
      totals.failed = r.failed;
      return totals;
    }
    await sleep(input.pollMs ?? 1000);
  }
}
