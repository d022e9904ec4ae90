import { ApplicationFailure, Context } from '@temporalio/activity';
import {
  NoBankConnectionError,
  type BankFileOutcome,
  type BankSyncService,
} from '../services/bank-sync/bank-sync-service';
import { FailureType } from '../workflows/contract';
import { toActivityFailure } from './adapter-failure';

export type { BankFileOutcome } from '../services/bank-sync/bank-sync-service';

export interface BankSyncActivityDeps {
  /** Built by the worker (worker/create-worker.ts) from its knex, bank connections and raw file store. */
  bankSync: BankSyncService;
}

/**
 * A connection this worker does not know is final (the workflow lists NoBankConnection as
 * non-retryable); the bank's final answers (a wrong login, a file refused) stop the retries too.
 */
function failureOf(err: unknown): unknown {
  if (err instanceof NoBankConnectionError)
    return ApplicationFailure.nonRetryable(err.message, FailureType.NoBankConnection);
  return toActivityFailure(err);
}

function heartbeat(details: unknown): void {
  try {
    Context.current().heartbeat(details);
  } catch {
    // Outside an activity (bench, direct calls): nothing to report to.
  }
}

export function createBankSyncActivities(deps: BankSyncActivityDeps) {
  return {
    /** The complete files waiting in the connection's inbox, in the order they should be processed. */
    async listBankInbox(input: { connection: string }): Promise<string[]> {
      try {
        return await deps.bankSync.listInbox(input.connection);
      } catch (err) {
        throw failureOf(err);
      }
    },

    /**
     * Receives one inbox file: stored, parsed, matched and archived by the bank sync service. Safe to
     * run again at any point; a big file heartbeats while it is processed.
     */
    async syncBankFile(input: { connection: string; name: string }): Promise<BankFileOutcome> {
      try {
        return await deps.bankSync.syncFile(input, heartbeat);
      } catch (err) {
        throw failureOf(err);
      }
    },
  };
}

export type BankSyncActivities = ReturnType<typeof createBankSyncActivities>;
