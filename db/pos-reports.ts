import type { Db, Knex } from './knex';
import type { Scope } from '../domain/scope';
import type { PageOptions } from './tenant';
import type { PosSaleRow } from './pos-sales';
import type { PosRefundRow } from './pos-refunds';
import type { PosDrawerEventRow, PosShiftRow } from './pos-shifts';
import { posTable, tenant } from './pos-tables';

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

/**
 * What a register did since its last Z-report, and the Z-reports themselves: a Z-report stamps the
 * sales, refunds and shifts it covers, so each is counted in exactly one (decision 0128).
 */
export function createPosReportRepository(db: Knex) {
  const table = posTable(db, 'pos_z_reports');
  return {
    otherMode: table.otherMode,
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
    zReport: (scope: Scope, id: string) => table.one<PosZReportRow>(scope, id),
    zReports: (scope: Scope, opts: PageOptions & { registerId?: string }) =>
      table.page<PosZReportRow>(scope, opts, opts.registerId ? { register_id: opts.registerId } : {}),
  };
}

export type PosReportRepository = ReturnType<typeof createPosReportRepository>;
