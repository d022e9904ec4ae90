import { proxyActivities } from '@temporalio/workflow';
import type { ClaimActivities, ClaimSyncResult } from '../activities/claims';

const { syncClaimPayments } = proxyActivities<ClaimActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/**
 * Claim payments sync (decision 0062): reads the bank's claim transactions (payments and reversals)
 * and applies each once, then marks claims cancelled at the bank. Safe to run twice.
 */
export async function claimPaymentsSync(input: { lookbackDays?: number } = {}): Promise<ClaimSyncResult> {
  return syncClaimPayments(input.lookbackDays !== undefined ? { lookbackDays: input.lookbackDays } : {});
}
