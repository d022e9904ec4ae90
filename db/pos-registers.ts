import type { Db, Knex } from './knex';
import type { Scope } from '../domain/scope';
import type { PageOptions } from './tenant';
import { posTable, tenant } from './pos-tables';

export interface PosRegisterRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  name: string;
  location: string | null;
  next_sale_number: number;
  created_at: Date;
}

/** Registers (tills at a location); the locked register row orders its sales and Z-reports. */
export function createPosRegisterRepository(db: Knex) {
  const table = posTable(db, 'pos_registers');
  return {
    otherMode: table.otherMode,
    async create(scope: Scope, row: { id: string; name: string; location: string | null }) {
      const [out] = await db<PosRegisterRow>('pos_registers')
        .insert({ ...row, ...tenant(scope) })
        .returning('*');
      return out!;
    },
    find: (scope: Scope, id: string, trx: Db = db) => table.one<PosRegisterRow>(scope, id, trx),
    lock: (scope: Scope, id: string, trx: Knex.Transaction) =>
      trx<PosRegisterRow>('pos_registers')
        .where({ ...tenant(scope), id })
        .forUpdate()
        .first(),
    list: (scope: Scope, opts: PageOptions) => table.page<PosRegisterRow>(scope, opts),
    async takeSaleNumber(id: string, trx: Knex.Transaction): Promise<number> {
      const [row] = await trx<PosRegisterRow>('pos_registers')
        .where({ id })
        .increment('next_sale_number', 1)
        .returning('next_sale_number');
      return row!.next_sale_number - 1;
    },
  };
}

export type PosRegisterRepository = ReturnType<typeof createPosRegisterRepository>;
