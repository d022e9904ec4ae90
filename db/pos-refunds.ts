import type { Db, Knex } from './knex';
import type { Scope } from '../domain/scope';
import type { PosPaymentMethod } from '../domain/pos';
import { tenant } from './pos-tables';

export interface PosRefundRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  sale_id: string;
  register_id: string;
  shift_id: string;
  staff_id: string;
  method: PosPaymentMethod;
  amount: number;
  refund_id: string | null;
  idempotency_key: string;
  z_report_id: string | null;
  created_at: Date;
}

/** Refunds of a sale, to cash or card; each one raises the sale's `amount_refunded` in its transaction. */
export function createPosRefundRepository(db: Knex) {
  return {
    findByKey: (saleId: string, key: string, trx: Db) =>
      trx<PosRefundRow>('pos_refunds').where({ sale_id: saleId, idempotency_key: key }).first(),
    async insert(
      scope: Scope,
      row: Omit<PosRefundRow, 'merchant_id' | 'livemode' | 'created_at' | 'z_report_id'>,
      trx: Knex.Transaction,
    ) {
      const [out] = await trx<PosRefundRow>('pos_refunds')
        .insert({ ...row, ...tenant(scope) })
        .returning('*');
      await trx('pos_sales').where({ id: row.sale_id }).increment('amount_refunded', row.amount);
      return out!;
    },
    ofSale: (saleId: string, trx: Db = db) =>
      trx<PosRefundRow>('pos_refunds').where({ sale_id: saleId }).orderBy('created_at'),
  };
}

export type PosRefundRepository = ReturnType<typeof createPosRefundRepository>;
