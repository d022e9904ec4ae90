import type { BankFileStatus } from '../../db/bank-files';

export type { BankFileStatus };

/** What one sync of one inbox file did: the bank sync activity's result, recorded in workflow history. */
export interface BankFileOutcome {
  name: string;
  fileId: string;
  status: BankFileStatus;
  /** False when these bytes had been received before: nothing new was stored. */
  firstTime: boolean;
  entries: number;
  details: number;
  claimPayments: number;
  lumpSums: number;
  deposits: number;
  payouts: number;
  exceptions: number;
  reason?: string;
  /** Milliseconds per step of this attempt (ingest, matching steps). */
  timingsMs?: Record<string, number>;
}
