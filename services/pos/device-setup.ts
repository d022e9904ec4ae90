import type { Scope } from '../../domain/scope';
import type { PosSetupDeps } from './pos-setup';
import { InvalidRequestError, PermissionError } from '../../domain/errors';
import { ID_PREFIX, newId } from '../../domain/ids';
import {
  normalizeCode,
  PAIRING_CODE_MINUTES,
  pairingCode,
  PIN_LOCKOUT,
  pinHash,
  samePinHash,
} from '../../domain/pos';
import { assertPosEnabled, featuresOf } from '../../domain/capabilities';
import { createMerchantRepository } from '../../db/merchants';
import { missingReference } from '../lookup';
import { findRegister } from './register-lookup';
import { newDeviceCredential, secretHash, type PosActor } from './access';
import { presentDevice, presentPairingCode } from './device-object';

/**
 * A till paired to a register by a single-use code, and the staff member signed in on it with their
 * PIN (decisions 0126 and 0127).
 */
export function createDeviceSetup(deps: Pick<PosSetupDeps, 'knex' | 'pos' | 'access' | 'pinKey'>) {
  const { pos, access } = deps;
  const register = (scope: Scope, id: string) => findRegister(pos, scope, id);
  const merchants = createMerchantRepository(deps.knex);

  return {
    /** A single-use code the till types to pair itself to the register (decision 0126). */
    async createPairingCode(scope: Scope, actor: PosActor, registerId: string) {
      await access.assertEnabled(scope);
      access.assertApiKey(actor);
      const row = await register(scope, registerId);
      const code = pairingCode();
      const expires = new Date(Date.now() + PAIRING_CODE_MINUTES * 60_000);
      await pos.devices.insertPairingCode(scope, {
        code_hash: secretHash(code),
        register_id: row.id,
        expires_at: expires,
      });
      return presentPairingCode(row.id, code, expires);
    },

    /**
     * The till's side of pairing, with no key: a valid code gives the device its own credential,
     * shown once. The code is used up whether or not the answer reaches the till.
     */
    async pairDevice(body: { pairing_code: string }) {
      return deps.knex.transaction(async (trx) => {
        const code = await pos.devices.usePairingCode(secretHash(normalizeCode(body.pairing_code)), trx);
        if (!code)
          throw new InvalidRequestError('This pairing code is unknown, used or expired', {
            code: 'pos_pairing_code_invalid',
            param: 'pairing_code',
          });
        const scope = { merchantId: code.merchant_id, livemode: code.livemode };
        const merchant = await merchants.findById(scope.merchantId, trx);
        assertPosEnabled(featuresOf(merchant?.features));
        const credential = newDeviceCredential(scope.livemode);
        const device = await pos.devices.insert(
          {
            id: newId(ID_PREFIX.posDevice),
            merchant_id: scope.merchantId,
            livemode: scope.livemode,
            register_id: code.register_id,
            secret_hash: secretHash(credential),
          },
          trx,
        );
        return presentDevice(device, credential);
      });
    },

    /**
     * A staff member signs in on a paired till with their PIN. After PIN_LOCKOUT.attempts wrong PINs
     * in a row the person is locked for PIN_LOCKOUT.minutes, even with the right PIN (decision 0127).
     */
    async signIn(scope: Scope, actor: PosActor, body: { staff: string; pin: string }) {
      await access.assertEnabled(scope);
      if (actor.kind !== 'device')
        throw new PermissionError('Staff PINs work only on a paired till', 'pos_device_required');
      const outcome = await deps.knex.transaction(async (trx) => {
        const staff = await pos.staff.lock(scope, body.staff, trx);
        if (!staff) throw missingReference('pos.staff', body.staff, 'staff');
        if (!staff.active) throw new PermissionError('This staff member is not active', 'pos_staff_inactive');
        if (staff.locked_until && staff.locked_until > new Date())
          return { ok: false as const, locked: true, staff };
        if (samePinHash(pinHash(deps.pinKey, scope, body.pin), staff.pin_hash)) {
          await pos.staff.update(scope, staff.id, { failed_pin_attempts: 0, locked_until: null }, trx);
          await pos.devices.setSignedIn(scope, actor.deviceId, staff.id, trx);
          return { ok: true as const, staff };
        }
        const failed = staff.failed_pin_attempts + 1;
        const lock = failed >= PIN_LOCKOUT.attempts;
        await pos.staff.update(
          scope,
          staff.id,
          lock
            ? { failed_pin_attempts: 0, locked_until: new Date(Date.now() + PIN_LOCKOUT.minutes * 60_000) }
            : { failed_pin_attempts: failed },
          trx,
        );
        return { ok: false as const, locked: lock, staff };
      });
      if (!outcome.ok)
        throw outcome.locked
          ? new PermissionError(
              `Too many wrong PINs: ${outcome.staff.name} is locked for ${PIN_LOCKOUT.minutes} minutes, or until a manager unlocks them`,
              'pos_staff_locked',
            )
          : new InvalidRequestError('Wrong PIN', { code: 'pos_pin_incorrect', param: 'pin' });
      const device = (await pos.devices.find(scope, actor.deviceId))!;
      return presentDevice(device);
    },
    async signOut(scope: Scope, actor: PosActor) {
      await access.assertEnabled(scope);
      if (actor.kind !== 'device') throw new PermissionError('Only a till signs out', 'pos_device_required');
      await pos.devices.setSignedIn(scope, actor.deviceId, null);
      return presentDevice((await pos.devices.find(scope, actor.deviceId))!);
    },
    async currentDevice(scope: Scope, actor: PosActor) {
      await access.assertEnabled(scope);
      if (actor.kind !== 'device')
        throw new PermissionError('Only a till has a device', 'pos_device_required');
      return presentDevice((await pos.devices.find(scope, actor.deviceId))!);
    },
  };
}
