import type { Knex } from '../../db/knex';
import type { CamtEvent, CamtMessage, CamtStatement } from '../../adapters/banks/camt';
import { parseCamt } from '../../adapters/banks/camt';
import {
  completeBankStatement,
  insertBankEntries,
  insertBankStatement,
  type NewBankEntry,
} from '../../db/bank-entries';
import { safe, toEntryRow } from './camt-entry-rows';

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
