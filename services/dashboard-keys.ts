import type { Knex } from '../db/knex';
import { createApiKeyRepository, type ApiKeyRow } from '../db/api-keys';
import { createMerchantRepository } from '../db/merchants';
import { ConflictError, NotFoundError, PermissionError } from '../domain/errors';

/**
 * API keys as the dashboard manages them: create, roll (a new secret, the old one revoked at once)
 * and revoke. Live keys only once the application is approved (spec §1, §5.2).
 */
export function createDashboardKeyService(knex: Knex) {
  async function assertModeOpen(merchantId: string, livemode: boolean, trx: Knex | Knex.Transaction) {
    if (!livemode) return;
    const merchant = await createMerchantRepository(trx).findById(merchantId);
    if (merchant?.application_status !== 'approved') {
      throw new PermissionError(
        'Live keys can be created once the application is approved',
        'live_mode_not_enabled',
      );
    }
  }

  async function find(merchantId: string, keyId: string, trx: Knex | Knex.Transaction): Promise<ApiKeyRow> {
    const row = await createApiKeyRepository(trx).lockOfMerchant(merchantId, keyId, trx);
    if (!row) throw new NotFoundError(`No such API key: '${keyId}'`, 'id');
    return row;
  }

  return {
    async list(merchantId: string): Promise<ApiKeyRow[]> {
      const keys = createApiKeyRepository(knex);
      const [test, live] = await Promise.all([
        keys.list({ merchantId, livemode: false }),
        keys.list({ merchantId, livemode: true }),
      ]);
      return [...live, ...test];
    },

    async create(merchantId: string, livemode: boolean): Promise<{ row: ApiKeyRow; secret: string }> {
      return knex.transaction(async (trx) => {
        await assertModeOpen(merchantId, livemode, trx);
        return createApiKeyRepository(trx).create({ merchantId, livemode });
      });
    },

    async roll(merchantId: string, keyId: string): Promise<{ row: ApiKeyRow; secret: string }> {
      return knex.transaction(async (trx) => {
        const old = await find(merchantId, keyId, trx);
        if (old.revoked_at) throw new ConflictError('A revoked key cannot be rolled', 'api_key_revoked');
        await assertModeOpen(merchantId, old.livemode, trx);
        const keys = createApiKeyRepository(trx);
        const scope = { merchantId, livemode: old.livemode };
        await keys.revoke(scope, old.id);
        return keys.create(scope);
      });
    },

    async revoke(merchantId: string, keyId: string): Promise<ApiKeyRow> {
      return knex.transaction(async (trx) => {
        const old = await find(merchantId, keyId, trx);
        await createApiKeyRepository(trx).revoke({ merchantId, livemode: old.livemode }, old.id);
        return await find(merchantId, keyId, trx);
      });
    },
  };
}

export type DashboardKeyService = ReturnType<typeof createDashboardKeyService>;
