import type { WorkerMetrics } from '../stack/worker-metrics';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Knex } from '../db/knex';
import type { Logger } from '../stack/logger';
import type { BankConnection } from '../adapters/banks/bank-connections';
import type { BankFileTransport } from '../adapters/banks/bank-file-transport';
import type { RawFileStore } from '../adapters/object-store/raw-file-store';
import { TransportError } from '../adapters/banks/bank-file-transport';
import { createSftpTransport } from '../adapters/banks/sftp-transport';
import { CamtError } from '../adapters/banks/camt';
import { createBankFileRepository, type BankFileStatus, type BankScope } from '../db/bank-files';
import { recordBankException } from '../db/bank-exceptions';
import { createBankMatchingRepository } from '../db/bank-matching';
import { payoutsConfirmedBy } from '../db/bank-statement-matching';
import { DuplicateStatementError, ingestCamtFile } from '../services/bank-sync/ingest-camt-file';
import {
  isCollectionAccount,
  matchBankFile,
  type ConfirmedPayout,
} from '../services/bank-sync/match-bank-file';
import { FailureType, payoutConfirmedSignal, settlementRunWorkflowId } from '../workflows/contract';
import { toActivityFailure } from './adapter-failure';

export interface BankSyncDeps {
  knex: Knex;
  /** The worker's Prometheus metrics; unset: nothing is counted (tests, benchmarks). */
  metrics?: WorkerMetrics;
  client: Client;
  log: Logger;
  bankConnections: BankConnection[];
  /** Where raw files are kept, by their sha256, for every worker to read (decision 0145). */
  rawFiles: RawFileStore;
  /** A local folder for a download in progress; the system's temporary folder by default. */
  scratchDir?: string;
  /** Opens the connection's file transport; the SFTP client unless a test or bench says otherwise. */
  openTransport?: (connection: BankConnection) => BankFileTransport;
  /** Parser worker threads per file (BANK_SYNC_PARSE_WORKERS; 0: parse on the activity's thread). */
  parseWorkers?: number;
  /** Wakes notification channels after a file's events committed; unset, the webhook relay finds them. */
  wakeChannels?: (ids: string[]) => Promise<void>;
}

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

/**
 * Notifications before statements, then by name: a camt.053 lump sum is matched against the
 * camt.054 of the same day, so that should be stored first.
 */
