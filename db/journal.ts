import type { Knex } from './knex';
import type { Scope } from '../domain/scope';
import type { VatRate } from '../domain/vat';
import type { VatCategory } from '../domain/vat-box';
import type { JournalSourceType } from '../domain/journal';

/**
 * A journal source as stored (decision 0239): a sales document (the VAT report's, with its lines)
 * or a money movement. `at_us` is `at` in whole microseconds, the cursor's exact time (a JS Date
 * keeps milliseconds only, and two sources may share one).
 */
export interface JournalSourceRow {
  type: JournalSourceType;
  id: string;
  at: Date;
  at_us: number;
  rank: number;
  /** An invoice's or credit note's number, a till sale's number. */
  reference: string | null;
  lines:
    { vat_rate: VatRate; vat_category?: VatCategory | null; net_amount?: number; amount: number }[] | null;
  vat: { rate: VatRate; vat_amount: number }[] | null;
  amount: number | null;
  fee: number | null;
  cash: number | null;
  /** The invoice a credit note credits, the sale a till refund refunds, the payment a refund refunds. */
  parent: string | null;
}

export interface JournalCursor {
  at_us: number;
  rank: number;
  id: string;
}

interface Branch {
  type: JournalSourceType;
  /** The source's time and id columns, as the branch's `from` names them. */
  at: string;
  id: string;
  /** reference, lines, vat, amount, fee, cash, parent, in that order. */
  cols: string;
  from: string;
}

const SALE_LINES = (sale: string) =>
  `(select jsonb_agg(jsonb_build_object('vat_rate', l.vat_rate, 'vat_category', l.vat_category, 'amount', l.amount) order by l.position)
      from pos_sale_lines l where l.sale_id = ${sale})`;

/**
 * Every kind of source, in the order sources of one instant are listed. Each reads what the
 * settlement gather reads (db/settlement-runs.ts), by when the money moved, so the journal and the
 * payouts tell one story; sales documents are the VAT report's (db/vat-documents.ts): a till sale's
 * invoice and a till refund's credit note are booked once, as the till sale and refund.
 */
const BRANCHES: readonly Branch[] = [
  {
    type: 'invoice',
    at: 'x.issued_at',
    id: 'x.id',
    cols: `x.number, x.lines, x.vat, null::bigint, null::bigint, 0::bigint, null::text`,
    from: `invoices x where x.merchant_id = :merchant and x.livemode = :livemode and x.pos_sale_id is null`,
  },
  {
    type: 'credit_note',
    at: 'x.issued_at',
    id: 'x.id',
    cols: `x.number, x.lines, x.vat, null::bigint, null::bigint, 0::bigint, x.invoice_id`,
    from: `credit_notes x where x.merchant_id = :merchant and x.livemode = :livemode and x.pos_refund_id is null`,
  },
  {
    type: 'pos_sale',
    at: 'x.created_at',
    id: 'x.id',
    cols: `x.number::text, ${SALE_LINES('x.id')}, null::jsonb, null::bigint, null::bigint,
      (select coalesce(sum(p.amount), 0) from pos_sale_payments p where p.sale_id = x.id and p.method = 'cash')::bigint,
      null::text`,
    from: `pos_sales x where x.merchant_id = :merchant and x.livemode = :livemode`,
  },
  {
    type: 'pos_refund',
    at: 'x.created_at',
    id: 'x.id',
    cols: `null::text, ${SALE_LINES('x.sale_id')}, null::jsonb, x.amount, null::bigint,
      case when x.method = 'cash' then x.amount else 0 end, x.sale_id`,
    from: `pos_refunds x where x.merchant_id = :merchant and x.livemode = :livemode`,
  },
  {
    type: 'payment',
    at: 'x.captured_at',
    id: 'x.id',
    cols: `null::text, null::jsonb, null::jsonb, x.amount_captured, x.fee_amount, null::bigint, null::text`,
    from: `payment_intents x where x.merchant_id = :merchant and x.livemode = :livemode
             and x.captured_at is not null and x.amount_captured > 0`,
  },
  {
    type: 'refund',
    at: 'x.created_at',
    id: 'x.id',
    cols: `null::text, null::jsonb, null::jsonb, x.amount, null::bigint, null::bigint, x.payment_intent_id`,
    from: `refunds x where x.merchant_id = :merchant and x.livemode = :livemode
             and (x.status = 'succeeded' or (x.status = 'pending' and x.destination_account is not null))`,
  },
  {
    type: 'reversal',
    at: 'x.created_at',
    id: 'x.bank_transaction_key',
    cols: `null::text, null::jsonb, null::jsonb, -x.amount, null::bigint, null::bigint, c.payment_intent_id`,
    from: `claim_transactions x join claims c on c.id = x.claim_id
            where c.merchant_id = :merchant and c.livemode = :livemode and c.payment_intent_id is not null
              and x.payment_type = 'Refund' and x.amount < 0`,
  },
  {
    type: 'dispute',
    at: 'x.created_at',
    id: 'x.id',
    cols: `null::text, null::jsonb, null::jsonb, x.amount, null::bigint, null::bigint, x.payment_intent_id`,
    from: `disputes x where x.merchant_id = :merchant and x.livemode = :livemode`,
  },
  {
    type: 'dispute_won',
    at: 'x.closed_at',
    id: 'x.id',
    cols: `null::text, null::jsonb, null::jsonb, x.amount, null::bigint, null::bigint, x.payment_intent_id`,
    from: `disputes x where x.merchant_id = :merchant and x.livemode = :livemode and x.status = 'won'`,
  },
  {
    type: 'acquirer_fee',
    at: 'x.occurred_at',
    id: 'x.source_id',
    cols: `null::text, null::jsonb, null::jsonb, x.amount, null::bigint, null::bigint, x.payment_intent_id`,
    from: `payment_costs x where x.merchant_id = :merchant and x.livemode = :livemode and x.kind = 'acquirer_fee'`,
  },
  {
    type: 'bank_cost',
    at: 'x.occurred_at',
    id: 'x.source_id',
    cols: `null::text, null::jsonb, null::jsonb, x.amount, null::bigint, null::bigint, x.claim_id`,
    from: `payment_costs x where x.merchant_id = :merchant and x.livemode = :livemode and x.kind = 'bank_cost'`,
  },
  {
    type: 'payout',
    at: 'x.paid_at',
    id: 'x.id',
    cols: `null::text, null::jsonb, null::jsonb, x.amount, null::bigint, null::bigint, x.settlement_run_id`,
    from: `payouts x where x.merchant_id = :merchant and x.livemode = :livemode and x.status = 'paid'`,
  },
];

