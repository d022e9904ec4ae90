import { proxyActivities } from '@temporalio/workflow';
import type { ClaimActivities, ClaimSyncResult } from '../activities/claims';

const { syncClaimPayments } = proxyActivities<ClaimActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/**
 * Claim payments sync (decision 0062): reads the bank's claim transactions and applies each once.
 * Safe to run twice over the same transactions.
 */
export async function claimPaymentsSync(input: { lookbackDays?: number } = {}): Promise<ClaimSyncResult> {
  return syncClaimPayments(input.lookbackDays !== undefined ? { lookbackDays: input.lookbackDays } : {});
}
