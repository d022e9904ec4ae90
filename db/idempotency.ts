import type { Db } from './knex';
import type { Scope } from '../domain/scope';

export interface IdempotencyRow {
  merchant_id: string;
  livemode: boolean;
  key: string;
  method: string;
  path: string;
  request_hash: string;
  state: 'in_flight' | 'done';
  response_status: number | null;
  response_content_type: string | null;
  response_body: string | null;
  locked_at: Date;
  created_at: Date;
}

/** Keys are kept 24 hours (architecture, "API conventions"); after that the same key is new again. */
export const IDEMPOTENCY_TTL_HOURS = 24;

/**
 * A request still "in flight" after this long belongs to a process that died mid-request; its key
 * may be taken again rather than answering 409 for a day.
 */
export const IDEMPOTENCY_LOCK_TIMEOUT_SECONDS = 300;

export type ClaimResult = { claimed: true } | { claimed: false; existing: IdempotencyRow };

export function createIdempotencyRepository(db: Db) {
  return {
    /**
     * Takes the key for this request, atomically: either this request now owns it (claimed), or the
     * row of the request that owns or owned it is returned. An expired or abandoned row is replaced.
     */
    async claim(
      scope: Scope,
      input: { key: string; method: string; path: string; requestHash: string },
      trx: Db = db,
    ): Promise<ClaimResult> {
      const { rows } = await trx.raw<{ rows: IdempotencyRow[] }>(
        `insert into idempotency_keys (merchant_id, livemode, key, method, path, request_hash, state)
         values (?, ?, ?, ?, ?, ?, 'in_flight')
         on conflict (merchant_id, livemode, key) do update
           set method = excluded.method, path = excluded.path, request_hash = excluded.request_hash,
               state = 'in_flight', response_status = null, response_content_type = null, response_body = null,
               locked_at = now(), created_at = now()
           where idempotency_keys.created_at < now() - (? * interval '1 hour')
              or (idempotency_keys.state = 'in_flight'
                  and idempotency_keys.locked_at < now() - (? * interval '1 second'))
         returning *`,
        [
          scope.merchantId,
          scope.livemode,
          input.key,
          input.method,
          input.path,
          input.requestHash,
          IDEMPOTENCY_TTL_HOURS,
          IDEMPOTENCY_LOCK_TIMEOUT_SECONDS,
        ],
      );
      if (rows.length > 0) return { claimed: true };
      const existing = await trx<IdempotencyRow>('idempotency_keys')
        .where({ merchant_id: scope.merchantId, livemode: scope.livemode, key: input.key })
        .first();
      // Deleted between the two statements (the owner failed): the caller may simply try again.
      if (!existing) return this.claim(scope, input, trx);
      return { claimed: false, existing };
    },

    async complete(
      scope: Scope,
      key: string,
      response: { status: number; contentType: string | null; body: string },
      trx: Db = db,
    ): Promise<void> {
      await trx('idempotency_keys')
        .where({ merchant_id: scope.merchantId, livemode: scope.livemode, key })
        .update({
          state: 'done',
          response_status: response.status,
          response_content_type: response.contentType,
          response_body: response.body,
        });
    },

    /** Forgets a key whose request failed on the server's side, so the client can retry it. */
    async release(scope: Scope, key: string, trx: Db = db): Promise<void> {
      await trx('idempotency_keys')
        .where({ merchant_id: scope.merchantId, livemode: scope.livemode, key, state: 'in_flight' })
        .delete();
    },

    /** Deletes expired keys; run periodically. */
    async purgeExpired(trx: Db = db): Promise<number> {
      return trx('idempotency_keys')
        .where('created_at', '<', trx.raw(`now() - (? * interval '1 hour')`, [IDEMPOTENCY_TTL_HOURS]))
        .delete();
    },
  };
}

export type IdempotencyRepository = ReturnType<typeof createIdempotencyRepository>;
