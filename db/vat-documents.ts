import type { Knex } from './knex';
import type { Scope } from '../domain/scope';
import type { VatRate } from '../domain/vat';
import type { VatCategory } from '../domain/vat-box';
import { sqlArgs } from './event-batch';
import type { BooksPlacement } from '../domain/books-period';

export type VatDocumentKind = 'invoice' | 'credit_note' | 'pos_sale' | 'pos_refund';

/**
 * Where a document sits in the (time, id) order: its time in whole microseconds, as stored (a JS
 * Date keeps milliseconds, and a cursor that rounded would give a page's last row again).
 */
export interface VatDocumentCursor {
  at_us: number;
  id: string;
}

/** A document of a VAT period as stored; its figures are computed in domain/vat-report.ts. */
export interface VatDocumentRow {
  kind: VatDocumentKind;
  id: string;
  number: string | null;
  at: Date;
  at_us?: number;
  /** Invoices and credit notes: their lines; till sales and refunds: the sale's lines. */
  lines: { vat_rate: VatRate; vat_category?: VatCategory | null; net_amount?: number; amount: number }[];
  /** Invoices and credit notes: VAT per rate as printed on them. */
  vat: { rate: VatRate; vat_amount: number }[] | null;
  /** A till refund's amount. */
  amount: number | null;
  /** The invoice a credit note credits, the sale a till refund refunds. */
  parent: string | null;
}

/**
 * The documents a VAT period counts (decision 0238): invoices and credit notes by the day they
 * were issued, till sales and refunds by the day they were made; a till sale's invoice and a till
 * refund's credit note (decision 0235) are the same sale and refund again, counted once, as the
 * till sale and refund; once the books close periods, placed as the journal is (decision 0240); in (time, id) order from a cursor,
 * a page at a time, so a period of any size is read in bounded memory.
 */
export function createVatDocumentRepository(knex: Knex) {
  return {
    async page(
      scope: Scope,
      placement: BooksPlacement,
      opts: { after?: VatDocumentCursor | undefined; limit: number },
    ): Promise<VatDocumentRow[]> {
      const after = opts.after ?? { at_us: -1, id: '' };
      // A closed period counts what its close copied; an open one what no close took (decision 0240).
      const where = (type: string, at: string, id: string) =>
        'closed' in placement
          ? `exists (select 1 from journal_closed_entries j where j.merchant_id = :merchant
               and j.livemode = :livemode and j.period_id = :period and j.source_type = '${type}'
               and j.source_id = ${id})`
          : `${at} >= :from and ${at} < :to and not exists (select 1 from journal_closed_entries j
               where j.merchant_id = :merchant and j.livemode = :livemode and j.source_type = '${type}'
                 and j.source_id = ${id})`;
      // Each branch is ordered and limited on its own index so the planner merges four short runs.
      const branch = (sql: string) =>
        `(${sql} and (t.at, t.id) > (timestamptz 'epoch' + :afterUs * interval '1 microsecond', :afterId::text)
           order by t.at, t.id limit :limit)`;
      const result = await knex.raw<{ rows: VatDocumentRow[] }>(
        `select d.*, (extract(epoch from d.at) * 1000000)::bigint as at_us from (
           ${branch(`select * from (select 'invoice'::text as kind, i.id, i.number, i.issued_at as at, i.lines,
                i.vat, null::bigint as amount, null::text as parent
              from invoices i where i.merchant_id = :merchant and i.livemode = :livemode and i.pos_sale_id is null
                and ${where('invoice', 'i.issued_at', 'i.id')}) t where true`)}
           union all
           ${branch(`select * from (select 'credit_note'::text as kind, c.id, c.number, c.issued_at as at, c.lines,
                c.vat, null::bigint as amount, c.invoice_id as parent
              from credit_notes c where c.merchant_id = :merchant and c.livemode = :livemode
                and c.pos_refund_id is null and ${where('credit_note', 'c.issued_at', 'c.id')}) t where true`)}
           union all
           ${branch(`select * from (select 'pos_sale'::text as kind, s.id, s.number::text as number, s.created_at as at,
                (select jsonb_agg(jsonb_build_object('vat_rate', l.vat_rate, 'vat_category', l.vat_category, 'amount', l.amount) order by l.position)
                   from pos_sale_lines l where l.sale_id = s.id) as lines,
                null::jsonb as vat, null::bigint as amount, null::text as parent
              from pos_sales s where s.merchant_id = :merchant and s.livemode = :livemode
                and ${where('pos_sale', 's.created_at', 's.id')}) t where true`)}
           union all
           ${branch(`select * from (select 'pos_refund'::text as kind, r.id, null::text as number, r.created_at as at,
                (select jsonb_agg(jsonb_build_object('vat_rate', l.vat_rate, 'vat_category', l.vat_category, 'amount', l.amount) order by l.position)
                   from pos_sale_lines l where l.sale_id = r.sale_id) as lines,
                null::jsonb as vat, r.amount, r.sale_id as parent
              from pos_refunds r where r.merchant_id = :merchant and r.livemode = :livemode
                and ${where('pos_refund', 'r.created_at', 'r.id')}) t where true`)}
         ) d order by d.at, d.id limit :limit`,
        {
          merchant: scope.merchantId,
          livemode: scope.livemode,
          ...('closed' in placement
            ? { period: placement.closed }
            : { from: placement.live.from, to: placement.live.to }),
          afterUs: after.at_us,
          afterId: after.id,
          limit: opts.limit,
        },
      );
      return result.rows.map((r) => ({ ...r, amount: r.amount === null ? null : Number(r.amount) }));
    },

    /** Where a document of this scope sits in the (time, id) order: a drill-down's cursor. */
    async position(scope: Scope, id: string): Promise<VatDocumentCursor | undefined> {
      const result = await knex.raw<{ rows: VatDocumentCursor[] }>(
        `select (extract(epoch from at) * 1000000)::bigint as at_us, id from (
           select issued_at as at, id from invoices where id = ? and merchant_id = ? and livemode = ?
           union all select issued_at, id from credit_notes where id = ? and merchant_id = ? and livemode = ?
           union all select created_at, id from pos_sales where id = ? and merchant_id = ? and livemode = ?
           union all select created_at, id from pos_refunds where id = ? and merchant_id = ? and livemode = ?
         ) p`,
        sqlArgs(
          ...[id, scope.merchantId, scope.livemode],
          ...[id, scope.merchantId, scope.livemode],
          ...[id, scope.merchantId, scope.livemode],
          ...[id, scope.merchantId, scope.livemode],
        ),
      );
      return result.rows[0];
    },
  };
}

export type VatDocumentRepository = ReturnType<typeof createVatDocumentRepository>;
