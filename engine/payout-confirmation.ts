import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { ConfirmedPayout } from '../db/bank-statement-matching';
import { payoutConfirmedSignal, settlementRunWorkflowId } from '../workflows/contract';

/**
 * Tells the run's settlement workflow that its payout is debited (decision 0090); a run whose
 * workflow is gone (or never ran here) is already recorded as paid.
 */
export async function signalPayoutConfirmed(client: Client, p: ConfirmedPayout): Promise<void> {
  const workflowId = settlementRunWorkflowId(p.livemode, p.merchantId, p.settlementDate);
  try {
    await client.workflow.getHandle(workflowId).signal(payoutConfirmedSignal, {
      payoutId: p.payoutId,
      settlementRunId: p.settlementRunId,
      bankEntryId: p.bankEntryId,
      amount: p.amount,
    });
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return;
    throw err;
  }
}
