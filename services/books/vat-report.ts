import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import { createMerchantRepository } from '../../db/merchants';
import {
  createVatDocumentRepository,
  type VatDocumentCursor,
  type VatDocumentRow,
} from '../../db/vat-documents';
import { createJournalRepository } from '../../db/journal';
import { booksPlacement } from '../../domain/books-period';
import { InvalidRequestError, NotFoundError } from '../../domain/errors';
import { missingReference } from '../lookup';
import {
  lastEndedVatPeriod,
  parseVatPeriod,
  type VatPeriod,
  type VatPeriodKind,
} from '../../domain/vat-period';
import {
  addFigures,
  documentFigures,
  posRefundDocument,
  posSaleDocument,
  ZERO_FIGURES,
  type VatFigures,
} from '../../domain/vat-report';
import type { VatBox } from '../../domain/vat-box';
import { csvRow } from '../../domain/csv';
import {
  presentVatDocument,
  presentVatPeriod,
  type VatReportDocumentObject,
  type VatReportObject,
} from './vat-report-object';

const PAGE = 1000;

/** A stored document's figures: the one computation the report, its drill-down and CSV share. */
export function figuresOf(row: VatDocumentRow, seller: { registered: boolean }): VatFigures {
  const lines = row.lines ?? [];
  switch (row.kind) {
    case 'invoice':
    case 'credit_note':
      return documentFigures(
        {
          sign: row.kind === 'invoice' ? 1 : -1,
          lines: lines.map((l) => ({
            vat_rate: l.vat_rate,
            vat_category: l.vat_category ?? null,
            net_amount: Number(l.net_amount),
          })),
          vat: (row.vat ?? []).map((v) => ({ rate: v.rate, vat_amount: Number(v.vat_amount) })),
        },
        seller,
      );
    case 'pos_sale':
      return documentFigures(
        posSaleDocument(
          lines.map((l) => ({
            vat_rate: l.vat_rate,
            vat_category: l.vat_category ?? null,
            amount: Number(l.amount),
          })),
        ),
        seller,
      );
    case 'pos_refund':
      return documentFigures(
        posRefundDocument(
          lines.map((l) => ({
            vat_rate: l.vat_rate,
            vat_category: l.vat_category ?? null,
            amount: Number(l.amount),
          })),
          row.amount ?? 0,
        ),
        seller,
      );
  }
}

/** Whether a document puts anything in this box (box D: any output VAT). */
function touches(f: VatFigures, box: VatBox | 'D'): boolean {
  return f[box] !== 0 || (box === 'D' && (f.vat_24 !== 0 || f.vat_11 !== 0));
}

/**
 * The VAT return's figures of a period (decision 0238): boxes A–D of RSK 10.01 and the sales outside
 * the return, from the period's invoices, credit notes, till sales and refunds, each of which can be
 * listed (`documents`) with its own figures, which add up to the report's.
 */
