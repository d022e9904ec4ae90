import type { Db, Knex } from './knex';
import type { Scope } from '../domain/scope';
import type { PageOptions } from './tenant';
import { posTable, tenant } from './pos-tables';

export interface PosStaffRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  name: string;
  role: 'cashier' | 'manager';
  pin_hash: string;
  failed_pin_attempts: number;
  locked_until: Date | null;
  active: boolean;
  created_at: Date;
}

/** The people at the tills, each with their own PIN (decision 0127) and a role. */
export function createPosStaffRepository(db: Knex) {
  const table = posTable(db, 'pos_staff');
  return {
    otherMode: table.otherMode,
    async create(scope: Scope, row: Pick<PosStaffRow, 'id' | 'name' | 'role' | 'pin_hash'>) {
      const [out] = await db<PosStaffRow>('pos_staff')
        .insert({ ...row, ...tenant(scope) })
        .returning('*');
      return out!;
    },
    find: (scope: Scope, id: string, trx: Db = db) => table.one<PosStaffRow>(scope, id, trx),
    lock: (scope: Scope, id: string, trx: Knex.Transaction) =>
      trx<PosStaffRow>('pos_staff')
        .where({ ...tenant(scope), id })
        .forUpdate()
        .first(),
    list: (scope: Scope, opts: PageOptions) => table.page<PosStaffRow>(scope, opts),
    async update(scope: Scope, id: string, patch: Partial<PosStaffRow>, trx: Db = db) {
      const [out] = await trx<PosStaffRow>('pos_staff')
        .where({ ...tenant(scope), id })
        .update(patch)
        .returning('*');
      return out!;
    },
    async names(scope: Scope, ids: string[], trx: Db = db): Promise<Map<string, string>> {
      const rows: { id: string; name: string }[] = await trx('pos_staff')
        .where(tenant(scope))
        .whereIn('id', ids)
        .select('id', 'name');
      return new Map(rows.map((r) => [r.id, r.name]));
    },
  };
}

export type PosStaffRepository = ReturnType<typeof createPosStaffRepository>;
