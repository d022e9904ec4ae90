import type { CamtEntry, CamtEvent, CamtMessage, CamtStatement, CamtTxDtls } from './camt-types';
import { checkStatementTotals, newTally, tallyEntry, totalsOf, type Tally } from './control-totals';
import { CamtControlTotalError, CamtError } from './errors';
import { completeEntry } from './read-entry';
import { readUnit, type CamtUnit, type CamtUnitResult } from './read-unit';
import {
  MESSAGE_ELEMENT,
  STATEMENT_ELEMENT,
  StatementBuilder,
  readGroupHeader,
  readMessageType,
} from './read-statement';
import { createUnitParserPool, type UnitParserPool } from './unit-parser-pool';
import { scanElements } from './xml-element-scanner';
import { parseElement } from './xml-fragment';

export interface ParseCamtOptions {
  /**
   * Largest single element in characters: a transaction (`TxDtls`), an entry without its
   * transactions, or a header element. Memory use is bounded by this, not by the file: elements
   * are parsed alone and dropped.
   */
  maxElementChars?: number;
  /**
   * Most transactions one entry may carry (default 250,000). An entry's transactions are held until
   * the entry is complete, and their values are slices of the text they came from (V8 keeps that
   * text alive), so one lump sum costs memory in proportion to its own size: this bounds it.
   */
  maxTransactionsPerEntry?: number;
  /**
   * Worker threads that read transactions and entries (0, the default: on this thread). XML
   * parsing is most of the cost, so workers raise throughput where a core is free; order, totals
   * and the scan stay on this thread. Needs the process to load TypeScript itself (tsx) or compiled code.
   */
  workers?: number;
}

const STATEMENT_CHILD_DEPTH = 4; // Document / message / Stmt|Ntfctn / child
const TRANSACTION_DEPTH = 6; // … / Ntry / NtryDtls / TxDtls
const BATCH_CHARS = 64 * 1024; // XML per worker message: a few hundred transactions…
const BATCH_UNITS = 512; // …or this many small entries
const IN_FLIGHT_PER_WORKER = 3; // bounds memory: batches queued per worker

type Header = Omit<CamtMessage, 'GrpHdr'>;

/**
 * Parses a camt.053 statement or camt.054 notification (.001.02 – .001.08) from a byte stream,
 * yielding the message header, then per statement its header, each entry, and its verified totals.
 * Entries are parsed one at a time, and a lump-sum entry's transactions one by one before the rest
 * of it, so memory stays flat however many entries the file holds; what grows is only the entry
 * being read, in proportion to its own size (maxTransactionsPerEntry bounds it). Throws
 * a CamtError for a hostile, truncated or malformed file, and a CamtControlTotalError (after the
 * statement's entries) when its stated totals disagree with them. A file is good only if the
 * iteration completes: callers must treat any error as the whole file being untrusted, including
 * statements already reported.
 */
export async function* parseCamt(
  source: AsyncIterable<Buffer | string>,
  options: ParseCamtOptions = {},
): AsyncGenerator<CamtEvent> {
  const workers = options.workers ?? 0;
  const pool = workers > 0 ? createUnitParserPool(workers) : undefined;
  try {
    yield* parse(source, options, new UnitQueue(pool, workers * IN_FLIGHT_PER_WORKER));
  } finally {
    await pool?.close();
  }
}