export function createVatReportService(deps: { knex: Knex }) {
  const docs = createVatDocumentRepository(deps.knex);
  const journal = createJournalRepository(deps.knex);
  const merchants = createMerchantRepository(deps.knex);

  async function sellerOf(scope: Scope) {
    const m = await merchants.findById(scope.merchantId);
    if (!m) throw new NotFoundError('No such merchant');
    const kind = m.vat_period;
    return { registered: m.vat_number !== null, vatNumber: m.vat_number, kind };
  }

  function periodOf(value: string | undefined, kind: VatPeriodKind, now: Date): VatPeriod {
    if (value === undefined) return lastEndedVatPeriod(kind, now.toISOString().slice(0, 10));
    const parsed = parseVatPeriod(value);
    if (!parsed.ok) throw new InvalidRequestError(parsed.message, { param: 'period' });
    return parsed.period;
  }

  /** Every document of the period with its figures, a page at a time. */
  async function* walk(
    scope: Scope,
    period: VatPeriod,
    seller: { registered: boolean },
    after?: VatDocumentCursor,
  ) {
    // Placed as the journal is, so the two agree once the books close periods (decision 0240).
    const placement = booksPlacement(period, await journal.closedPeriods(deps.knex, scope));
    let cursor = after;
    for (;;) {
      const rows = await docs.page(scope, placement, { after: cursor, limit: PAGE });
      for (const row of rows) yield { row, figures: figuresOf(row, seller) };
      if (rows.length < PAGE) return;
      const last = rows[rows.length - 1]!;
      cursor = { at_us: Number(last.at_us), id: last.id };
    }
  }

  return {
    /** The report of `period` (the last ended one of the merchant's kind when none is named). */
    async report(scope: Scope, opts: { period?: string | undefined; now?: Date }): Promise<VatReportObject> {
      const seller = await sellerOf(scope);
      const period = periodOf(opts.period, seller.kind, opts.now ?? new Date());
      const boxes = { ...ZERO_FIGURES };
      const credits = { ...ZERO_FIGURES };
      const documents = { invoice: 0, credit_note: 0, pos_sale: 0, pos_refund: 0 };
      for await (const { row, figures } of walk(scope, period, seller)) {
        addFigures(boxes, figures);
        if (row.kind === 'credit_note' || row.kind === 'pos_refund') addFigures(credits, figures);
        documents[row.kind] += 1;
      }
      return {
        object: 'vat_report',
        livemode: scope.livemode,
        period: presentVatPeriod(period),
        vat_period: seller.kind,
        vat_number: seller.vatNumber,
        currency: 'isk',
        boxes,
        credits,
        documents,
      };
    },

    /** The documents behind a period's figures, or behind one box, oldest first, paged by id. */
    async documents(
      scope: Scope,
      opts: {
        period?: string | undefined;
        box?: VatBox | 'D' | undefined;
        limit: number;
        startingAfter?: string | undefined;
        now?: Date;
      },
    ): Promise<{ period: VatPeriod; data: VatReportDocumentObject[]; hasMore: boolean }> {
      const seller = await sellerOf(scope);
      const period = periodOf(opts.period, seller.kind, opts.now ?? new Date());
      let after: VatDocumentCursor | undefined;
      if (opts.startingAfter !== undefined) {
        after = await docs.position(scope, opts.startingAfter);
        if (!after) throw missingReference('document', opts.startingAfter, 'starting_after');
      }
      const data: VatReportDocumentObject[] = [];
      for await (const { row, figures } of walk(scope, period, seller, after)) {
        if (opts.box !== undefined && !touches(figures, opts.box)) continue;
        if (data.length === opts.limit) return { period, data, hasMore: true };
        data.push(presentVatDocument(row, figures));
      }
      return { period, data, hasMore: false };
    },

    /** The period's documents and their figures as CSV, a chunk per page (decision 0232's cells). */
    async *csv(scope: Scope, opts: { period?: string | undefined; now?: Date }): AsyncGenerator<string> {
      const seller = await sellerOf(scope);
      const period = periodOf(opts.period, seller.kind, opts.now ?? new Date());
      const head = [
        'type',
        'id',
        'number',
        'date',
        'parent',
        'A',
        'B',
        'C',
        'D',
        'vat_24',
        'vat_11',
        'out_of_scope',
      ];
      yield csvRow(head);
      const total = { ...ZERO_FIGURES };
      let chunk = '';
      for await (const { row, figures: f } of walk(scope, period, seller)) {
        addFigures(total, f);
        const d = presentVatDocument(row, f);
        chunk += csvRow([
          d.type,
          d.id,
          d.number,
          d.date,
          d.parent,
          f.A,
          f.B,
          f.C,
          f.D,
          f.vat_24,
          f.vat_11,
          f.out_of_scope,
        ]);
        if (chunk.length > 64_000) {
          yield chunk;
          chunk = '';
        }
      }
      yield (
        chunk +
        csvRow([
          'total',
          period.id,
          null,
          period.due_date,
          null,
          total.A,
          total.B,
          total.C,
          total.D,
          total.vat_24,
          total.vat_11,
          total.out_of_scope,
        ])
      );
    },

    periodFor: async (scope: Scope, value?: string) =>
      periodOf(value, (await sellerOf(scope)).kind, new Date()),
  };
}

export type VatReportService = ReturnType<typeof createVatReportService>;
