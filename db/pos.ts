import type { Db, Knex } from './knex';
import type { Scope } from '../domain/scope';
import type { VatRate } from '../domain/vat';
import type { PosPaymentMethod } from '../domain/pos';
import { pageByCreated } from './pagination';
import { existsInOtherMode, type PageOptions } from './tenant';

export interface PosRegisterRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  name: string;
  location: string | null;
  next_sale_number: number;
  created_at: Date;
}

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

export interface PosSaleLineRow {
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
  z_report_id: string | null;
  created_at: Date;
}

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

export interface PosZReportRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  register_id: string;
  number: number;
  period_start: Date | null;
  period_end: Date;
  grand_total: number;
  report: Record<string, unknown>;
  made_by: string;
  created_at: Date;
}

interface PairingCodeRow {
  code_hash: string;
  merchant_id: string;
  livemode: boolean;
  register_id: string;
  expires_at: Date;
  used_at: Date | null;
}

interface AnnouncementRow {
  registration_code: string;
  url: string;
  device_type: PosTerminalRow['device_type'];
  expires_at: Date;
}

const tenant = (scope: Scope) => ({ merchant_id: scope.merchantId, livemode: scope.livemode });

/** The point of sale's tables (issue 19); every query is scoped by merchant and mode. */
export function createPosRepository(db: Knex) {
  const page = <T extends { id: string }>(table: string, scope: Scope, opts: PageOptions, where = {}) =>
    pageByCreated<T>(db(table).where({ ...tenant(scope), ...where }), table, scope, opts);
  const one = <T>(table: string, scope: Scope, id: string, trx: Db = db) =>
    trx(table)
      .where({ ...tenant(scope), id })
      .first() as Promise<T | undefined>;

  return {
    otherMode: (table: string, scope: Scope, id: string) => existsInOtherMode(db, table, scope, id),

    // Registers ---------------------------------------------------------------------------------
    async createRegister(scope: Scope, row: { id: string; name: string; location: string | null }) {
      const [out] = await db<PosRegisterRow>('pos_registers')
        .insert({ ...row, ...tenant(scope) })
        .returning('*');
      return out!;
    },
    register: (scope: Scope, id: string, trx: Db = db) =>
      one<PosRegisterRow>('pos_registers', scope, id, trx),
    lockRegister: (scope: Scope, id: string, trx: Knex.Transaction) =>
      trx<PosRegisterRow>('pos_registers')
        .where({ ...tenant(scope), id })
        .forUpdate()
        .first(),
    registers: (scope: Scope, opts: PageOptions) => page<PosRegisterRow>('pos_registers', scope, opts),
    async takeSaleNumber(id: string, trx: Knex.Transaction): Promise<number> {
      const [row] = await trx<PosRegisterRow>('pos_registers')
        .where({ id })
        .increment('next_sale_number', 1)
        .returning('next_sale_number');
      return row!.next_sale_number - 1;
    },

    // Pairing codes and devices -----------------------------------------------------------------
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
    async insertDevice(
      row: Omit<PosDeviceRow, 'created_at' | 'revoked_at' | 'signed_in_staff_id' | 'signed_in_at'>,
      trx: Db = db,
    ) {
      const [out] = await trx<PosDeviceRow>('pos_devices').insert(row).returning('*');
      return out!;
    },
    deviceBySecretHash: (hash: string) =>
      db<PosDeviceRow>('pos_devices').where({ secret_hash: hash }).whereNull('revoked_at').first(),
    device: (scope: Scope, id: string, trx: Db = db) => one<PosDeviceRow>('pos_devices', scope, id, trx),
    setSignedIn: (scope: Scope, id: string, staffId: string | null, trx: Db = db) =>
      trx('pos_devices')
        .where({ ...tenant(scope), id })
        .update({ signed_in_staff_id: staffId, signed_in_at: staffId ? trx.fn.now() : null }),

    // Staff --------------------------------------------------------------------------------------
    async createStaff(scope: Scope, row: Pick<PosStaffRow, 'id' | 'name' | 'role' | 'pin_hash'>) {
      const [out] = await db<PosStaffRow>('pos_staff')
        .insert({ ...row, ...tenant(scope) })
        .returning('*');
      return out!;
    },
    staff: (scope: Scope, id: string, trx: Db = db) => one<PosStaffRow>('pos_staff', scope, id, trx),
    lockStaff: (scope: Scope, id: string, trx: Knex.Transaction) =>
      trx<PosStaffRow>('pos_staff')
        .where({ ...tenant(scope), id })
        .forUpdate()
        .first(),
    staffList: (scope: Scope, opts: PageOptions) => page<PosStaffRow>('pos_staff', scope, opts),
    async updateStaff(scope: Scope, id: string, patch: Partial<PosStaffRow>, trx: Db = db) {
      const [out] = await trx<PosStaffRow>('pos_staff')
        .where({ ...tenant(scope), id })
        .update(patch)
        .returning('*');
      return out!;
    },
    async staffNames(scope: Scope, ids: string[], trx: Db = db): Promise<Map<string, string>> {
      const rows: { id: string; name: string }[] = await trx('pos_staff')
        .where(tenant(scope))
        .whereIn('id', ids)
        .select('id', 'name');
      return new Map(rows.map((r) => [r.id, r.name]));
    },

    // Terminals ---------------------------------------------------------------------------------
    async announceTerminal(row: {
      registration_code: string;
      url: string;
      device_type: string;
      expires_at: Date;
    }) {
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
    async insertTerminal(
      scope: Scope,
      row: Omit<PosTerminalRow, 'merchant_id' | 'livemode' | 'created_at'>,
      trx: Db,
    ) {
      const [out] = await trx<PosTerminalRow>('pos_terminals')
        .insert({ ...row, ...tenant(scope) })
        .returning('*');
      return out!;
    },
    terminal: (scope: Scope, id: string, trx: Db = db) =>
      one<PosTerminalRow>('pos_terminals', scope, id, trx),
    terminals: (scope: Scope, opts: PageOptions & { registerId?: string }) =>
      page<PosTerminalRow>(
        'pos_terminals',
        scope,
        opts,
        opts.registerId ? { register_id: opts.registerId } : {},
      ),
    terminalOfRegister: (scope: Scope, registerId: string, trx: Db = db) =>
      trx<PosTerminalRow>('pos_terminals')
        .where({ ...tenant(scope), register_id: registerId })
        .orderBy('created_at', 'desc')
        .first(),

    // Shifts and the drawer ---------------------------------------------------------------------
    openShift: (scope: Scope, registerId: string, trx: Db = db) =>
      trx<PosShiftRow>('pos_shifts')
        .where({ ...tenant(scope), register_id: registerId })
        .whereNull('closed_at')
        .first(),
    async insertShift(
      scope: Scope,
      row: Pick<PosShiftRow, 'id' | 'register_id' | 'opened_by' | 'opening_float'>,
      trx: Db,
    ) {
      const [out] = await trx<PosShiftRow>('pos_shifts')
        .insert({ ...row, ...tenant(scope) })
        .returning('*');
      return out!;
    },
    shift: (scope: Scope, id: string, trx: Db = db) => one<PosShiftRow>('pos_shifts', scope, id, trx),
    async closeShift(
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

    // Sales and refunds -------------------------------------------------------------------------
    async insertSale(
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
    sale: (scope: Scope, id: string, trx: Db = db) => one<PosSaleRow>('pos_sales', scope, id, trx),
    lockSale: (scope: Scope, id: string, trx: Knex.Transaction) =>
      trx<PosSaleRow>('pos_sales')
        .where({ ...tenant(scope), id })
        .forUpdate()
        .first(),
    sales: (scope: Scope, opts: PageOptions & { registerId?: string }) =>
      page<PosSaleRow>('pos_sales', scope, opts, opts.registerId ? { register_id: opts.registerId } : {}),
    async saleParts(saleIds: string[], trx: Db = db) {
      const lines: PosSaleLineRow[] = await trx<PosSaleLineRow>('pos_sale_lines')
        .whereIn('sale_id', saleIds)
        .orderBy(['sale_id', 'position']);
      const payments: PosSalePaymentRow[] = await trx<PosSalePaymentRow>('pos_sale_payments')
        .whereIn('sale_id', saleIds)
        .orderBy(['sale_id', 'position']);
      return { lines, payments };
    },
    findRefundByKey: (saleId: string, key: string, trx: Db) =>
      trx<PosRefundRow>('pos_refunds').where({ sale_id: saleId, idempotency_key: key }).first(),
    async insertRefund(
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
    refundsOfSale: (saleId: string, trx: Db = db) =>
      trx<PosRefundRow>('pos_refunds').where({ sale_id: saleId }).orderBy('created_at'),

    // Reports -----------------------------------------------------------------------------------
    /** What the register has done since its last Z-report (sales, refunds, shifts, drawer events). */
    async unreported(scope: Scope, registerId: string, trx: Db = db) {
      const where = { ...tenant(scope), register_id: registerId, z_report_id: null };
      const sales: PosSaleRow[] = await trx<PosSaleRow>('pos_sales').where(where).orderBy('number');
      const refunds: PosRefundRow[] = await trx<PosRefundRow>('pos_refunds')
        .where(where)
        .orderBy('created_at');
      const shifts: PosShiftRow[] = await trx<PosShiftRow>('pos_shifts').where(where).orderBy('opened_at');
      const drawer: PosDrawerEventRow[] = shifts.length
        ? await trx<PosDrawerEventRow>('pos_drawer_events')
            .whereIn(
              'shift_id',
              shifts.map((s) => s.id),
            )
            .orderBy('created_at')
        : [];
      return { sales, refunds, shifts, drawer };
    },
    lastZReport: (scope: Scope, registerId: string, trx: Db = db) =>
      trx<PosZReportRow>('pos_z_reports')
        .where({ ...tenant(scope), register_id: registerId })
        .orderBy('number', 'desc')
        .first(),
    async insertZReport(
      scope: Scope,
      row: Omit<PosZReportRow, 'merchant_id' | 'livemode' | 'created_at'>,
      trx: Knex.Transaction,
    ) {
      const [out] = await trx<PosZReportRow>('pos_z_reports')
        .insert({ ...row, report: JSON.stringify(row.report) as never, ...tenant(scope) })
        .returning('*');
      const where = { ...tenant(scope), register_id: row.register_id, z_report_id: null };
      for (const table of ['pos_sales', 'pos_refunds', 'pos_shifts'])
        await trx(table).where(where).update({ z_report_id: row.id });
      return out!;
    },
    zReport: (scope: Scope, id: string) => one<PosZReportRow>('pos_z_reports', scope, id),
    zReports: (scope: Scope, opts: PageOptions & { registerId?: string }) =>
      page<PosZReportRow>(
        'pos_z_reports',
        scope,
        opts,
        opts.registerId ? { register_id: opts.registerId } : {},
      ),
  };
}

export type PosRepository = ReturnType<typeof createPosRepository>;
