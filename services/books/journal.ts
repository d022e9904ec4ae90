import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import { createMerchantRepository } from '../../db/merchants';
import {
  createJournalRepository,
  type ClosedEntryRow,
  type ClosedPeriodRow,
  type JournalCursor,
  type JournalSourceRow,
} from '../../db/journal';
import { InvalidRequestError, NotFoundError } from '../../domain/errors';
import {
  ACCOUNT_ROLES,
  DEFAULT_ACCOUNTS,
  creditOf,
  debitOf,
  journalLines,
  type AccountRole,
  type JournalSource,
} from '../../domain/journal';
import { booksPlacement, firstOpenPeriod } from '../../domain/books-period';
import {
  lastEndedVatPeriod,
  parseVatPeriod,
  vatPeriodRange,
  type VatPeriod,
  type VatPeriodKind,
} from '../../domain/vat-period';
import { csvCell, csvRow } from '../../domain/csv';
import {
  REGLA_COLUMNS,
  REGLA_SOURCE_TEXT,
  reglaAmount,
  reglaDate,
  reglaRow,
  reglaText,
} from '../../domain/regla-ledger';
import { unix } from '../../domain/unix-time';
import { figuresOf } from './vat-report';
import { settlementPeriodCsv } from './settlement-period-csv';
import type { AccountObject, BooksPeriodObject, JournalEntryObject } from './journal-object';

const PAGE = 1000;
/** Characters of file text per write, well under V8's large-object size (see `pageText`). */
const PIECE = 16_384;

/** A source row as the domain's journal source: sales documents through the VAT report's figures. */
export function journalSourceOf(row: JournalSourceRow, seller: { registered: boolean }): JournalSource {
  const amount = Number(row.amount ?? 0);
  switch (row.type) {
    case 'invoice':
    case 'credit_note':
    case 'pos_sale':
    case 'pos_refund':
      return {
        type: row.type,
        figures: figuresOf(
          {
            kind: row.type,
            id: row.id,
            number: row.reference,
            at: row.at,
            lines: row.lines ?? [],
            vat: row.vat,
            amount: row.amount === null ? null : amount,
            parent: row.parent,
          },
          seller,
        ),
        cash: Number(row.cash ?? 0),
      };
    case 'payment':
      return { type: 'payment', amount, fee: Number(row.fee ?? 0) };
    default:
      return { type: row.type, amount };
  }
}

type Chart = Record<AccountRole, { number: string; name: string }>;

const dayOf = (d: Date) => d.toISOString().slice(0, 10);

/** The `page` token of the journal list: where the next page starts (decision 0239). */
type PageToken = { closed: number } | { live: JournalCursor };
const encodeToken = (t: PageToken) => Buffer.from(JSON.stringify(t)).toString('base64url');
function decodeToken(value: string): PageToken {
  try {
    const t = JSON.parse(Buffer.from(value, 'base64url').toString()) as Record<string, unknown>;
    if (typeof t.closed === 'number' && Number.isSafeInteger(t.closed)) return { closed: t.closed };
    const live = t.live as Record<string, unknown> | undefined;
    if (
      live &&
      Number.isSafeInteger(live.at_us) &&
      Number.isSafeInteger(live.rank) &&
      typeof live.id === 'string'
    )
      return { live: { at_us: live.at_us as number, rank: live.rank as number, id: live.id } };
  } catch {
    // Falls through to the 400 below.
  }
  throw new InvalidRequestError('page must be a next_page value of this list', { param: 'page' });
}

/**
 * The merchant's accounting journal (decision 0239) and the closing of its periods (decision 0240).
 * An open period's journal is computed from its sources on each read; a closed period's is the
 * copy its close made, so its export never changes; a source no closed period holds lands in the
 * first open period.
 */
