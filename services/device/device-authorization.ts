import type { Knex } from '../../db/knex';
import type { UserRow } from '../../db/users';
import { createApiKeyRepository } from '../../db/api-keys';
import {
  createDeviceAuthorizationRepository,
  type DeviceAuthorizationAt,
  type DeviceAuthorizationRow,
} from '../../db/device-authorizations';
import { formatUserCode } from '../../domain/device-codes';
import { ApiError, InvalidRequestError } from '../../domain/errors';
import { presentDeviceAuthorization, type DeviceTokenObject } from './device-authorization-object';

/**
 * Device authorization (spec §4.2, §5.4; RFC 8628): a CLI or agent asks for a code, a signed-in
 * merchant user approves it in the browser, and the next poll receives a new test-mode key, once.
 */

/** RFC 8628 §3.2 defaults: poll every 5 s (DEVICE_POLL_INTERVAL_SECONDS); the request lives 15 minutes. */
export const DEVICE_POLL_INTERVAL_SECONDS = 5;
export const DEVICE_EXPIRES_IN_SECONDS = 15 * 60;
/** RFC 8628 §3.5: each slow_down adds 5 s to the interval. */
export const SLOW_DOWN_STEP_SECONDS = 5;

/** Token-endpoint errors: 400 with the RFC error name as `code` (RFC 8628 §3.5, RFC 6749 §5.2). */
export class DeviceTokenError extends ApiError {
  constructor(
    code: 'authorization_pending' | 'slow_down' | 'access_denied' | 'expired_token' | 'invalid_grant',
    message: string,
    /** For slow_down: the interval to keep from now on, sent as Retry-After too. */
    readonly retryAfterSeconds?: number,
  ) {
    super(400, 'invalid_request_error', message, code, code === 'invalid_grant' ? 'device_code' : undefined);
  }
}

export type DeviceTokenResult = DeviceTokenObject;

/** What the verification page shows about a request. */
export type DeviceLookup =
  { state: 'pending'; row: DeviceAuthorizationRow; userCode: string } | { state: 'expired' | 'unknown' };

function expired(row: DeviceAuthorizationAt): boolean {
  return row.db_now.getTime() >= row.expires_at.getTime();
}

export function createDeviceService(
  knex: Knex,
  opts: { publicBaseUrl: string; pollIntervalSeconds?: number },
) {
  const requests = createDeviceAuthorizationRepository(knex);

  return {
    async authorize(clientName: string) {
      const { row, deviceCode } = await requests.create({
        clientName,
        pollInterval: opts.pollIntervalSeconds ?? DEVICE_POLL_INTERVAL_SECONDS,
        expiresInSeconds: DEVICE_EXPIRES_IN_SECONDS,
      });
      return presentDeviceAuthorization(row, deviceCode, {
        publicBaseUrl: opts.publicBaseUrl,
        expiresInSeconds: DEVICE_EXPIRES_IN_SECONDS,
      });
    },

    /**
     * One poll. Concurrent polls of one code are serialised by a row lock, so an approved request
     * yields exactly one key, to exactly one poll; the key's secret is never stored.
     */
    async poll(deviceCode: string): Promise<DeviceTokenResult> {
      // Slow-down and pending answers are errors to the client but must commit their poll time,
      // so the transaction returns an outcome and the errors are thrown after it commits.
      type Outcome =
        | { kind: 'key'; token: DeviceTokenResult }
        | { kind: 'slow_down'; interval: number }
        | { kind: 'pending' };
      const outcome = await knex.transaction(async (trx): Promise<Outcome> => {
        const row = await requests.findByDeviceCodeForUpdate(deviceCode, trx);
        if (!row) throw new DeviceTokenError('invalid_grant', 'Unknown device_code');
        if (row.status === 'consumed') {
          throw new DeviceTokenError(
            'invalid_grant',
            'This device_code has already been used: the key was returned to an earlier poll. Start a new authorization.',
          );
        }
        if (row.status === 'denied') {
          throw new DeviceTokenError('access_denied', 'The user denied this authorization request');
        }
        if (expired(row)) {
          throw new DeviceTokenError(
            'expired_token',
            'The device_code has expired; start a new authorization',
          );
        }
        if (row.status === 'pending') {
          const sincePoll = row.last_polled_at
            ? (row.db_now.getTime() - row.last_polled_at.getTime()) / 1000
            : Infinity;
          if (sincePoll < row.poll_interval) {
            const interval = row.poll_interval + SLOW_DOWN_STEP_SECONDS;
            await requests.update(row.id, { last_polled_at: row.db_now, poll_interval: interval }, trx);
            return { kind: 'slow_down', interval };
          }
          await requests.update(row.id, { last_polled_at: row.db_now }, trx);
          return { kind: 'pending' };
        }
        const scope = { merchantId: row.merchant_id!, livemode: false };
        const { row: key, secret } = await createApiKeyRepository(trx).create(scope);
        await requests.update(
          row.id,
          { status: 'consumed', api_key_id: key.id, last_polled_at: row.db_now },
          trx,
        );
        return {
          kind: 'key',
          token: {
            object: 'device_token',
            api_key: secret,
            key_id: key.id,
            livemode: false,
            merchant_id: scope.merchantId,
          },
        };
      });
      if (outcome.kind === 'slow_down') {
        throw new DeviceTokenError(
          'slow_down',
          `Polling too fast: wait at least ${outcome.interval} seconds between polls`,
          outcome.interval,
        );
      }
      if (outcome.kind === 'pending') {
        throw new DeviceTokenError(
          'authorization_pending',
          'The user has not yet approved or denied this request',
        );
      }
      return outcome.token;
    },

    /** The request a user code names, for the verification page. */
    async lookup(userCode: string): Promise<DeviceLookup> {
      const row = await requests.findPendingByUserCode(userCode);
      if (!row) return { state: 'unknown' };
      if (expired(row)) return { state: 'expired' };
      return { state: 'pending', row, userCode: formatUserCode(row.user_code) };
    },

    /** The signed-in merchant user approves (binding the request to their merchant) or denies. */
    async decide(userCode: string, user: UserRow, approve: boolean): Promise<'approved' | 'denied'> {
      if (user.kind !== 'merchant' || !user.merchant_id) {
        throw new InvalidRequestError('Only merchant users can authorize a device', {
          status: 409,
          code: 'not_a_merchant_user',
        });
      }
      return knex.transaction(async (trx) => {
        const row = await requests.findPendingByUserCode(userCode, trx, { forUpdate: true });
        if (!row)
          throw new InvalidRequestError('No pending request has this code', {
            status: 404,
            code: 'resource_missing',
          });
        if (expired(row))
          throw new InvalidRequestError('This code has expired', { status: 409, code: 'expired_token' });
        const status = approve ? 'approved' : 'denied';
        await requests.update(
          row.id,
          { status, merchant_id: user.merchant_id, decided_by: user.id, decided_at: row.db_now },
          trx,
        );
        return status;
      });
    },
  };
}

export type DeviceService = ReturnType<typeof createDeviceService>;
