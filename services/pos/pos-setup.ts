import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { PosRepositories } from '../../db/pos-repositories';
import type { PosTerminal } from '../../adapters/terminal/pos-terminal';
import { TerminalPairingError, TerminalUnavailableError } from '../../adapters/terminal/pos-terminal';
import { isUniqueViolation, type PageOptions } from '../../db/tenant';
import {
  ConflictError,
  InvalidRequestError,
  PermissionError,
  ServiceUnavailableError,
} from '../../domain/errors';
import { ID_PREFIX, newId } from '../../domain/ids';
import {
  normalizeCode,
  PAIRING_CODE_MINUTES,
  pairingCode,
  PIN_LOCKOUT,
  pinHash,
  samePinHash,
  TERMINAL_ANNOUNCEMENT_HOURS,
} from '../../domain/pos';
import { assertPosEnabled, featuresOf } from '../../domain/capabilities';
import { createMerchantRepository } from '../../db/merchants';
import { findOr404, missingReference } from '../lookup';
import { newDeviceCredential, newTerminalSecret, secretHash, type PosAccess, type PosActor } from './access';
import { presentDevice, presentPairingCode } from './device-object';
import { presentRegister } from './register-object';
import { presentStaff } from './staff-object';
import { presentTerminal, presentTerminalAnnouncement } from './terminal-object';

export interface PosSetupDeps {
  knex: Knex;
  pos: PosRepositories;
  access: PosAccess;
  terminal: PosTerminal;
  /** The server key PIN hashes are made under (decision 0127). */
  pinKey: string;
}

/**
 * Registers, the tills and card terminals paired to them (decisions 0126 and 0131), and staff with
 * their own PINs (decision 0127).
 */
export function createPosSetupService(deps: PosSetupDeps) {
  const { pos, access } = deps;
  const merchants = createMerchantRepository(deps.knex);
  const register = (scope: Scope, id: string) =>
    findOr404(
      'pos.register',
      scope,
      id,
      () => pos.registers.find(scope, id),
      () => pos.registers.otherMode(scope, id),
    );
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
    async createRegister(
      scope: Scope,
      actor: PosActor,
      body: { name: string; location?: string | null | undefined },
    ) {
      await access.assertEnabled(scope);
      access.assertApiKey(actor);
      return presentRegister(
        await pos.registers.create(scope, {
          id: newId(ID_PREFIX.posRegister),
          name: body.name,
          location: body.location ?? null,
        }),
      );
    },
    async listRegisters(scope: Scope, opts: PageOptions) {
      await access.assertEnabled(scope);
      const page = await pos.registers.list(scope, opts);
      return { data: page.data.map(presentRegister), hasMore: page.hasMore };
    },
    async retrieveRegister(scope: Scope, actor: PosActor, id: string) {
      await access.assertEnabled(scope);
      const row = await register(scope, id);
      access.assertRegister(actor, row.id);
      return presentRegister(row);
    },

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

    /** A terminal shows its registration code and tells Skil where it listens (no key; decision 0131). */
    async announceTerminal(body: {
      registration_code: string;
      url: string;
      device_type: 'simulated_reader' | 'tap_to_pay';
    }) {
      const expires = new Date(Date.now() + TERMINAL_ANNOUNCEMENT_HOURS * 3_600_000);
      const code = normalizeCode(body.registration_code);
      await pos.terminals.announce({
        registration_code: code,
        url: body.url,
        device_type: body.device_type,
        expires_at: expires,
      });
      return presentTerminalAnnouncement(code, expires);
    },

    /** Pairs the terminal showing `registration_code` to a register, the Stripe Terminal way. */
    async pairTerminal(
      scope: Scope,
      actor: PosActor,
      body: { register: string; registration_code: string; label?: string | null | undefined },
    ) {
      await access.assertEnabled(scope);
      access.assertApiKey(actor);
      const reg = await pos.registers.find(scope, body.register);
      if (!reg) throw missingReference('pos.register', body.register, 'register');
      const code = normalizeCode(body.registration_code);
      return deps.knex.transaction(async (trx) => {
        const found = await pos.terminals.takeAnnouncement(code, trx);
        if (!found)
          throw new InvalidRequestError('No terminal shows this registration code', {
            code: 'pos_registration_code_invalid',
            param: 'registration_code',
          });
        if (scope.livemode && found.device_type !== 'tap_to_pay' && !found.url.startsWith('https://'))
          throw new ConflictError(
            'A live terminal must be reached over https',
            'pos_terminal_insecure',
            'registration_code',
          );
        const id = newId(ID_PREFIX.posTerminal);
        const secret = newTerminalSecret();
        try {
          await deps.terminal.pair(found.url, { registration_code: code, terminal: id, secret });
        } catch (err) {
          if (err instanceof TerminalPairingError)
            throw new InvalidRequestError(`The terminal refused to pair: ${err.message}`, {
              code: 'pos_registration_code_invalid',
              param: 'registration_code',
            });
          if (err instanceof TerminalUnavailableError)
            throw new ServiceUnavailableError(
              'The terminal did not answer; try again',
              'pos_terminal_unavailable',
            );
          throw err;
        }
        return presentTerminal(
          await pos.terminals.insert(
            scope,
            {
              id,
              register_id: reg.id,
              label: body.label ?? null,
              device_type: found.device_type,
              url: found.url,
              secret,
            },
            trx,
          ),
        );
      });
    },
    async listTerminals(scope: Scope, opts: PageOptions & { registerId?: string | undefined }) {
      await access.assertEnabled(scope);
      if (opts.registerId !== undefined && !(await pos.registers.find(scope, opts.registerId)))
        throw missingReference('pos.register', opts.registerId, 'register');
      const page = await pos.terminals.list(scope, {
        ...opts,
        ...(opts.registerId !== undefined && { registerId: opts.registerId }),
      });
      return { data: page.data.map(presentTerminal), hasMore: page.hasMore };
    },
    async retrieveTerminal(scope: Scope, id: string) {
      await access.assertEnabled(scope);
      return presentTerminal(
        await findOr404(
          'pos.terminal',
          scope,
          id,
          () => pos.terminals.find(scope, id),
          () => pos.terminals.otherMode(scope, id),
        ),
      );
    },
  };
}

export type PosSetupService = ReturnType<typeof createPosSetupService>;
