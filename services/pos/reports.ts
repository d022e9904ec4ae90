import type { Scope } from '../../domain/scope';
import type { PageOptions } from '../../db/tenant';
import { ConflictError } from '../../domain/errors';
import { ID_PREFIX, newId } from '../../domain/ids';
import { findOr404, missingReference } from '../lookup';
import type { PosActor } from './access';
import { createReportTotals } from './report-totals';
import { presentXReport, presentZReport } from './report-object';
import { createTillLookups, type TillDeps } from './till-deps';

/**
 * The X-report (running figures, nothing closed) and the Z-report that closes a register's day. A
 * Z-report runs on the locked register row, so report numbers are consecutive and it sees every sale
 * made before it; once made it never changes (decision 0128).
 */
export function createReports(deps: Pick<TillDeps, 'knex' | 'pos' | 'access'>) {
  const { pos, access } = deps;
  const { registerOr404 } = createTillLookups(deps);
  const totalsOf = createReportTotals(deps);
  return {
    /** The running figures since the last Z-report; nothing is closed or reset. */
    async xReport(scope: Scope, actor: PosActor, registerId: string) {
      await access.assertEnabled(scope);
      const reg = await registerOr404(scope, actor, registerId);
      const { totals, last } = await totalsOf(scope, reg.id);
      return presentXReport(reg.id, totals, last, new Date());
    },

    /** Closes the register's day: the next consecutive Z-report, immutable once made (decision 0128). */
    async makeZReport(
      scope: Scope,
      actor: PosActor,
      registerId: string,
      body: { staff?: string | undefined },
    ) {
      await access.assertEnabled(scope);
      const reg = await registerOr404(scope, actor, registerId);
      const staff = await access.actingStaff(scope, actor, body.staff, 'manager');
      return deps.knex.transaction(async (trx) => {
        await pos.registers.lock(scope, reg.id, trx);
        if (await pos.shifts.openOf(scope, reg.id, trx))
          throw new ConflictError(
            'Close the open shift (count the drawer) before the Z-report',
            'pos_shift_open',
          );
        const { totals, last } = await totalsOf(scope, reg.id, trx);
        const row = await pos.reports.insertZReport(
          scope,
          {
            id: newId(ID_PREFIX.posZReport),
            register_id: reg.id,
            number: (last?.number ?? 0) + 1,
            period_start: last?.period_end ?? null,
            period_end: new Date(),
            grand_total: (last?.grand_total ?? 0) + totals.net_sales,
            report: totals as unknown as Record<string, unknown>,
            made_by: staff.id,
          },
          trx,
        );
        return presentZReport(row);
      });
    },

    async retrieveZReport(scope: Scope, actor: PosActor, id: string) {
      await access.assertEnabled(scope);
      const row = await findOr404(
        'pos.z_report',
        scope,
        id,
        () => pos.reports.zReport(scope, id),
        () => pos.reports.otherMode(scope, id),
      );
      access.assertRegister(actor, row.register_id);
      return presentZReport(row);
    },

    async listZReports(
      scope: Scope,
      actor: PosActor,
      opts: PageOptions & { registerId?: string | undefined },
    ) {
      await access.assertEnabled(scope);
      const registerId = actor.kind === 'device' ? actor.registerId : opts.registerId;
      if (registerId !== undefined && !(await pos.registers.find(scope, registerId)))
        throw missingReference('pos.register', registerId, 'register');
      const page = await pos.reports.zReports(scope, {
        ...opts,
        ...(registerId !== undefined && { registerId }),
      });
      return { data: page.data.map(presentZReport), hasMore: page.hasMore };
    },
  };
}
