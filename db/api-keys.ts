import { createHash } from 'node:crypto';
import type { Db } from './knex';
import type { Scope } from '../domain/scope';
import { newId, ID_PREFIX, randomBase62 } from '../domain/ids';

export interface ApiKeyRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  key_hash: string;
  last4: string;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

/**
 * Keys carry ~238 bits of randomness, so a plain SHA-256 is enough to make a stolen table useless
 * (a slow KDF protects guessable secrets, and these are not guessable) while keeping the lookup on
 * every request to one index probe.
 */
export function hashApiKey(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** A key in the shape `sk_test_…` / `sk_live_…`. */
export function generateApiKey(livemode: boolean): string {
  return `sk_${livemode ? 'live' : 'test'}_${randomBase62(40)}`;
}

export function createApiKeyRepository(db: Db) {
  return {
    /** Creates a key and returns its secret: the only time the secret exists outside the caller. */
    async create(scope: Scope, trx: Db = db): Promise<{ row: ApiKeyRow; secret: string }> {
      const secret = generateApiKey(scope.livemode);
      const [row] = await trx<ApiKeyRow>('api_keys')
        .insert({
          id: newId(ID_PREFIX.apiKey),
          merchant_id: scope.merchantId,
          livemode: scope.livemode,
          key_hash: hashApiKey(secret),
          last4: secret.slice(-4),
        })
        .returning('*');
      return { row: row!, secret };
    },

    /** The active key with this secret, or undefined when unknown or revoked. */
    async findActiveBySecret(secret: string, trx: Db = db): Promise<ApiKeyRow | undefined> {
      return trx<ApiKeyRow>('api_keys')
        .where({ key_hash: hashApiKey(secret) })
        .whereNull('revoked_at')
        .first();
    },

    /** Every key of the scope, newest first, revoked ones included (the dashboard shows them). */
    async list(scope: Scope, trx: Db = db): Promise<ApiKeyRow[]> {
      return trx<ApiKeyRow>('api_keys')
        .where({ merchant_id: scope.merchantId, livemode: scope.livemode })
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ]);
    },

    async findById(scope: Scope, id: string, trx: Db = db): Promise<ApiKeyRow | undefined> {
      return trx<ApiKeyRow>('api_keys')
        .where({ id, merchant_id: scope.merchantId, livemode: scope.livemode })
        .first();
    },

    /** A key of the merchant in either mode, locked for the change that follows (the dashboard's keys). */
    async lockOfMerchant(merchantId: string, id: string, trx: Db): Promise<ApiKeyRow | undefined> {
      return trx<ApiKeyRow>('api_keys').where({ id, merchant_id: merchantId }).forUpdate().first();
    },

    async revoke(scope: Scope, id: string, trx: Db = db): Promise<boolean> {
      const count = await trx('api_keys')
        .where({ id, merchant_id: scope.merchantId, livemode: scope.livemode })
        .whereNull('revoked_at')
        .update({ revoked_at: trx.fn.now() });
      return count > 0;
    },

    /** Records use at most once a minute per key, so authentication does not write on every request. */
    async touch(id: string, trx: Db = db): Promise<void> {
      await trx('api_keys')
        .where({ id })
        .andWhere((q) =>
          q.whereNull('last_used_at').orWhere('last_used_at', '<', trx.raw("now() - interval '1 minute'")),
        )
        .update({ last_used_at: trx.fn.now() });
    },
  };
}

export type ApiKeyRepository = ReturnType<typeof createApiKeyRepository>;
