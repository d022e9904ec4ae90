import type { Db, Knex } from './knex';
import type { Scope } from '../domain/scope';
import type { VatRate } from '../domain/vat';
import type { VatTreatment } from '../domain/vat-category';
import type { PosPaymentMethod } from '../domain/pos';
import type { PageOptions } from './tenant';
import { posTable, tenant } from './pos-tables';

export interface PosSaleLineRow extends VatTreatment {
  sale_id: string;
  position: number;
  product_id: string | null;
  variant_id: string | null;
  description: string;
  quantity: number;
  unit_amount: number;
  discount_amount: number;
  vat_rate: VatRate;
  amount: number;
}

export interface PosSalePaymentRow {
  sale_id: string;
  position: number;
  method: PosPaymentMethod;
  amount: number;
  tendered: number | null;
  payment_intent_id: string | null;
}

export interface PosSaleRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  register_id: string;
  shift_id: string;
  staff_id: string;
  number: number;
  total: number;
  discount: number;
  change_due: number;
  amount_refunded: number;
  email: string | null;
  /** The business buyer the till named, whose sale is invoiced (decision 0235). */
  customer_id: string | null;
  z_report_id: string | null;
  created_at: Date;
}

/** Sales with their lines and payment parts, written together in the sale's transaction. */
export function createPosSaleRepository(db: Knex) {
  const table = posTable(db, 'pos_sales');
  return {
    otherMode: table.otherMode,
    async insert(
      scope: Scope,
      sale: Omit<PosSaleRow, 'merchant_id' | 'livemode' | 'created_at' | 'amount_refunded' | 'z_report_id'>,
      lines: Omit<PosSaleLineRow, 'sale_id'>[],
      payments: Omit<PosSalePaymentRow, 'sale_id'>[],
      trx: Knex.Transaction,
    ) {
      const [row] = await trx<PosSaleRow>('pos_sales')
        .insert({ ...sale, ...tenant(scope) })
        .returning('*');
      await trx('pos_sale_lines').insert(lines.map((l) => ({ ...l, sale_id: sale.id })));
      await trx('pos_sale_payments').insert(payments.map((p) => ({ ...p, sale_id: sale.id })));
      return row!;
    },
    find: (scope: Scope, id: string, trx: Db = db) => table.one<PosSaleRow>(scope, id, trx),
    lock: (scope: Scope, id: string, trx: Knex.Transaction) =>
      trx<PosSaleRow>('pos_sales')
        .where({ ...tenant(scope), id })
        .forUpdate()
        .first(),
    list: (scope: Scope, opts: PageOptions & { registerId?: string }) =>
      table.page<PosSaleRow>(scope, opts, opts.registerId ? { register_id: opts.registerId } : {}),
    /** The lines and payment parts of these sales, each in its sale's order. */
    async parts(saleIds: string[], trx: Db = db) {
      const lines: PosSaleLineRow[] = await trx<PosSaleLineRow>('pos_sale_lines')
        .whereIn('sale_id', saleIds)
        .orderBy(['sale_id', 'position']);
      const payments: PosSalePaymentRow[] = await trx<PosSalePaymentRow>('pos_sale_payments')
        .whereIn('sale_id', saleIds)
        .orderBy(['sale_id', 'position']);
      return { lines, payments };
    },
  };
}

export type PosSaleRepository = ReturnType<typeof createPosSaleRepository>;