const AT_US = `(timestamptz 'epoch' + :cursorUs * interval '1 microsecond')`;

/** A branch's rows after the cursor, in (time, id) order, limited on its own index. */
function branchSql(b: Branch, rank: number, after: JournalCursor | undefined): string {
  // The tuple (time, rank, id) after the cursor's: the rank is a constant of the branch, so the
  // comparison is settled here and the branch's index serves the rest.
  let cursor = '';
  if (after)
    cursor =
      rank > after.rank
        ? `and ${b.at} >= ${AT_US}`
        : rank === after.rank
          ? `and (${b.at}, ${b.id}) > (${AT_US}, :cursorId)`
          : `and ${b.at} > ${AT_US}`;
  return `(select '${b.type}'::text as type, ${b.id} as id, ${b.at} as at, ${rank} as rank,
       ${b.cols.replace(/\s+/g, ' ')}
     from ${b.from}
       and ${b.at} >= :from and ${b.at} < :to ${cursor}
       and not exists (select 1 from journal_closed_entries j
                        where j.merchant_id = :merchant and j.livemode = :livemode
                          and j.source_type = '${b.type}' and j.source_id = ${b.id})
     order by ${b.at}, ${b.id} limit :limit)`;
}

const COLUMNS = ['reference', 'lines', 'vat', 'amount', 'fee', 'cash', 'parent'];

export interface ClosedEntryRow {
  id: number;
  period_id: string;
  source_type: JournalSourceType;
  source_id: string;
  occurred_at: Date;
  entry_date: string;
  reference: string | null;
  lines: { account: string; number: string; name: string; amount: number }[];
}

export interface ClosedPeriodRow {
  period_id: string;
  kind: 'two_month' | 'yearly';
  start_date: string;
  end_date: string;
  entry_count: number;
  debit: number;
  credit: number;
  closed_at: Date;
}

export interface AccountRow {
  role: string;
  number: string;
  name: string | null;
}

