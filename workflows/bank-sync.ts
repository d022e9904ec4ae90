import { proxyActivities } from '@temporalio/workflow';
import type { BankFileOutcome, BankSyncActivities } from '../activities/bank-sync';
import type { ClaimActivities } from '../activities/claims';
import { ADAPTER_REFUSALS, FailureType, applicationFailureOf } from './contract';

const { listBankInbox } = proxyActivities<BankSyncActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 5 },
});

// A million-entry file takes minutes: the heartbeat, not the start-to-close timeout, notices a lost worker.
const { syncBankFile } = proxyActivities<BankSyncActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '2 minutes',
  retry: {
    initialInterval: '2 seconds',
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: [FailureType.NoBankConnection, ...ADAPTER_REFUSALS],
  },
});

const { syncClaimPayments } = proxyActivities<ClaimActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 5 },
});

export interface BankSyncInput {
  /** The bank connection (BankConnection.id); the workflow id is `bank-sync/{connection}`. */
  connection: string;
}

export interface BankSyncResult {
  files: BankFileOutcome[];
}

/**
 * Bank sync (decision 0092): claim payments first, so the notifications' details find the
 * claim transactions they pay, then each complete inbox file in turn. Started every few minutes per
 * connection by a schedule (overlaps skipped) or on demand; each file is idempotent by its sha256.
 */
export async function bankSync(input: BankSyncInput): Promise<BankSyncResult> {
  try {
    await syncClaimPayments({});
  } catch (err) {
    // No claims service configured: there are no claim transactions to wait for.
    if (applicationFailureOf(err)?.type !== FailureType.NoBankConnection) throw err;
  }
  const names = await listBankInbox({ connection: input.connection });
  const files: BankFileOutcome[] = [];
  // One at a time, in order: a camt.053 lump sum is matched against the camt.054 stored before it.
  for (const name of names) files.push(await syncBankFile({ connection: input.connection, name }));
  return { files };
}
