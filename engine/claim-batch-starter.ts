import type { Client } from '@temporalio/client';
import type { Logger } from '../stack/logger';
import { WorkflowType, claimBatchWorkflowId, type Workflows } from '../workflows/contract';

/**
 * Starts the claim batch that issues a krafa chosen at checkout at once (decision 0063). Should the
 * start fail, the scheduled batch issues the claims within a minute, so a failure is only logged.
 */
export function createClaimBatchStarter(deps: { client: Client; taskQueue: string; log: Logger }) {
  return async (livemode: boolean, batch: string): Promise<void> => {
    try {
      await deps.client.workflow.start<Workflows['claimBatch']>(WorkflowType.claimBatch, {
        workflowId: claimBatchWorkflowId(livemode, batch),
        taskQueue: deps.taskQueue,
        args: [{ livemode, batch }],
      });
    } catch (err) {
      deps.log.warn({ err, batch }, 'claim batch not started; the scheduled batch issues the claims');
    }
  };
}
