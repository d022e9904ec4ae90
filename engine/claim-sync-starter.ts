import type { Client } from '@temporalio/client';
import { WorkflowType, claimPaymentsSyncNowWorkflowId, type Workflows } from '../workflows/contract';

/**
 * Runs the claim payments sync now (decision 0062), instead of waiting up to five minutes for its
 * schedule: for test helpers that pay a krafa and want its events at once. Safe to run beside the
 * scheduled sync: each bank transaction is applied once.
 */
export function createClaimSyncStarter(deps: { client: Client; taskQueue: string }) {
  return async (reason: string): Promise<void> => {
    await deps.client.workflow.start<Workflows['claimPaymentsSync']>(WorkflowType.claimPaymentsSync, {
      workflowId: claimPaymentsSyncNowWorkflowId(reason),
      taskQueue: deps.taskQueue,
      args: [{}],
    });
  };
}
