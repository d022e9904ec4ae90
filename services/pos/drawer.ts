import type { Scope } from '../../domain/scope';
import { InvalidRequestError } from '../../domain/errors';
import { ID_PREFIX, newId } from '../../domain/ids';
import type { PosActor } from './access';
import { presentDrawerEvent } from './drawer-event-object';
import { createTillLookups, noShift, type TillDeps } from './till-deps';

/** Cash moved in or out of the drawer outside a sale; the shift's expected cash counts each one. */
export function createDrawer(deps: Pick<TillDeps, 'knex' | 'pos' | 'access'>) {
  const { pos, access } = deps;
  const { registerOr404 } = createTillLookups(deps);
  return {
    /** Paid in, paid out (manager), or the drawer opened without a sale. */
    async drawerEvent(
      scope: Scope,
      actor: PosActor,
      registerId: string,
      body: {
        kind: 'paid_in' | 'paid_out' | 'no_sale';
        amount?: number | undefined;
        reason?: string | undefined;
        staff?: string | undefined;
      },
    ) {
      await access.assertEnabled(scope);
      const reg = await registerOr404(scope, actor, registerId);
      const staff = await access.actingStaff(
        scope,
        actor,
        body.staff,
        body.kind === 'paid_out' ? 'manager' : 'cashier',
      );
      const amount = body.kind === 'no_sale' ? 0 : (body.amount ?? 0);
      if (body.kind !== 'no_sale' && amount < 1)
        throw new InvalidRequestError('Paid in and paid out need an amount', {
          code: 'parameter_missing',
          param: 'amount',
        });
      const shift = await pos.shifts.openOf(scope, reg.id);
      if (!shift) throw noShift();
      const row = await pos.shifts.insertDrawerEvent(
        scope,
        {
          id: newId(ID_PREFIX.posDrawerEvent),
          shift_id: shift.id,
          staff_id: staff.id,
          kind: body.kind,
          amount,
          reason: body.reason ?? null,
        },
        deps.knex,
      );
      return presentDrawerEvent(row);
    },
  };
}
