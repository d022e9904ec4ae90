import type { ClaimBatchService, ClaimBatchResult } from '../services/claims/claim-batches';
import type { ClaimPaymentsSync, ClaimSyncResult } from '../services/claims/claim-payments-sync';
import { callAdapter } from './adapter-failure';

export type { ClaimBatchResult, ClaimSyncResult };

export interface ClaimActivityDeps {
  /** Issuing claims to the bank in batches (services/claims/claim-batches.ts). */
  claimBatches: ClaimBatchService;
  /** Reading paid, reversed and cancelled claims back from the bank. */
  claimPaymentsSync: ClaimPaymentsSync;
}

/**
 * The claim batch and claim payments sync workflows' steps. A bank's final refusal, or no bank
 * for the environment, fails the step for good (decision 0095); anything else is retried.
 */
export function createClaimActivities(deps: ClaimActivityDeps) {
  return {
    /** Takes pending claims into a batch; a retried batch gets the same claims back. */
    async collectClaimBatch(input: {
      livemode: boolean;
      batchKey: string;
      limit: number;
    }): Promise<string[]> {
      return deps.claimBatches.collect(input);
    },

    /** Sends the batch's claims to the bank's batch endpoint; the bank's batch id. */
    async submitClaimBatch(input: {
      livemode: boolean;
      batchKey: string;
      claimIds: string[];
    }): Promise<string> {
      return callAdapter(() => deps.claimBatches.submit(input));
    },

    /** Once the bank has answered for every claim of the batch, records each claim issued or refused. */
    async recordClaimBatch(input: { batchId: string; livemode?: boolean }): Promise<ClaimBatchResult> {
      return callAdapter(() => deps.claimBatches.record(input));
    },

    /** Applies the bank's claim transactions of a window around today, each once. */
    async syncClaimPayments(input: { today?: string; lookbackDays?: number } = {}): Promise<ClaimSyncResult> {
      return callAdapter(() => deps.claimPaymentsSync.sync(input));
    },
  };
}

export type ClaimActivities = ReturnType<typeof createClaimActivities>;
