import type { Knex } from '../db/knex';
import type {
  CamtAccount,
  CamtEntry,
  CamtEvent,
  CamtMessage,
  CamtStatement,
  CamtTxDtls,
} from '../adapters/banks/camt';
import { parseCamt } from '../adapters/banks/camt';
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
  /**
   * Runs after each batch of entries is inserted, on the same transaction, while the parser reads
   * on (claim payments are matched this way; see matchClaimPaymentsOfBatch).
   */
  afterBatch?: (batch: StoredBatch) => Promise<unknown>;
}

/** A batch of entries just stored: its statement and the entry indexes it covers. */
export interface StoredBatch {
  statementId: number;
  messageType: 'camt.053' | 'camt.054';
  account: string;
  fromIndex: number;
  toIndex: number;
}

// A batch is flushed at this many entries or detail rows, whichever comes first: large enough that
// round trips do not matter, small enough that a lump sum with many details stays in bounds.
const BATCH_ENTRIES = 2000;
const BATCH_DETAILS = 10_000;

/**
 * Streams a camt file into bank_statements and bank_entries inside `trx`. The caller owns the
 * transaction: any error (a CamtError from the parser, DuplicateStatementError) must roll it back,
 * since a file is only good once the parse completes. Database work runs as one ordered chain on
 * the transaction while the parser reads on (a statement's id is awaited by its entries' inserts,
 * not by the parser), with at most two batches queued, so parsing and the database overlap even
 * when every statement holds a single large entry.
 */
export async function ingestCamtFile(
  trx: Knex.Transaction,
  file: { id: string; livemode: boolean },
  source: AsyncIterable<Buffer | string>,
  opts: IngestOptions = {},
): Promise<IngestResult> {
  let message: CamtMessage | undefined;
  let statement: Promise<StoredStatement & { messageType: 'camt.053' | 'camt.054' }> | undefined;
  let batch: NewBankEntry[] = [];
  let batchDetails = 0;
  let chain: Promise<unknown> = Promise.resolve();
  let previousBatch: Promise<unknown> = Promise.resolve();
  let statements = 0;
  let entries = 0;
  let details = 0;

  /** Appends work to the transaction's chain; a failure surfaces at the next await of the chain. */
  const enqueue = <T>(work: () => Promise<T>): Promise<T> => {
    const next = chain.then(work);
    chain = next;
    // Awaited later (backpressure, or the end); until then a failure must not be unhandled.
    next.catch(() => undefined);
    return next;
  };

  const flush = async (): Promise<void> => {
    if (batch.length === 0 || statement === undefined) return;
    const rows = batch;
    batch = [];
    batchDetails = 0;
    const opened = statement;
    const range = { fromIndex: rows[0]!.entryIndex, toIndex: rows[rows.length - 1]!.entryIndex };
    // Backpressure: the batch before this one must be stored before a third is queued.
    await previousBatch;
    previousBatch = enqueue(async () => {
      const stored = await opened;
      await insertBankEntries(trx, stored, rows);
      await opts.afterBatch?.({
        statementId: stored.id,
        messageType: stored.messageType,
        account: stored.account,
        ...range,
      });
    });
  };

  // A statement already stored makes the file a duplicate, but only a well-formed one: the parse
  // goes on to the end (storing nothing more), so a file both repeated and broken is always
  // quarantined, whatever the timing of the database.
  let duplicate: DuplicateStatementError | undefined;
  const handle = async (event: CamtEvent): Promise<void> => {
    if (event.kind === 'message') {
      message = event.message;
    } else if (event.kind === 'statement') {
      await flush();
      const header = event.statement;
      const type = message!.type;
      statement = enqueue(async () => ({
        ...(await openStatement(trx, file, message!, header)),
        messageType: type,
      }));
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
      const t = event.totals;
      const opened = statement!;
      void enqueue(async () =>
        completeBankStatement(trx, (await opened).id, {
          entryCount: t.entries,
          credits: safe(t.booked.credits),
          debits: safe(t.booked.debits),
        }),
      );
    }
  };
  try {
    for await (const event of parseCamt(source, { workers: opts.workers ?? 0 })) {
      if (duplicate !== undefined) continue;
      try {
        await handle(event);
      } catch (err) {
        if (!(err instanceof DuplicateStatementError)) throw err;
        duplicate = err;
      }
    }
    if (duplicate !== undefined) throw duplicate;
    await flush();
    await chain;
  } finally {
    // Never leave a query running on the transaction after an error.
    await chain.catch(() => undefined);
  }
  if (message === undefined) throw new Error('the parser finished without a message header');
  return { message, statements, entries, details };
}

interface StoredStatement {
  id: number;
  bankFileId: string;
  livemode: boolean;
  account: string;
}

async function openStatement(
  trx: Knex.Transaction,
  file: { id: string; livemode: boolean },
  message: CamtMessage,
  s: CamtStatement,
): Promise<StoredStatement> {
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
  return { id, bankFileId: file.id, livemode: file.livemode, account };
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
  const partyAccount = icelandicAccount(credit ? tx.RltdPties.DbtrAcct : tx.RltdPties.CdtrAcct);
  // A detail without its own amount is the whole entry when it is the only one; otherwise unknown (0),
  // which can only ever be an exception, never a match.
  const amount =
    tx.Amt !== undefined
      ? safe(tx.Amt.minor)
      : entry.NtryDtls.flatMap((d) => d.TxDtls).length === 1
        ? safe(entry.Amt.minor)
        : 0;
  const charges = chargesOf(tx, entry.Amt.Ccy);
  return {
    amount,
    credit,
    refs,
    ...(reference !== undefined && { reference }),
    ...(party !== undefined && { party }),
    ...(partyAccount !== undefined && { partyAccount }),
    ...(charges !== undefined && { charges }),
  };
}

/** An account as 12 digits (bank 4, ledger 2, number 6): a BBAN, written with dashes or not, or an IS IBAN. */
function icelandicAccount(account: CamtAccount | undefined): string | undefined {
  if (account?.IBAN !== undefined)
    return /^IS[0-9]{24}$/.test(account.IBAN) ? account.IBAN.slice(4, 16) : undefined;
  const digits = account?.Othr?.replace(/-/g, '');
  return digits !== undefined && /^[0-9]{12}$/.test(digits) ? digits : undefined;
}

/**
 * What the bank charges for a transaction, in the entry's currency: the stated total, else the sum
 * of the charge records (a credited one counts back). Undefined when it reports none, or none in
 * that currency.
 */
export function chargesOf(tx: CamtTxDtls, currency: string): number | undefined {
  const c = tx.Chrgs;
  if (c === undefined) return undefined;
  if (c.TtlChrgsAndTaxAmt !== undefined)
    return c.TtlChrgsAndTaxAmt.Ccy === currency ? safe(c.TtlChrgsAndTaxAmt.minor) : undefined;
  const records = c.Rcrd.filter((r) => r.Amt.Ccy === currency);
  if (records.length === 0) return undefined;
  return safe(records.reduce((n, r) => (r.CdtDbtInd === 'CRDT' ? n - r.Amt.minor : n + r.Amt.minor), 0n));
}

/** Amounts are stored as int8 and read back as numbers: refuse rather than round one that is not safe. */
function safe(minor: bigint): number {
  const n = Number(minor);
  if (!Number.isSafeInteger(n)) throw new RangeError(`amount ${minor} exceeds the safe integer range`);
  return n;
}
