import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { PosRepositories } from '../../db/pos-repositories';
import type { PosStaffRow } from '../../db/pos-staff';
import { createMerchantRepository } from '../../db/merchants';
import { assertPosEnabled, featuresOf } from '../../domain/capabilities';
import { InvalidRequestError, PermissionError } from '../../domain/errors';
import { randomBase62 } from '../../domain/ids';
import { missingReference } from '../lookup';
import { signedInStaffId } from '../../domain/pos';

/**
 * Who calls a POS route: the merchant's API key (any register, naming the staff member acting), or
 * a paired till's device credential (its own register only, acting as the staff member signed in
 * on it). Decision 0126.
 */
export type PosActor = { kind: 'api_key' } | { kind: 'device'; deviceId: string; registerId: string };

const CREDENTIAL_SHAPE = /^skpos_(test|live)_[0-9A-Za-z]{40}$/;

export const newDeviceCredential = (livemode: boolean) =>
  `skpos_${livemode ? 'live' : 'test'}_${randomBase62(40)}`;
export const secretHash = (secret: string) => createHash('sha256').update(secret).digest('hex');
export const isDeviceCredential = (secret: string) => CREDENTIAL_SHAPE.test(secret);
export const newTerminalSecret = () => randomBytes(32).toString('base64url');

/** The POS guard (spec §7) and the rules of who may act, shared by every POS operation. */
export function createPosAccess(deps: { knex: Knex; pos: Pick<PosRepositories, 'devices' | 'staff'> }) {
  const merchants = createMerchantRepository(deps.knex);

  return {
    /** 403 `pos_not_enabled` while `features.pos` is false; checked before anything is read or written. */
    async assertEnabled(scope: Scope): Promise<void> {
      const row = await merchants.findById(scope.merchantId);
      assertPosEnabled(featuresOf(row?.features));
    },

    /** The device a credential opens (not revoked), for the authentication middleware. */
    async device(secret: string) {
      if (!isDeviceCredential(secret)) return undefined;
      return deps.pos.devices.bySecretHash(secretHash(secret));
    },

    /** The active staff member signed in on a device, or null: the till app's PIN session (0150). */
    async signedInStaff(scope: Scope, deviceId: string): Promise<PosStaffRow | null> {
      const device = await deps.pos.devices.find(scope, deviceId);
      const staffId = device && !device.revoked_at ? signedInStaffId(device) : null;
      if (!staffId) return null;
      const staff = await deps.pos.staff.find(scope, staffId);
      return staff?.active ? staff : null;
    },

    /** A device may act only on its own register: another register is answered as not found. */
    assertRegister(actor: PosActor, registerId: string): void {
      if (actor.kind === 'device' && actor.registerId !== registerId)
        throw new PermissionError('This device is paired to another register', 'pos_device_wrong_register');
    },

    /** Refuses what only the merchant's key may do (set-up: registers, staff, pairing, terminals). */
    assertApiKey(actor: PosActor): void {
      if (actor.kind !== 'api_key')
        throw new PermissionError(
          'A till may not do this; use the merchant’s API key',
          'pos_device_not_allowed',
        );
    },

    /**
     * The staff member acting: a device's signed-in person, or with an API key the `staff` named in
     * the request. `manager` for what a cashier may not do (refunds, paid out, Z-report; 0127).
     */
    async actingStaff(
      scope: Scope,
      actor: PosActor,
      named: string | undefined,
      need: 'cashier' | 'manager' = 'cashier',
      trx: Knex.Transaction | Knex = deps.knex,
    ): Promise<PosStaffRow> {
      let staff: PosStaffRow | undefined;
      if (actor.kind === 'device') {
        const device = await deps.pos.devices.find(scope, actor.deviceId, trx);
        const staffId = device ? signedInStaffId(device) : null;
        if (!staffId)
          throw new PermissionError(
            'No staff member is signed in on this till (a PIN sign-in lasts 12 hours)',
            'pos_staff_not_signed_in',
          );
        staff = await deps.pos.staff.find(scope, staffId, trx);
      } else {
        if (named === undefined)
          throw new InvalidRequestError(
            'Name the staff member acting (`staff`) when calling with an API key',
            {
              code: 'parameter_missing',
              param: 'staff',
            },
          );
        staff = await deps.pos.staff.find(scope, named, trx);
        if (!staff) throw missingReference('pos.staff', named, 'staff');
      }
      if (!staff?.active) throw new PermissionError('This staff member is not active', 'pos_staff_inactive');
      if (need === 'manager' && staff.role !== 'manager')
        throw new PermissionError('Only a manager may do this', 'pos_manager_required');
      return staff;
    },
  };
}

export type PosAccess = ReturnType<typeof createPosAccess>;