export function createJournalService(deps: { knex: Knex }) {
  const repo = createJournalRepository(deps.knex);
  const merchants = createMerchantRepository(deps.knex);

  async function sellerOf(scope: Scope) {
    const m = await merchants.findById(scope.merchantId);
    if (!m) throw new NotFoundError('No such merchant');
    return { registered: m.vat_number !== null, kind: m.vat_period };
  }

  function periodOf(value: string | undefined, kind: VatPeriodKind, now: Date): VatPeriod {
    if (value === undefined) return lastEndedVatPeriod(kind, dayOf(now));
    const parsed = parseVatPeriod(value);
    if (!parsed.ok) throw new InvalidRequestError(parsed.message, { param: 'period' });
    return parsed.period;
  }

  async function chartOf(scope: Scope): Promise<Chart> {
    const own = new Map((await repo.accounts(scope)).map((a) => [a.role, a]));
    const chart = {} as Chart;
    for (const role of ACCOUNT_ROLES) {
      const d = DEFAULT_ACCOUNTS[role];
      const o = own.get(role);
      chart[role] = { number: o?.number ?? d.number, name: o?.name ?? d.is };
    }
    return chart;
  }

  function entryOf(row: JournalSourceRow, seller: { registered: boolean }, chart: Chart, period: VatPeriod) {
    const lines = journalLines(journalSourceOf(row, seller)).map((l) => ({
      account: l.account,
      number: chart[l.account].number,
      name: chart[l.account].name,
      amount: l.amount,
    }));
    const date = dayOf(row.at) < period.start ? period.start : dayOf(row.at);
    return {
      source_type: row.type,
      source_id: row.id,
      occurred_at: row.at,
      entry_date: date,
      reference: row.reference,
      lines,
    };
  }

  function present(e: Omit<ClosedEntryRow, 'id' | 'period_id'>): JournalEntryObject {
    return {
      object: 'journal_entry',
      date: e.entry_date,
      source: { type: e.source_type, id: e.source_id },
      reference: e.reference,
      occurred: unix(e.occurred_at),
      lines: e.lines.map((l) => ({
        account: l.account as AccountRole,
        account_number: l.number,
        account_name: l.name,
        debit: debitOf(l),
        credit: creditOf(l),
      })),
    };
  }

  function presentPeriod(period: VatPeriod, closed: ClosedPeriodRow | undefined): BooksPeriodObject {
    return {
      object: 'books_period',
      id: period.id,
      kind: period.kind,
      start: period.start,
      end: period.end,
      due_date: period.due_date,
      status: closed ? 'closed' : 'open',
      closed_at: closed ? unix(closed.closed_at) : null,
      entry_count: closed?.entry_count ?? null,
      debit: closed ? Number(closed.debit) : null,
      credit: closed ? Number(closed.credit) : null,
    };
  }

  /**
   * One page of a period's entries after a token, with the token of its last entry when another
   * page may follow (the page was full). The chart is read once per listing, and only for an
   * open period.
   */
  async function entryPage(
    scope: Scope,
    ctx: { period: VatPeriod; seller: { registered: boolean }; closed: ClosedPeriodRow[] },
    after: PageToken | undefined,
    chart: () => Promise<Chart>,
  ): Promise<{ items: { entry: JournalEntryRow; token: PageToken }[]; next: PageToken | undefined }> {
    const where = booksPlacement(ctx.period, ctx.closed);
    if ('closed' in where) {
      const afterId = after && 'closed' in after ? after.closed : undefined;
      const rows = await repo.closedPage(scope, ctx.period.id, { afterId, limit: PAGE });
      const items = rows.map((row) => ({ entry: row, token: { closed: row.id } as PageToken }));
      return { items, next: rows.length < PAGE ? undefined : items.at(-1)!.token };
    }
    const accounts = await chart();
    const cursor = after && 'live' in after ? after.live : undefined;
    const rows = await repo.page(deps.knex, scope, where.live, { after: cursor, limit: PAGE });
    const items = rows.map((row) => ({
      entry: entryOf(row, ctx.seller, accounts, ctx.period),
      token: { live: { at_us: Number(row.at_us), rank: row.rank, id: row.id } } as PageToken,
    }));
    return { items, next: rows.length < PAGE ? undefined : items.at(-1)!.token };
  }

  /** Reads the chart of accounts the first time it is asked for, once. */
  const chartOnce = (scope: Scope) => {
    let chart: Promise<Chart> | undefined;
    return () => (chart ??= chartOf(scope));
  };

  /** A period's entries after a token, a page at a time. */
  async function* entries(
    scope: Scope,
    ctx: { period: VatPeriod; seller: { registered: boolean }; closed: ClosedPeriodRow[] },
    after?: PageToken,
  ): AsyncGenerator<{ entry: JournalEntryRow; token: PageToken }> {
    const chart = chartOnce(scope);
    let token = after;
    for (;;) {
      const { items, next } = await entryPage(scope, ctx, token, chart);
      yield* items;
      if (!next) return;
      token = next;
    }
  }

  async function context(scope: Scope, value: string | undefined, now: Date) {
    const seller = await sellerOf(scope);
    const period = periodOf(value, seller.kind, now);
    const closed = await repo.closedPeriods(deps.knex, scope);
    return { seller, period, closed };
  }

  return {
    async chart(scope: Scope): Promise<AccountObject[]> {
      const chart = await chartOf(scope);
      return ACCOUNT_ROLES.map((role) => ({
        object: 'account' as const,
        role,
        number: chart[role].number,
        name: chart[role].name,
        default_number: DEFAULT_ACCOUNTS[role].number,
        default_name: { is: DEFAULT_ACCOUNTS[role].is, en: DEFAULT_ACCOUNTS[role].en },
      }));
    },

    /** Sets the merchant's own numbers (and names); closed periods keep the ones they closed with. */
    async setChart(
      scope: Scope,
      accounts: { role: AccountRole; number: string; name?: string | null | undefined }[],
    ): Promise<AccountObject[]> {
      const seen = new Set<string>();
      accounts.forEach((a, i) => {
        if (seen.has(a.role))
          throw new InvalidRequestError(`${a.role} is given twice`, { param: `accounts[${i}][role]` });
        seen.add(a.role);
      });
      await repo.setAccounts(
        scope,
        accounts.map((a) => ({ role: a.role, number: a.number, name: a.name ?? null })),
      );
      return this.chart(scope);
    },

    periodFor: async (scope: Scope, value?: string) =>
      periodOf(value, (await sellerOf(scope)).kind, new Date()),

    /** The settlement lines of the period's runs with their payouts and statement entries (decision 0241). */
    settlementCsv: (scope: Scope, period: VatPeriod) => settlementPeriodCsv(deps.knex, scope, period),

    /** A page of a period's journal. */
    async page(
      scope: Scope,
      opts: { period?: string | undefined; limit: number; page?: string | undefined; now?: Date },
    ) {
      const after = opts.page === undefined ? undefined : decodeToken(opts.page);
      const ctx = await context(scope, opts.period, opts.now ?? new Date());
      const data: JournalEntryObject[] = [];
      let last: PageToken | undefined;
      let hasMore = false;
      for await (const { entry, token } of entries(scope, ctx, after)) {
        if (data.length === opts.limit) {
          hasMore = true;
          break;
        }
        data.push(present(entry));
        last = token;
      }
      const closed = ctx.closed.find((c) => c.period_id === ctx.period.id);
      return {
        period: presentPeriod(ctx.period, closed),
        data,
        hasMore,
        nextPage: hasMore && last ? encodeToken(last) : null,
      };
    },

    /**
     * The period's journal as a file: the generic CSV (decision 0239), a row per line, the entry's
     * number in the file, decision 0232's cells; or Regla's ledger import (decision 0260), the
     * entry's number as its voucher. A closed period's file is the same bytes every time.
     */
    async *csv(
      scope: Scope,
      opts: { period?: string | undefined; format?: JournalFormat; now?: Date },
    ): AsyncGenerator<string> {
      const ctx = await context(scope, opts.period, opts.now ?? new Date());
      const format = opts.format ?? 'generic';
      yield format === 'regla' ? reglaRow(REGLA_COLUMNS) : csvRow(JOURNAL_CSV_COLUMNS);
      const chart = chartOnce(scope);
      let token: PageToken | undefined;
      let entry = 0;
      // A page is turned into text as soon as it is read, and only its text is held while the
      // client takes it; the next page is read once it has (bench/journal-export.ts measures the
      // memory). Rows and entries held across those waits outlived young-generation collections
      // and were promoted, so the old generation grew with the export until a full collection.
      do {
        const text = pageText(await entryPage(scope, ctx, token, chart), entry, format);
        entry = text.last;
        token = text.next;
        for (const piece of text.pieces) yield piece;
      } while (token);
    },

    /**
     * Closes a period (decision 0240): in one transaction holding the merchant's books row, copies
     * every source no period holds yet and that happened before the period's end into the closed
     * entries (one row per source, unique), and records the period. Only the first open period can
     * close; closing a closed one answers it again.
     */
    async close(scope: Scope, value: string, now = new Date()): Promise<BooksPeriodObject> {
      const seller = await sellerOf(scope);
      const parsed = parseVatPeriod(value);
      if (!parsed.ok) throw new InvalidRequestError(parsed.message, { param: 'period' });
      const period = parsed.period;
      if (period.start > dayOf(now))
        throw new InvalidRequestError(`${period.id} has not begun`, { param: 'period' });
      const chart = await chartOf(scope);
      return repo.transaction(async (trx) => {
        await repo.lockBooks(trx, scope);
        const closed = await repo.closedPeriods(trx, scope);
        const already = closed.find((c) => c.period_id === period.id);
        if (already) return presentPeriod(period, already);
        const through = closed.at(-1)?.end_date;
        const first = firstOpenPeriod(seller.kind, closed);
        if (through !== undefined && first) {
          if (period.start <= through)
            throw new InvalidRequestError(
              `${period.id} lies before ${through}, the end of the books' last close`,
              {
                param: 'period',
              },
            );
          if (period.id !== first.id)
            throw new InvalidRequestError(`close ${first.id} first: periods close in order`, {
              param: 'period',
            });
        }
        const range = { from: new Date(0), to: vatPeriodRange(period).to };
        let cursor: JournalCursor | undefined;
        for (;;) {
          const rows = await repo.page(trx, scope, range, { after: cursor, limit: PAGE });
          await repo.insertClosed(
            trx,
            scope,
            period.id,
            rows.map((r) => entryOf(r, seller, chart, period)),
          );
          if (rows.length < PAGE) break;
          const last = rows.at(-1)!;
          cursor = { at_us: Number(last.at_us), rank: last.rank, id: last.id };
        }
        const row = await repo.recordClosed(trx, scope, {
          period_id: period.id,
          kind: period.kind,
          start_date: period.start,
          end_date: period.end,
        });
        return presentPeriod(period, row);
      });
    },
  };
}

