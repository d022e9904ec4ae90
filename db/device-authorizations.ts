import type { Db } from './knex';
import { newId, ID_PREFIX } from '../domain/ids';
import { generateDeviceCode, generateUserCode, sha256 } from '../domain/device-codes';

export type DeviceAuthorizationStatus = 'pending' | 'approved' | 'denied' | 'consumed';

export interface DeviceAuthorizationRow {
  id: string;
  device_code_hash: string;
  user_code: string;
  client_name: string;
  status: DeviceAuthorizationStatus;
  poll_interval: number;
  expires_at: Date;
  last_polled_at: Date | null;
  merchant_id: string | null;
  decided_by: string | null;
  decided_at: Date | null;
  api_key_id: string | null;
  created_at: Date;
}

/** A row with the database clock, so expiry and polling speed are judged by one clock. */
export type DeviceAuthorizationAt = DeviceAuthorizationRow & { db_now: Date };

const UNIQUE_VIOLATION = '23505';

/**
 * Device authorizations (RFC 8628). Not tenant data until approved: a request belongs to nobody
 * while pending, then to the merchant of the user who approved it.
 */
export function createDeviceAuthorizationRepository(db: Db) {
  return {
    /** A new pending request; the device code is returned once and stored as its hash. */
    async create(
      input: { clientName: string; pollInterval: number; expiresInSeconds: number },
      trx: Db = db,
    ): Promise<{ row: DeviceAuthorizationRow; deviceCode: string }> {
      for (let attempt = 1; ; attempt++) {
        const deviceCode = generateDeviceCode();
        try {
          const [row] = await trx<DeviceAuthorizationRow>('device_authorizations')
            .insert({
              id: newId(ID_PREFIX.deviceAuthorization),
              device_code_hash: sha256(deviceCode),
              user_code: generateUserCode(),
              client_name: input.clientName,
              status: 'pending',
              poll_interval: input.pollInterval,
              expires_at: trx.raw(`now() + ? * interval '1 second'`, [input.expiresInSeconds]) as never,
            })
            .returning('*');
          return { row: row!, deviceCode };
        } catch (err) {
          // Two pending requests drew the same user code: draw again.
          if ((err as { code?: string }).code !== UNIQUE_VIOLATION || attempt >= 5) throw err;
        }
      }
    },

    async findByDeviceCodeForUpdate(deviceCode: string, trx: Db): Promise<DeviceAuthorizationAt | undefined> {
      return trx('device_authorizations')
        .where({ device_code_hash: sha256(deviceCode) })
        .forUpdate()
        .first<DeviceAuthorizationAt | undefined>('*', trx.raw('now() as db_now'));
    },

    /** The pending request with this user code (expired or not: the caller tells the user which). */
    async findPendingByUserCode(
      userCode: string,
      trx: Db = db,
      opts: { forUpdate?: boolean } = {},
    ): Promise<DeviceAuthorizationAt | undefined> {
      const q = trx('device_authorizations').where({ user_code: userCode, status: 'pending' });
      if (opts.forUpdate) q.forUpdate();
      return q.first<DeviceAuthorizationAt | undefined>('*', trx.raw('now() as db_now'));
    },

    async update(
      id: string,
      values: Partial<Omit<DeviceAuthorizationRow, 'id' | 'device_code_hash' | 'created_at'>>,
      trx: Db = db,
    ): Promise<void> {
      await trx('device_authorizations').where({ id }).update(values);
    },
  };
}

export type DeviceAuthorizationRepository = ReturnType<typeof createDeviceAuthorizationRepository>;
