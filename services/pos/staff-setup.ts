import type { Scope } from '../../domain/scope';
import type { PosSetupDeps } from './pos-setup';
import { isUniqueViolation, type PageOptions } from '../../db/tenant';
import { InvalidRequestError } from '../../domain/errors';
import { ID_PREFIX, newId } from '../../domain/ids';
import { pinHash } from '../../domain/pos';
import { findOr404 } from '../lookup';
import type { PosActor } from './access';
import { presentStaff } from './staff-object';

/**
 * Staff at the tills, each with their own PIN (no two share one) and a role (decision 0127).
 */
export function createStaffSetup(deps: Pick<PosSetupDeps, 'pos' | 'access' | 'pinKey'>) {
  const { pos, access } = deps;
  const staffOr404 = (scope: Scope, id: string) =>
    findOr404(
      'pos.staff',
      scope,
      id,
      () => pos.staff.find(scope, id),
      () => pos.staff.otherMode(scope, id),
    );

  async function uniquePin<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (isUniqueViolation(err, 'pos_staff_merchant_id_livemode_pin_hash_key'))
        throw new InvalidRequestError('Another staff member has this PIN; each person needs their own', {
          code: 'pos_pin_taken',
          param: 'pin',
        });
      throw err;
    }
  }

  return {
    async createStaff(
      scope: Scope,
      actor: PosActor,
      body: { name: string; role: 'cashier' | 'manager'; pin: string },
    ) {
      await access.assertEnabled(scope);
      access.assertApiKey(actor);
      return uniquePin(async () =>
        presentStaff(
          await pos.staff.create(scope, {
            id: newId(ID_PREFIX.posStaff),
            name: body.name,
            role: body.role,
            pin_hash: pinHash(deps.pinKey, scope, body.pin),
          }),
        ),
      );
    },
    async listStaff(scope: Scope, opts: PageOptions) {
      await access.assertEnabled(scope);
      const page = await pos.staff.list(scope, opts);
      return { data: page.data.map(presentStaff), hasMore: page.hasMore };
    },
    async retrieveStaff(scope: Scope, id: string) {
      await access.assertEnabled(scope);
      return presentStaff(await staffOr404(scope, id));
    },
    /** Renames, changes the role or PIN, deactivates, or (`unlock`) lifts a PIN lockout. */
    async updateStaff(
      scope: Scope,
      actor: PosActor,
      id: string,
      body: {
        name?: string | undefined;
        role?: 'cashier' | 'manager' | undefined;
        pin?: string | undefined;
        active?: boolean | undefined;
        unlock?: boolean | undefined;
      },
    ) {
      await access.assertEnabled(scope);
      access.assertApiKey(actor);
      await staffOr404(scope, id);
      return uniquePin(async () =>
        presentStaff(
          await pos.staff.update(scope, id, {
            ...(body.name !== undefined && { name: body.name }),
            ...(body.role !== undefined && { role: body.role }),
            ...(body.active !== undefined && { active: body.active }),
            ...(body.pin !== undefined && { pin_hash: pinHash(deps.pinKey, scope, body.pin) }),
            ...((body.unlock === true || body.pin !== undefined) && {
              failed_pin_attempts: 0,
              locked_until: null,
            }),
          }),
        ),
      );
    },
  };
}
