import type { Db, Knex } from './knex';
import type { Scope } from '../domain/scope';
import { posTable, tenant } from './pos-tables';

export interface PosDeviceRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  register_id: string;
  secret_hash: string;
  signed_in_staff_id: string | null;
  /** When the signed-in person gave their PIN: the PIN session's start (decision 0150). */
  signed_in_at: Date | null;
  created_at: Date;
  revoked_at: Date | null;
}

interface PairingCodeRow {
  code_hash: string;
  merchant_id: string;
  livemode: boolean;
  register_id: string;
  expires_at: Date;
  used_at: Date | null;
}

/** Tills paired to a register, and the single-use pairing codes that pair them (decision 0126). */
export function createPosDeviceRepository(db: Knex) {
  const table = posTable(db, 'pos_devices');
  return {
    insertPairingCode: (scope: Scope, row: { code_hash: string; register_id: string; expires_at: Date }) =>
      db('pos_pairing_codes').insert({ ...row, ...tenant(scope) }),
    /** Uses a pairing code once: the row it used, or undefined for an unknown, used or expired code. */
    async usePairingCode(codeHash: string, trx: Knex.Transaction) {
      const [row] = await trx<PairingCodeRow>('pos_pairing_codes')
        .where({ code_hash: codeHash })
        .whereNull('used_at')
        .where('expires_at', '>', trx.fn.now())
        .update({ used_at: trx.fn.now() as unknown as Date })
        .returning('*');
      return row;
    },
    async insert(
      row: Omit<PosDeviceRow, 'created_at' | 'revoked_at' | 'signed_in_staff_id' | 'signed_in_at'>,
      trx: Db = db,
    ) {
      const [out] = await trx<PosDeviceRow>('pos_devices').insert(row).returning('*');
      return out!;
    },
    bySecretHash: (hash: string) =>
      db<PosDeviceRow>('pos_devices').where({ secret_hash: hash }).whereNull('revoked_at').first(),
    find: (scope: Scope, id: string, trx: Db = db) => table.one<PosDeviceRow>(scope, id, trx),
    setSignedIn: (scope: Scope, id: string, staffId: string | null, trx: Db = db) =>
      trx('pos_devices')
        .where({ ...tenant(scope), id })
        .update({ signed_in_staff_id: staffId, signed_in_at: staffId ? trx.fn.now() : null }),
  };
}

export type PosDeviceRepository = ReturnType<typeof createPosDeviceRepository>;
