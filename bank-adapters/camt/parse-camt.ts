import type { CamtEntry, CamtEvent, CamtMessage, CamtStatement } from './camt-types';
import { checkStatementTotals, newTally, tallyEntry, totalsOf, type Tally } from './control-totals';
import { createEntryParserPool, type EntryParserPool } from './entry-parser-pool';
import { CamtControlTotalError, CamtError } from './errors';
import { readEntry } from './read-entry';
import {
  MESSAGE_ELEMENT,
  STATEMENT_ELEMENT,
  StatementBuilder,
  readGroupHeader,
  readMessageType,
} from './read-statement';
import { scanElements } from './xml-element-scanner';
import { parseFragment } from './xml-values';

export interface ParseCamtOptions {
  /**
   * Largest single entry (or header element) in characters. Memory use is bounded by this, not by
   * the file: an entry is parsed alone and dropped. 16 MiB fits a lump-sum entry with tens of
   * thousands of transaction details.
   */
  maxElementChars?: number;
  /**
   * Worker threads that parse entries (0, the default: parse on this thread). XML parsing is most
   * of the cost, so on a multi-core machine workers raise throughput; order and totals are kept on
   * this thread. Needs the process to load TypeScript itself (tsx) or compiled code.
   */
  workers?: number;
}

const STATEMENT_CHILD_DEPTH = 4; // Document / message / Stmt|Ntfctn / child
const BATCH = 256; // entries per worker message at most…
const BATCH_CHARS = 512 * 1024; // …and about this much XML: a lump sum of thousands of details goes alone
const IN_FLIGHT_PER_WORKER = 2; // bounds memory: at most this many batches queued per worker

type Header = Omit<CamtMessage, 'GrpHdr'>;

/**
 * Parses a camt.053 statement or camt.054 notification (.001.02 – .001.08) from a byte stream,
 * yielding the message header, then per statement its header, each entry, and its verified totals.
 * Entries are parsed one at a time (or in small batches on workers), so memory stays flat however
 * many the file holds. Throws a CamtError for a hostile, truncated or malformed file, and a
 * CamtControlTotalError (after the statement's entries) when its stated totals disagree with them.
 * A file is good only if the iteration completes: callers must treat any error as the whole file
 * being untrusted, including statements already reported.
 */
export async function* parseCamt(
  source: AsyncIterable<Buffer | string>,
  options: ParseCamtOptions = {},
): AsyncGenerator<CamtEvent> {
  const pool = (options.workers ?? 0) > 0 ? createEntryParserPool(options.workers!) : undefined;
  try {
    yield* parse(source, options, pool);
  } finally {
    await pool?.close();
  }
}

async function* parse(
  source: AsyncIterable<Buffer | string>,
  options: ParseCamtOptions,
  pool: EntryParserPool | undefined,
): AsyncGenerator<CamtEvent> {
  let header: Header | undefined;
  let messageSeen = false;
  let statement: StatementBuilder | undefined;
  let built: CamtStatement | undefined;
  let tally: Tally = newTally();
  const entries = new EntryQueue(pool, (options.workers ?? 0) * IN_FLIGHT_PER_WORKER);

  const scanner = scanElements(source, {
    maxElementChars: options.maxElementChars ?? 16 * 1024 * 1024,
    reportDepth: 3,
    capture: (path) =>
      (path.length === 3 && path[2] === 'GrpHdr') ||
      (path.length === STATEMENT_CHILD_DEPTH && (path[2] === 'Stmt' || path[2] === 'Ntfctn')),
  });

  const entryEvents = function* (ready: CamtEntry[]): Generator<CamtEvent> {
    for (const entry of ready) {
      tallyEntry(tally, entry);
      yield { kind: 'entry', statementId: built!.Id, entry };
    }
  };

  for await (const event of scanner) {
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
      }
      continue;
    }
    if (event.type === 'element') {
      if (depth === 3) {
        const node = parseFragment(event.xml, 'GrpHdr').GrpHdr;
        messageSeen = true;
        yield { kind: 'message', message: { ...header!, GrpHdr: readGroupHeader(node) } };
        continue;
      }
      if (statement === undefined || event.path[2] !== STATEMENT_ELEMENT[header!.type]) {
        throw new CamtError('unsupported_message', `${event.path[2]!} in a ${header!.type} document`);
      }
      if (name !== 'Ntry') {
        // The schema puts only AddtlStmtInf / AddtlNtfctnInf after the entries; a balance or summary
        // there would change totals already reported, so it is refused.
        if (built === undefined) statement.add(name, parseFragment(event.xml, name)[name]);
        else if (name === 'Bal' || name === 'TxsSummry') {
          throw new CamtError('malformed', `${name} after the first Ntry`, built.Id);
        }
        continue;
      }
      if (built === undefined) {
        built = statement.build();
        yield { kind: 'statement', statement: built };
      }
      yield* entryEvents(await entries.add(event.xml, built.Id));
      continue;
    }
    // end of an element at depth ≤ 3
    if (depth === 3 && statement !== undefined && name === STATEMENT_ELEMENT[header!.type]) {
      if (built === undefined) {
        built = statement.build();
        yield { kind: 'statement', statement: built };
      }
      yield* entryEvents(await entries.drain());
      const checks = checkStatementTotals(header!.type, built, tally);
      if (checks.some((c) => !c.ok)) throw new CamtControlTotalError(built.Id, checks);
      yield { kind: 'statement-end', statementId: built.Id, totals: totalsOf(tally, checks) };
      statement = undefined;
      entries.reset();
    } else if (depth === 1 && !messageSeen) {
      throw new CamtError('malformed', 'the document has no GrpHdr');
    }
  }
}

/**
 * Turns entry chunks into entries in document order: at once on this thread, or in batches on the
 * worker pool with a bounded number in flight. `add` and `drain` return the entries now ready.
 */
class EntryQueue {
  private batch: string[] = [];
  private batchChars = 0;
  private readonly inFlight: Promise<CamtEntry[]>[] = [];
  private dispatched = 0;
  private statementId = '';

  constructor(
    private readonly pool: EntryParserPool | undefined,
    private readonly maxInFlight: number,
  ) {}

  async add(xml: string, statementId: string): Promise<CamtEntry[]> {
    this.statementId = statementId;
    if (this.pool === undefined) {
      return [readEntry(parseFragment(xml, 'Ntry').Ntry, this.dispatched++, statementId)];
    }
    this.batch.push(xml);
    this.batchChars += xml.length;
    if (this.batch.length >= BATCH || this.batchChars >= BATCH_CHARS) this.dispatch();
    return this.inFlight.length > this.maxInFlight ? await this.inFlight.shift()! : [];
  }

  async drain(): Promise<CamtEntry[]> {
    this.dispatch();
    const ready: CamtEntry[] = [];
    while (this.inFlight.length > 0) ready.push(...(await this.inFlight.shift()!));
    return ready;
  }

  reset(): void {
    this.dispatched = 0;
  }

  private dispatch(): void {
    if (this.batch.length === 0 || this.pool === undefined) return;
    const promise = this.pool.parse(this.statementId, this.dispatched, this.batch);
    // Awaited in order later; until then a failure must not surface as an unhandled rejection.
    promise.catch(() => undefined);
    this.inFlight.push(promise);
    this.dispatched += this.batch.length;
    this.batch = [];
    this.batchChars = 0;
  }
}
