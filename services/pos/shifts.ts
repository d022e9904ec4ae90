import type { Scope } from '../../domain/scope';
import { ConflictError } from '../../domain/errors';
import { ID_PREFIX, newId } from '../../domain/ids';
import type { PosActor } from './access';
import { createReportTotals } from './report-totals';
import { presentShift } from './shift-object';
import { createTillLookups, noShift, type TillDeps } from './till-deps';

/**
 * The drawer shift: opened with a float, closed with the cash counted. Both run on the locked
 * register row, so a register never has two open shifts and a close sees every sale of its shift.
 */
export function createShifts(deps: Pick<TillDeps, 'knex' | 'pos' | 'access'>) {
  const { pos, access } = deps;
  const { registerOr404 } = createTillLookups(deps);
  const totalsOf = createReportTotals(deps);
  return {
    async currentShift(scope: Scope, actor: PosActor, registerId: string) {
      await access.assertEnabled(scope);
      const reg = await registerOr404(scope, actor, registerId);
      const shift = await pos.shifts.openOf(scope, reg.id);
      if (!shift) throw noShift();
      return presentShift(shift);
    },

    async openShift(
      scope: Scope,
      actor: PosActor,
      registerId: string,
      body: { opening_float: number; staff?: string | undefined },
    ) {
      await access.assertEnabled(scope);
      const reg = await registerOr404(scope, actor, registerId);
      const staff = await access.actingStaff(scope, actor, body.staff);
      return deps.knex.transaction(async (trx) => {
        await pos.registers.lock(scope, reg.id, trx);
        if (await pos.shifts.openOf(scope, reg.id, trx))
          throw new ConflictError('The register already has an open shift', 'pos_shift_open');
        return presentShift(
          await pos.shifts.insert(
            scope,
            {
              id: newId(ID_PREFIX.posShift),
              register_id: reg.id,
              opened_by: staff.id,
              opening_float: body.opening_float,
            },
            trx,
          ),
        );
      });
    },

    /** Closes the shift with the cash counted; expected cash is computed, the difference kept. */
    async closeShift(
      scope: Scope,
      actor: PosActor,
      registerId: string,
      body: { counted_cash: number; staff?: string | undefined },
    ) {
      await access.assertEnabled(scope);
      const reg = await registerOr404(scope, actor, registerId);
      const staff = await access.actingStaff(scope, actor, body.staff);
      return deps.knex.transaction(async (trx) => {
        await pos.registers.lock(scope, reg.id, trx);
        const shift = await pos.shifts.openOf(scope, reg.id, trx);
        if (!shift) throw noShift();
        const { totals } = await totalsOf(scope, reg.id, trx, shift.id);
        const expected = totals.cash.expected;
        return presentShift(
          await pos.shifts.close(
            scope,
            shift.id,
            { closed_by: staff.id, counted_cash: body.counted_cash, expected_cash: expected },
            trx,
          ),
        );
      });
    },
  };
}