type JournalEntryRow = Omit<ClosedEntryRow, 'id' | 'period_id'>;

/**
 * A page of entries as file text, numbered on from `from`, in pieces of about PIECE characters: a
 * string past V8's largest regular object (128 KiB, 64 Ki characters once a name has an 'ð') is
 * made in the large-object space, which only a full collection frees, so a page written whole
 * (250–500 KiB) piled up there. The cells an entry's lines share, and an account's, are made once.
 */
function pageText(
  page: { items: { entry: JournalEntryRow }[]; next: PageToken | undefined },
  from: number,
  format: JournalFormat,
): { pieces: string[]; last: number; next: PageToken | undefined } {
  const pieces: string[] = [];
  const accounts = new Map<string, string>();
  let piece = '';
  let n = from;
  for (const { entry } of page.items) {
    n += 1;
    if (format === 'regla') {
      const head = `${reglaDate(entry.entry_date)};${reglaText(`${REGLA_SOURCE_TEXT[entry.source_type]} ${entry.source_id}`)};${n};`;
      const reference = reglaText(entry.reference);
      for (const l of entry.lines)
        piece += `${head}${reglaText(l.number)};${reference};;${reglaAmount(debitOf(l))};${reglaAmount(creditOf(l))}\r\n`;
    } else {
      const head = [entry.entry_date, n, entry.source_type, entry.source_id, entry.reference]
        .map(csvCell)
        .join(',');
      for (const l of entry.lines) {
        const key = `${l.number}\n${l.name}\n${l.account}`;
        let account = accounts.get(key);
        if (account === undefined) {
          account = [l.number, l.name, l.account].map(csvCell).join(',');
          accounts.set(key, account);
        }
        piece += `${head},${account},${debitOf(l)},${creditOf(l)}\r\n`;
      }
    }
    if (piece.length >= PIECE) {
      pieces.push(piece);
      piece = '';
    }
  }
  if (piece) pieces.push(piece);
  return { pieces, last: n, next: page.next };
}

/** The journal's file formats: the generic CSV (decision 0239) and Regla's import (decision 0260). */
export const JOURNAL_FORMATS = ['generic', 'regla'] as const;
export type JournalFormat = (typeof JOURNAL_FORMATS)[number];

/** The generic CSV's columns, documented in decision 0239. */
export const JOURNAL_CSV_COLUMNS = [
  'date',
  'entry',
  'source_type',
  'source_id',
  'reference',
  'account_number',
  'account_name',
  'account',
  'debit',
  'credit',
];

export type JournalService = ReturnType<typeof createJournalService>;
