import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import { reportTotals } from '../../domain/pos';
import type { TillDeps } from './till-deps';

/**
 * A fresh report source: what the register did since its last Z-report (or in one shift of it), and
 * that last Z-report. Closing a shift, the X-report and the Z-report all count the same way.
 */
export function createReportTotals(deps: Pick<TillDeps, 'knex' | 'pos'>) {
  const { pos } = deps;
  return async function totalsOf(
    scope: Scope,
    registerId: string,
    trx: Knex.Transaction | Knex = deps.knex,
    shiftId?: string,
  ) {
    const all = await pos.reports.unreported(scope, registerId, trx);
    const mine = <T extends { shift_id: string }>(rows: T[]) =>
      shiftId ? rows.filter((r) => r.shift_id === shiftId) : rows;
    const src = {
      sales: mine(all.sales),
      refunds: mine(all.refunds),
      drawer: mine(all.drawer),
      shifts: shiftId ? all.shifts.filter((s) => s.id === shiftId) : all.shifts,
    };
    const { lines, payments } = await pos.sales.parts(
      src.sales.map((s) => s.id),
      trx,
    );
    const staffIds = [
      ...new Set([...src.sales.map((s) => s.staff_id), ...src.refunds.map((r) => r.staff_id)]),
    ];
    const totals = reportTotals({
      sales: src.sales.map((s) => ({
        id: s.id,
        staff_id: s.staff_id,
        total: s.total,
        discount: s.discount,
        lines: lines.filter((l) => l.sale_id === s.id),
        payments: payments.filter((p) => p.sale_id === s.id),
      })),
      refunds: src.refunds,
      drawer: src.drawer,
      shifts: src.shifts,
      staffNames: await pos.staff.names(scope, staffIds, trx),
    });
    const last = await pos.reports.lastZReport(scope, registerId, trx);
    return { totals, last };
  };
}
