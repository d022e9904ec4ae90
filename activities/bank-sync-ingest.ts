import type { Knex } from '../db/knex';
import type { CamtEntry, CamtMessage, CamtStatement, CamtTxDtls } from '../bank-adapters/camt';
import { parseCamt } from '../bank-adapters/camt';
import {
  completeBankStatement,
  insertBankEntries,
  insertBankStatement,
  type BankEntryDetail,
  type NewBankEntry,
} from '../db/bank-entries';

/** The same statement (account, id, sequence) is already stored from another file. */
export class DuplicateStatementError extends Error {
  override readonly name = 'DuplicateStatementError';
  constructor(
    readonly statementId: string,
    readonly sequenceNumber: string,
    readonly account: string,
  ) {
    super(
      `statement ${statementId} (sequence ${sequenceNumber || '-'}, account ${account}) was already received`,
    );
  }
}

export interface IngestResult {
  message: CamtMessage;
  statements: number;
  entries: number;
  details: number;
}

export interface IngestOptions {
  /** Called every few thousand entries (the activity heartbeats from it). */
  onProgress?: (entries: number) => void;
  /** Parser worker threads (see ParseCamtOptions.workers). */
  workers?: number;
}

// A batch is flushed at this many entries or detail rows, whichever comes first: large enough that
// round trips do not matter, small enough that a lump sum with many details stays in bounds.
const BATCH_ENTRIES = 2000;
const BATCH_DETAILS = 20_000;

/**
 * Streams a camt file into bank_statements and bank_entries inside `trx`. The caller owns the
 * transaction: any error (a CamtError from the parser, DuplicateStatementError) must roll it back,
 * since a file is only good once the parse completes. One insert is kept in flight while the
 * parser reads on, so database and parsing overlap.
 */
export async function ingestCamtFile(
  trx: Knex.Transaction,
  file: { id: string; livemode: boolean },
  source: AsyncIterable<Buffer | string>,
  opts: IngestOptions = {},
): Promise<IngestResult> {
  let message: CamtMessage | undefined;
  let statement: { id: number; bankFileId: string; livemode: boolean } | undefined;
  let batch: NewBankEntry[] = [];
  let batchDetails = 0;
  let inFlight: Promise<void> = Promise.resolve();
  let statements = 0;
  let entries = 0;
  let details = 0;

  const flush = async (): Promise<void> => {
    await inFlight;
    if (batch.length === 0 || statement === undefined) return;
    const rows = batch;
    batch = [];
    batchDetails = 0;
    inFlight = insertBankEntries(trx, statement, rows);
    // Awaited at the next flush; until then a failure must not be an unhandled rejection.
    inFlight.catch(() => undefined);
  };

  try {
    for await (const event of parseCamt(
      source,
      opts.workers !== undefined ? { workers: opts.workers } : {},
    )) {
      if (event.kind === 'message') {
        message = event.message;
      } else if (event.kind === 'statement') {
        await flush();
        statement = await openStatement(trx, file, message!, event.statement);
        statements++;
      } else if (event.kind === 'entry') {
        const row = toEntryRow(event.entry);
        batch.push(row);
        batchDetails += row.details.length;
        entries++;
        details += row.details.length;
        if (batch.length >= BATCH_ENTRIES || batchDetails >= BATCH_DETAILS) await flush();
        if (entries % 5000 === 0) opts.onProgress?.(entries);
      } else {
        await flush();
        await inFlight;
        const t = event.totals;
        await completeBankStatement(trx, statement!.id, {
          entryCount: t.entries,
          credits: safe(t.booked.credits),
          debits: safe(t.booked.debits),
        });
      }
    }
    await flush();
    await inFlight;
  } finally {
    // Never leave a query running on the transaction after an error.
    await inFlight.catch(() => undefined);
  }
  if (message === undefined) throw new Error('the parser finished without a message header');
  return { message, statements, entries, details };
}

async function openStatement(
  trx: Knex.Transaction,
  file: { id: string; livemode: boolean },
  message: CamtMessage,
  s: CamtStatement,
): Promise<{ id: number; bankFileId: string; livemode: boolean }> {
  const account = s.Acct.IBAN ?? s.Acct.Othr ?? '';
  const sequenceNumber = s.ElctrncSeqNb ?? s.LglSeqNb ?? '';
  const balance = (codes: string[]): number | null => {
    const b = s.Bal.find((x) => codes.includes(x.Tp));
    if (b === undefined) return null;
    return safe(b.CdtDbtInd === 'DBIT' ? -b.Amt.minor : b.Amt.minor);
  };
  const id = await insertBankStatement(trx, {
    bankFileId: file.id,
    livemode: file.livemode,
    messageType: message.type,
    statementId: s.Id,
    sequenceNumber,
    account,
    currency: s.Acct.Ccy ?? null,
    openingBalance: balance(['OPBD', 'PRCD']),
    closingBalance: balance(['CLBD']),
  });
  if (id === null) throw new DuplicateStatementError(s.Id, sequenceNumber, account);
  return { id, bankFileId: file.id, livemode: file.livemode };
}

function toEntryRow(entry: CamtEntry): NewBankEntry {
  const details = entry.NtryDtls.flatMap((d) => d.TxDtls).map((tx) => toDetail(tx, entry));
  const only = details.length === 1 ? details[0] : undefined;
  return {
    entryIndex: entry.index,
    status: entry.Sts,
    booked: entry.booked,
    credit: entry.CdtDbtInd === 'CRDT',
    reversal: entry.RvslInd,
    amount: safe(entry.Amt.minor),
    currency: entry.Amt.Ccy,
    bookingDate: entry.BookgDt?.Dt ?? entry.BookgDt?.DtTm ?? null,
    valueDate: entry.ValDt?.Dt ?? entry.ValDt?.DtTm ?? null,
    acctSvcrRef: entry.AcctSvcrRef ?? null,
    entryRef: entry.NtryRef ?? null,
    // A single-transaction entry carries its transaction's references at entry level, so a payout
    // debit is found by index; a batch keeps them per detail only.
    endToEndId: only?.refs.EndToEndId ?? null,
    reference: only?.reference ?? null,
    details,
  };
}

function toDetail(tx: CamtTxDtls, entry: CamtEntry): BankEntryDetail {
  const credit = (tx.CdtDbtInd ?? entry.CdtDbtInd) === 'CRDT';
  const refs: Record<string, string> = {};
  for (const [k, v] of Object.entries(tx.Refs)) if (typeof v === 'string') refs[k] = v;
  const reference =
    tx.RmtInf.Strd.find((s) => s.CdtrRefInf?.Ref !== undefined)?.CdtrRefInf?.Ref ?? tx.RmtInf.Ustrd[0];
  const party = credit ? tx.RltdPties.Dbtr?.Id : tx.RltdPties.Cdtr?.Id;
  // A detail without its own amount is the whole entry when it is the only one; otherwise unknown (0),
  // which can only ever be an exception, never a match.
  const amount =
    tx.Amt !== undefined
      ? safe(tx.Amt.minor)
      : entry.NtryDtls.flatMap((d) => d.TxDtls).length === 1
        ? safe(entry.Amt.minor)
        : 0;
  return {
    amount,
    credit,
    refs,
    ...(reference !== undefined && { reference }),
    ...(party !== undefined && { party }),
  };
}

/** Amounts are stored as int8 and read back as numbers: refuse rather than round one that is not safe. */
function safe(minor: bigint): number {
  const n = Number(minor);
  if (!Number.isSafeInteger(n)) throw new RangeError(`amount ${minor} exceeds the safe integer range`);
  return n;
}
