import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BankConnection } from '../../adapters/banks/bank-connections';
import { TransportError, type BankFileTransport } from '../../adapters/banks/bank-file-transport';
import { createBankFileRepository, type BankScope } from '../../db/bank-files';
import { payoutsConfirmedBy } from '../../db/bank-statement-matching';
import { signalPayoutConfirmed } from '../../engine/payout-confirmation';
import type { BankFileOutcome } from './bank-file-outcome';
import type { BankSyncServiceDeps, Heartbeat } from './bank-sync-service';
import type { ConfirmedPayout } from './match-bank-file';
import { processStoredFile } from './process-stored-file';

/**
 * Receives one inbox file over an open transport: stores the raw bytes as {sha256}, records the file
 * once, then parses, stores and matches it in one transaction, archives it on the server and tells
 * settlement about confirmed payouts. Safe to run again at any point: a file already finished is
 * only archived (and its payouts told again, which the settlement workflow ignores when it knows them).
 */
export async function syncBankFile(
  deps: BankSyncServiceDeps,
  c: BankConnection,
  transport: BankFileTransport,
  name: string,
  heartbeat: Heartbeat,
): Promise<BankFileOutcome> {
  const scope: BankScope = { livemode: c.livemode, connection: c.id };
  const files = createBankFileRepository(deps.knex);
  const scratch = await mkdtemp(join(deps.scratchDir ?? tmpdir(), 'skil-bank-file-'));
  let downloaded;
  const downloadStarted = Date.now();
  try {
    downloaded = await transport.download(name, join(scratch, 'incoming'));
    // Kept under its hash before anything is parsed; the same bytes again are kept once.
    await deps.rawFiles.put(downloaded.sha256, join(scratch, 'incoming'));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  const downloadMs = Date.now() - downloadStarted;
  const { row, created } = await files.receive(scope, {
    name,
    sha256: downloaded.sha256,
    size: downloaded.bytes,
    storagePath: downloaded.sha256,
  });
  const outcome: BankFileOutcome = {
    name,
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
    const beating = setInterval(() => heartbeat({ file: name }), 10_000);
    try {
      const done = await processStoredFile(
        deps,
        c,
        row.id,
        () => deps.rawFiles.open(row.storage_path),
        (entries) => heartbeat({ file: name, entries }),
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
  await archive(transport, name);
  await files.markArchived(scope, row.id);
  for (const p of confirmed) await signalPayoutConfirmed(deps.client, p);
  if (wake.length > 0) await deps.wakeChannels?.(wake);
  if (outcome.firstTime) {
    deps.metrics?.bankFiles.inc({ status: outcome.status });
    deps.metrics?.bankFileEntries.inc(outcome.entries);
  }
  deps.log.info({ file: name, outcome }, 'bank file synced');
  return outcome;
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