export function processingOrder(names: string[]): string[] {
  const rank = (n: string) => (/camt\.?054/i.test(n) ? 0 : 1);
  return [...names].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

export function createBankSyncActivities(deps: BankSyncDeps) {
  const connectionOf = (id: string): BankConnection => {
    const c = deps.bankConnections.find((x) => x.id === id);
    if (!c)
      throw ApplicationFailure.nonRetryable(
        `no bank connection ${id} is configured`,
        FailureType.NoBankConnection,
      );
    return c;
  };
  const withTransport = async <T>(
    c: BankConnection,
    work: (t: BankFileTransport) => Promise<T>,
  ): Promise<T> => {
    const t = (deps.openTransport ?? ((x: BankConnection) => createSftpTransport(x.sftp)))(c);
    try {
      return await work(t);
    } catch (err) {
      // The bank's final answers (a wrong login, a file refused) stop the activity's retries.
      throw toActivityFailure(err);
    } finally {
      await t.close().catch(() => undefined);
    }
  };
  const heartbeat = (details: unknown) => {
    try {
      Context.current().heartbeat(details);
    } catch {
      // Outside an activity (bench, direct calls): nothing to report to.
    }
  };

  return {
    /** The complete files waiting in the connection's inbox, in the order they should be processed. */
    async listBankInbox(input: { connection: string }): Promise<string[]> {
      const c = connectionOf(input.connection);
      const files = await withTransport(c, (t) => t.listInbox());
      return processingOrder(files.map((f) => f.name));
    },

    /**
     * Receives one inbox file: stores the raw bytes as {sha256}, records the file once, then parses,
     * stores and matches it in one transaction, archives it on the server and tells settlement about
     * confirmed payouts. Safe to run again at any point: a file already finished is only archived
     * (and its payouts told again, which the settlement workflow ignores when it knows them).
     */
    async syncBankFile(input: { connection: string; name: string }): Promise<BankFileOutcome> {
      const c = connectionOf(input.connection);
      const scope: BankScope = { livemode: c.livemode, connection: c.id };
      const files = createBankFileRepository(deps.knex);
      return withTransport(c, async (transport) => {
        const scratch = await mkdtemp(join(deps.scratchDir ?? tmpdir(), 'skil-bank-file-'));
        let downloaded;
        const downloadStarted = Date.now();
        try {
          downloaded = await transport.download(input.name, join(scratch, 'incoming'));
          // Kept under its hash before anything is parsed; the same bytes again are kept once.
          await deps.rawFiles.put(downloaded.sha256, join(scratch, 'incoming'));
        } finally {
          await rm(scratch, { recursive: true, force: true });
        }
        const downloadMs = Date.now() - downloadStarted;
        const { row, created } = await files.receive(scope, {
          name: input.name,
          sha256: downloaded.sha256,
          size: downloaded.bytes,
          storagePath: downloaded.sha256,
        });
        const outcome: BankFileOutcome = {
          name: input.name,
          fileId: row.id,
          status: row.status,
          firstTime: created,
          entries: row.entry_count,
          details: 0,
          claimPayments: 0,
          lumpSums: 0,
          deposits: 0,
          payouts: 0,
          exceptions: 0,
          ...(row.quarantine_reason !== null && { reason: row.quarantine_reason }),
        };
        let confirmed: ConfirmedPayout[] = [];
        let wake: string[] = [];
        if (row.status === 'received') {
          // A big file spends minutes in one entry's parse or one matching statement: beat on a
          // timer, not per entry, so the heartbeat timeout only ever notices a lost worker.
          const beating = setInterval(() => heartbeat({ file: input.name }), 10_000);
          try {
            const done = await processStoredFile(
              deps,
              c,
              row.id,
              () => deps.rawFiles.open(row.storage_path),
              (entries) => heartbeat({ file: input.name, entries }),
              (outcome.timingsMs = { download: downloadMs }),
            );
            Object.assign(outcome, done.outcome);
            confirmed = done.confirmed;
            wake = done.wake;
          } finally {
            clearInterval(beating);
          }
        } else if (row.status === 'processed') {
          confirmed = await payoutsConfirmedBy(deps.knex, c.livemode, row.id);
        }
        await archive(transport, input.name);
        await files.markArchived(scope, row.id);
        for (const p of confirmed) await tellSettlement(deps, p);
        if (wake.length > 0) await deps.wakeChannels?.(wake);
        if (outcome.firstTime) {
          deps.metrics?.bankFiles.inc({ status: outcome.status });
          deps.metrics?.bankFileEntries.inc(outcome.entries);
        }
        deps.log.info({ file: input.name, outcome }, 'bank file synced');
        return outcome;
      });
    },
  };
}

export type BankSyncActivities = ReturnType<typeof createBankSyncActivities>;

/**
 * Parses, stores and matches a stored file in one transaction, so a failure half-way leaves nothing
 * behind and a retry starts clean. A file the parser refuses is quarantined with the parser's code;
 * a statement already received from another file makes the whole file a duplicate.
 */
export async function processStoredFile(
  deps: Pick<BankSyncDeps, 'knex' | 'parseWorkers'>,
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

async function archive(transport: BankFileTransport, name: string): Promise<void> {
  try {
    await transport.archive(name);
  } catch (err) {
    // Archived by an earlier attempt that failed after the rename.
    if (err instanceof TransportError && err.kind === 'not_found') return;
    throw err;
  }
}

/**
 * Tells the run's settlement workflow that its payout is debited (decision 0090); a run whose
 * workflow is gone (or never ran here) is already recorded as paid.
 */
async function tellSettlement(deps: Pick<BankSyncDeps, 'client' | 'log'>, p: ConfirmedPayout): Promise<void> {
  const workflowId = settlementRunWorkflowId(p.livemode, p.merchantId, p.settlementDate);
  try {
    await deps.client.workflow.getHandle(workflowId).signal(payoutConfirmedSignal, {
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