/** The journal's sources, closed entries, closed periods and the chart of accounts (decisions 0239, 0240). */
export function createJournalRepository(knex: Knex) {
  const scoped = (scope: Scope) => ({ merchant: scope.merchantId, livemode: scope.livemode });

  return {
    /**
     * Sources that no closed period holds, with `from <= time < to`, in (time, kind, id) order after
     * the cursor, `limit` at most: a journal of any size is read a page at a time.
     */
    async page(
      db: Knex | Knex.Transaction,
      scope: Scope,
      range: { from: Date; to: Date },
      opts: { after?: JournalCursor | undefined; limit: number },
    ): Promise<JournalSourceRow[]> {
      const sql = `select d.*, (extract(epoch from d.at) * 1000000)::bigint as at_us from (
          ${BRANCHES.map((b, i) => branchSql(b, i, opts.after)).join('\n union all \n')}
        ) d (type, id, at, rank, ${COLUMNS.join(', ')}) order by d.at, d.rank, d.id limit :limit`;
      const result = await db.raw<{ rows: JournalSourceRow[] }>(sql, {
        ...scoped(scope),
        from: range.from,
        to: range.to,
        limit: opts.limit,
        ...(opts.after && { cursorUs: opts.after.at_us, cursorId: opts.after.id }),
      });
      return result.rows;
    },

    /** A closed period's entries as copied when it closed, in the order they were, after `afterId`. */
    async closedPage(
      scope: Scope,
      periodId: string,
      opts: { afterId?: number | undefined; limit: number },
    ): Promise<ClosedEntryRow[]> {
      const result = await knex.raw<{ rows: ClosedEntryRow[] }>(
        `select id, period_id, source_type, source_id, occurred_at, entry_date::text as entry_date, reference, lines
           from journal_closed_entries
          where merchant_id = :merchant and livemode = :livemode and period_id = :period and id > :after
          order by id limit :limit`,
        { ...scoped(scope), period: periodId, after: opts.afterId ?? 0, limit: opts.limit },
      );
      return result.rows;
    },

    async closedPeriods(db: Knex | Knex.Transaction, scope: Scope): Promise<ClosedPeriodRow[]> {
      const result = await db.raw<{ rows: ClosedPeriodRow[] }>(
        `select period_id, kind, start_date::text as start_date, end_date::text as end_date, entry_count,
                debit, credit, closed_at
           from books_closed_periods where merchant_id = :merchant and livemode = :livemode
          order by start_date`,
        scoped(scope),
      );
      return result.rows;
    },

    /** Takes the merchant's books row for the rest of the transaction: one close at a time. */
    async lockBooks(trx: Knex.Transaction, scope: Scope): Promise<void> {
      await trx.raw(
        `insert into books (merchant_id, livemode) values (:merchant, :livemode) on conflict do nothing`,
        scoped(scope),
      );
      await trx.raw(
        `select 1 from books where merchant_id = :merchant and livemode = :livemode for update`,
        scoped(scope),
      );
    },

    /** Copies entries into a closing period; a source some period holds already is skipped. */
    async insertClosed(
      trx: Knex.Transaction,
      scope: Scope,
      periodId: string,
      rows: Omit<ClosedEntryRow, 'id' | 'period_id'>[],
    ): Promise<number> {
      if (rows.length === 0) return 0;
      const result = await trx.raw<{ rowCount: number }>(
        `insert into journal_closed_entries
           (merchant_id, livemode, period_id, source_type, source_id, occurred_at, entry_date, reference, lines)
         select :merchant, :livemode, :period, r.source_type, r.source_id, r.occurred_at, r.entry_date,
                r.reference, r.lines
           from jsonb_to_recordset(:rows::jsonb) as r (source_type text, source_id text, occurred_at timestamptz,
                entry_date date, reference text, lines jsonb, ord int)
          order by r.ord
         on conflict (merchant_id, livemode, source_type, source_id) do nothing`,
        {
          ...scoped(scope),
          period: periodId,
          rows: JSON.stringify(rows.map((r, ord) => ({ ...r, ord }))),
        },
      );
      return result.rowCount;
    },

    async recordClosed(
      trx: Knex.Transaction,
      scope: Scope,
      p: Omit<ClosedPeriodRow, 'closed_at' | 'entry_count' | 'debit' | 'credit'>,
    ): Promise<ClosedPeriodRow> {
      const result = await trx.raw<{ rows: ClosedPeriodRow[] }>(
        `with totals as (
           select count(*)::int as n,
                  coalesce(sum((select coalesce(sum(greatest((l->>'amount')::bigint, 0)), 0)
                                  from jsonb_array_elements(e.lines) l)), 0)::bigint as debit,
                  coalesce(sum((select coalesce(sum(greatest(-(l->>'amount')::bigint, 0)), 0)
                                  from jsonb_array_elements(e.lines) l)), 0)::bigint as credit
             from journal_closed_entries e
            where e.merchant_id = :merchant and e.livemode = :livemode and e.period_id = :period
         ), inserted as (
           insert into books_closed_periods
             (merchant_id, livemode, period_id, kind, start_date, end_date, entry_count, debit, credit)
           select :merchant, :livemode, :period, :kind, :start, :end, n, debit, credit from totals
           returning period_id, kind, start_date::text as start_date, end_date::text as end_date,
                     entry_count, debit, credit, closed_at
         ), books as (
           update books set closed_through = :end
            where merchant_id = :merchant and livemode = :livemode
         )
         select * from inserted`,
        {
          ...scoped(scope),
          period: p.period_id,
          kind: p.kind,
          start: p.start_date,
          end: p.end_date,
        },
      );
      return result.rows[0]!;
    },

    async accounts(scope: Scope): Promise<AccountRow[]> {
      return knex('books_accounts')
        .where({ merchant_id: scope.merchantId, livemode: scope.livemode })
        .select('role', 'number', 'name');
    },

    async setAccounts(scope: Scope, rows: AccountRow[]): Promise<void> {
      if (rows.length === 0) return;
      await knex('books_accounts')
        .insert(
          rows.map((r) => ({
            merchant_id: scope.merchantId,
            livemode: scope.livemode,
            role: r.role,
            number: r.number,
            name: r.name,
            updated_at: knex.fn.now(),
          })),
        )
        .onConflict(['merchant_id', 'livemode', 'role'])
        .merge(['number', 'name', 'updated_at']);
    },

    transaction: <T>(fn: (trx: Knex.Transaction) => Promise<T>) => knex.transaction(fn),
  };
}

export type JournalRepository = ReturnType<typeof createJournalRepository>;