async function* parse(
  source: AsyncIterable<Buffer | string>,
  options: ParseCamtOptions,
  units: UnitQueue,
): AsyncGenerator<CamtEvent> {
  let header: Header | undefined;
  let messageSeen = false;
  let statement: StatementBuilder | undefined;
  let built: CamtStatement | undefined;
  let tally: Tally = newTally();
  let entryIndex = 0;
  let transactionIndex = 0; // within the entry being read
  const maxTransactions = options.maxTransactionsPerEntry ?? 250_000;

  const entryEvents = function* (ready: CamtEntry[]): Generator<CamtEvent> {
    for (const entry of ready) {
      tallyEntry(tally, entry);
      yield { kind: 'entry', statementId: built!.Id, entry };
    }
  };

  const scanner = scanElements(source, {
    // On this thread the scanner builds each element as it goes; workers get the text instead.
    build: !units.pooled,
    maxElementChars: options.maxElementChars ?? 16 * 1024 * 1024,
    reportDepth: 3,
    capture: (path) =>
      (path.length === 3 && path[2] === 'GrpHdr') ||
      (path.length === STATEMENT_CHILD_DEPTH && (path[2] === 'Stmt' || path[2] === 'Ntfctn')),
    split: (path) =>
      path.length === TRANSACTION_DEPTH &&
      path[3] === 'Ntry' &&
      path[4] === 'NtryDtls' &&
      path[5] === 'TxDtls',
  });

  for await (const batch of scanner) {
    for (const event of batch) {
      const depth = event.path.length;
      const name = event.path[depth - 1]!;
      if (event.type === 'start') {
        if (depth === 1) {
          if (name !== 'Document')
            throw new CamtError('unsupported_message', `root element ${name} is not Document`);
          header = readMessageType(event.tag);
        } else if (depth === 2 && name !== MESSAGE_ELEMENT[header!.type]) {
          throw new CamtError('unsupported_message', `${name} in a ${header!.type} document`);
        } else if (depth === 3 && name === STATEMENT_ELEMENT[header!.type]) {
          if (!messageSeen) throw new CamtError('malformed', `${name} before GrpHdr`);
          statement = new StatementBuilder(STATEMENT_ELEMENT[header!.type]);
          built = undefined;
          tally = newTally();
          entryIndex = 0;
        }
        continue;
      }
      if (event.type === 'element') {
        if (depth === 3) {
          const node = event.node ?? parseElement(event.xml, 'GrpHdr');
          messageSeen = true;
          yield { kind: 'message', message: { ...header!, GrpHdr: readGroupHeader(node) } };
          continue;
        }
        if (statement === undefined || event.path[2] !== STATEMENT_ELEMENT[header!.type]) {
          throw new CamtError('unsupported_message', `${event.path[2]!} in a ${header!.type} document`);
        }
        if (name !== 'Ntry' && depth === STATEMENT_CHILD_DEPTH) {
          // The schema puts only AddtlStmtInf / AddtlNtfctnInf after the entries; a balance or summary
          // there would change totals already reported, so it is refused.
          if (built === undefined) statement.add(name, event.node ?? parseElement(event.xml, name));
          else if (name === 'Bal' || name === 'TxsSummry') {
            throw new CamtError('malformed', `${name} after the first Ntry`, built.Id);
          }
          continue;
        }
        if (built === undefined) {
          built = statement.build();
          yield { kind: 'statement', statement: built };
        }
        if (depth === TRANSACTION_DEPTH) {
          if (transactionIndex >= maxTransactions)
            throw new CamtError(
              'element_too_large',
              `an entry with more than ${maxTransactions} transactions`,
              `${built.Id} Ntry[${entryIndex}]`,
            );
          const where = `${built.Id} Ntry[${entryIndex}] TxDtls[${transactionIndex++}]`;
          const ready = units.add({ kind: 'transaction', xml: event.xml, node: event.node, where });
          const entries = Array.isArray(ready) ? ready : await ready;
          // Most transactions complete no entry: no generator for them.
          if (entries.length > 0) yield* entryEvents(entries);
          continue;
        }
        transactionIndex = 0;
        const ready = units.add({
          kind: 'entry',
          xml: event.xml,
          node: event.node,
          index: entryIndex++,
          where: built.Id,
        });
        yield* entryEvents(Array.isArray(ready) ? ready : await ready);
        continue;
      }
      // end of an element at depth ≤ 3
      if (depth === 3 && statement !== undefined && name === STATEMENT_ELEMENT[header!.type]) {
        if (built === undefined) {
          built = statement.build();
          yield { kind: 'statement', statement: built };
        }
        yield* entryEvents(await units.drain());
        const checks = checkStatementTotals(header!.type, built, tally);
        if (checks.some((c) => !c.ok)) throw new CamtControlTotalError(built.Id, checks);
        yield { kind: 'statement-end', statementId: built.Id, totals: totalsOf(tally, checks) };
        statement = undefined;
      } else if (depth === 1 && !messageSeen) {
        throw new CamtError('malformed', 'the document has no GrpHdr');
      }
    }
  }
}

/**
 * Turns units into entries in document order: at once on this thread, or in batches on the worker
 * pool with a bounded number in flight. An entry's transactions come before its shell, which
 * completes it. `add` and `drain` return the entries now complete.
 */
class UnitQueue {
  private batch: CamtUnit[] = [];
  private batchChars = 0;
  private readonly inFlight: Promise<CamtUnitResult[]>[] = [];
  private transactions: CamtTxDtls[] = [];

  constructor(
    private readonly pool: UnitParserPool | undefined,
    private readonly maxInFlight: number,
  ) {}

  /** Whether units are read on worker threads (and so travel as text). */
  get pooled(): boolean {
    return this.pool !== undefined;
  }

  /** On this thread the entries are ready at once: no promise, so no await per unit. */
  add(unit: CamtUnit): CamtEntry[] | Promise<CamtEntry[]> {
    if (this.pool === undefined) return this.absorb([readUnit(unit)]);
    return this.addToBatch(unit);
  }

  private async addToBatch(unit: CamtUnit): Promise<CamtEntry[]> {
    this.batch.push(unit);
    this.batchChars += unit.xml.length;
    if (this.batchChars >= BATCH_CHARS || this.batch.length >= BATCH_UNITS) this.dispatch();
    return this.inFlight.length > this.maxInFlight ? this.absorb(await this.inFlight.shift()!) : [];
  }

  async drain(): Promise<CamtEntry[]> {
    this.dispatch();
    const ready: CamtEntry[] = [];
    while (this.inFlight.length > 0) ready.push(...this.absorb(await this.inFlight.shift()!));
    return ready;
  }

  private absorb(results: CamtUnitResult[]): CamtEntry[] {
    const entries: CamtEntry[] = [];
    for (const result of results) {
      if (result.kind === 'transaction') {
        this.transactions.push(result.transaction);
      } else {
        entries.push(completeEntry(result.shell, this.transactions));
        this.transactions = [];
      }
    }
    return entries;
  }

  private dispatch(): void {
    if (this.batch.length === 0 || this.pool === undefined) return;
    const promise = this.pool.read(this.batch);
    // Awaited in order later; until then a failure must not surface as an unhandled rejection.
    promise.catch(() => undefined);
    this.inFlight.push(promise);
    this.batch = [];
    this.batchChars = 0;
  }
}
