import type { Db, Knex } from './knex';
import type { Scope } from '../domain/scope';
import type { PageOptions } from './tenant';
import { posTable, tenant } from './pos-tables';

export interface PosTerminalRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  register_id: string;
  label: string | null;
  device_type: 'simulated_reader' | 'tap_to_pay';
  url: string;
  secret: string;
  created_at: Date;
}

interface AnnouncementRow {
  registration_code: string;
  url: string;
  device_type: PosTerminalRow['device_type'];
  expires_at: Date;
}

/**
 * Card terminals paired to a register, and the registration codes terminals announce before they are
 * paired (decision 0131). Announcements belong to no merchant until a register takes one.
 */
export function createPosTerminalRepository(db: Knex) {
  const table = posTable(db, 'pos_terminals');
  return {
    otherMode: table.otherMode,
    async announce(row: { registration_code: string; url: string; device_type: string; expires_at: Date }) {
      await db('pos_terminal_announcements')
        .insert(row)
        .onConflict('registration_code')
        .merge(['url', 'device_type', 'expires_at']);
    },
    /** Takes a live announcement by its code once (the code cannot pair a second register). */
    async takeAnnouncement(code: string, trx: Knex.Transaction) {
      const [row] = await trx<AnnouncementRow>('pos_terminal_announcements')
        .where({ registration_code: code })
        .where('expires_at', '>', trx.fn.now())
        .delete()
        .returning('*');
      return row;
    },
    async insert(
      scope: Scope,
      row: Omit<PosTerminalRow, 'merchant_id' | 'livemode' | 'created_at'>,
      trx: Db,
    ) {
      const [out] = await trx<PosTerminalRow>('pos_terminals')
        .insert({ ...row, ...tenant(scope) })
        .returning('*');
      return out!;
    },
    find: (scope: Scope, id: string, trx: Db = db) => table.one<PosTerminalRow>(scope, id, trx),
    list: (scope: Scope, opts: PageOptions & { registerId?: string }) =>
      table.page<PosTerminalRow>(scope, opts, opts.registerId ? { register_id: opts.registerId } : {}),
    ofRegister: (scope: Scope, registerId: string, trx: Db = db) =>
      trx<PosTerminalRow>('pos_terminals')
        .where({ ...tenant(scope), register_id: registerId })
        .orderBy('created_at', 'desc')
        .first(),
  };
}

export type PosTerminalRepository = ReturnType<typeof createPosTerminalRepository>;
