import { Context } from '@temporalio/activity';
import type { BankFileOutcome, BankSyncService } from '../services/bank-sync/bank-sync-service';
import { toActivityFailure } from './adapter-failure';

export type { BankFileOutcome } from '../services/bank-sync/bank-sync-service';

export interface BankSyncActivityDeps {
  /** Built by the worker (worker/create-worker.ts) from its knex, bank connections and raw file store. */
  bankSync: BankSyncService;
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
        // A connection this worker does not know (a StepFailure) and the bank's final answers stop the retries.
        throw toActivityFailure(err);
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
        throw toActivityFailure(err);
      }
    },
  };
}

export type BankSyncActivities = ReturnType<typeof createBankSyncActivities>;
