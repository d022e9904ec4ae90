import type { Db, Knex } from './knex';
import type { Scope } from '../domain/scope';
import { posTable, tenant } from './pos-tables';

export interface PosShiftRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  register_id: string;
  opened_by: string;
  opening_float: number;
  opened_at: Date;
  closed_by: string | null;
  closed_at: Date | null;
  counted_cash: number | null;
  expected_cash: number | null;
  z_report_id: string | null;
}

export interface PosDrawerEventRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  shift_id: string;
  staff_id: string;
  kind: 'paid_in' | 'paid_out' | 'no_sale';
  amount: number;
  reason: string | null;
  created_at: Date;
}

/** Drawer shifts (a float in, cash counted out) and the drawer's movements within a shift. */
export function createPosShiftRepository(db: Knex) {
  const table = posTable(db, 'pos_shifts');
  return {
    /** The register's open shift: at most one, the one without `closed_at`. */
    openOf: (scope: Scope, registerId: string, trx: Db = db) =>
      trx<PosShiftRow>('pos_shifts')
        .where({ ...tenant(scope), register_id: registerId })
        .whereNull('closed_at')
        .first(),
    async insert(
      scope: Scope,
      row: Pick<PosShiftRow, 'id' | 'register_id' | 'opened_by' | 'opening_float'>,
      trx: Db,
    ) {
      const [out] = await trx<PosShiftRow>('pos_shifts')
        .insert({ ...row, ...tenant(scope) })
        .returning('*');
      return out!;
    },
    find: (scope: Scope, id: string, trx: Db = db) => table.one<PosShiftRow>(scope, id, trx),
    async close(
      scope: Scope,
      id: string,
      patch: { closed_by: string; counted_cash: number; expected_cash: number },
      trx: Db,
    ) {
      const [out] = await trx<PosShiftRow>('pos_shifts')
        .where({ ...tenant(scope), id })
        .update({ ...patch, closed_at: trx.fn.now() as unknown as Date })
        .returning('*');
      return out!;
    },
    async insertDrawerEvent(
      scope: Scope,
      row: Omit<PosDrawerEventRow, 'merchant_id' | 'livemode' | 'created_at'>,
      trx: Db,
    ) {
      const [out] = await trx<PosDrawerEventRow>('pos_drawer_events')
        .insert({ ...row, ...tenant(scope) })
        .returning('*');
      return out!;
    },
  };
}

export type PosShiftRepository = ReturnType<typeof createPosShiftRepository>;
