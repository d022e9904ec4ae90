import type { Readable } from 'node:stream';
import type { Knex } from '../../db/knex';
import type { BankConnection } from '../../adapters/banks/bank-connections';
import { CamtError } from '../../adapters/banks/camt';
import { createBankFileRepository, type BankScope } from '../../db/bank-files';
import { recordBankException } from '../../db/bank-exceptions';
import { createBankMatchingRepository } from '../../db/bank-matching';
import type { BankFileOutcome } from './bank-file-outcome';
import { DuplicateStatementError, ingestCamtFile } from './ingest-camt-file';
import { isCollectionAccount, matchBankFile, type ConfirmedPayout } from './match-bank-file';

/**
 * Parses, stores and matches a stored file in one transaction, so a failure half-way leaves nothing
 * behind and a retry starts clean. A file the parser refuses is quarantined with the parser's code;
 * a statement already received from another file makes the whole file a duplicate.
 */
export async function processStoredFile(
  deps: { knex: Knex; parseWorkers?: number },
  c: BankConnection,
  fileId: string,
  /** Opens the file's stored bytes (each attempt reads them afresh). */
  openBytes: () => Readable,
  onProgress: (entries: number) => void = () => undefined,
  /** Milliseconds per step (ingest, and each matching step), for the benchmark. */
  timings: Record<string, number> = {},
): Promise<{ outcome: Partial<BankFileOutcome>; confirmed: ConfirmedPayout[]; wake: string[] }> {
  const scope: BankScope = { livemode: c.livemode, connection: c.id };
  const files = createBankFileRepository(deps.knex);
  try {
    const started = Date.now();
    let earlyClaimPayments = 0;
    const processed = await files.processReceived(scope, fileId, async (trx) => {
      const ingested = await ingestCamtFile(trx, { id: fileId, livemode: c.livemode }, openBytes(), {
        onProgress,
        ...(deps.parseWorkers !== undefined && { workers: deps.parseWorkers }),
        // Claim payments are matched batch by batch while the parser reads on.
        afterBatch: async (b) => {
          if (b.messageType !== 'camt.054' || !isCollectionAccount(b.account, c.collectionAccount.account))
            return;
          earlyClaimPayments += await createBankMatchingRepository(trx).matchClaimPaymentsOfBatch({
            livemode: c.livemode,
            ...b,
          });
        },
      });
      timings.ingest = Date.now() - started;
      const matched = await matchBankFile(
        trx,
        {
          fileId,
          livemode: c.livemode,
          collectionAccount: c.collectionAccount.account.replace(/\D/g, ''),
        },
        timings,
      );
      await files.markProcessed(
        scope,
        fileId,
        {
          messageType: ingested.message.type,
          messageVersion: ingested.message.version,
          messageId: ingested.message.GrpHdr.MsgId,
          entryCount: ingested.entries,
        },
        trx,
      );
      return {
        outcome: {
          status: 'processed' as const,
          entries: ingested.entries,
          details: ingested.details,
          claimPayments: earlyClaimPayments + matched.claimPayments,
          lumpSums: matched.lumpSums,
          deposits: matched.deposits,
          payouts: matched.payouts.length,
          exceptions: matched.exceptions,
        },
        confirmed: matched.payouts,
        wake: matched.wake,
      };
    });
    return processed ?? { outcome: {}, confirmed: [], wake: [] };
  } catch (err) {
    const refused = refusalOf(err);
    if (refused === null) throw err; // transient (database, disk): the activity is retried
    await deps.knex.transaction(async (trx) => {
      await files.markRefused(scope, fileId, refused.status, refused.reason, trx);
      if (refused.status === 'duplicate') {
        await recordBankException(trx, {
          livemode: c.livemode,
          bankFileId: fileId,
          kind: 'duplicate',
          message: refused.reason,
        });
      }
    });
    return { outcome: { status: refused.status, reason: refused.reason }, confirmed: [], wake: [] };
  }
}

/** Whether an error is final for the file's bytes, and how the file is then recorded. */
function refusalOf(err: unknown): { status: 'quarantined' | 'duplicate'; reason: string } | null {
  if (err instanceof CamtError) return { status: 'quarantined', reason: `${err.code}: ${err.message}` };
  if (err instanceof DuplicateStatementError)
    return { status: 'duplicate', reason: `duplicate: ${err.message}` };
  if (err instanceof RangeError) return { status: 'quarantined', reason: `invalid_amount: ${err.message}` };
  return null;
}
