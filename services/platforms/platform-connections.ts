import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import { createPlatformConnectionRepository } from '../../db/platform-connections';
import { isUniqueViolation } from '../../db/tenant';
import { normalizeShop, type Platform } from '../../domain/platform-orders';
import { SEALED_AT, type SecretBox } from '../../domain/secret-box';
import { ConflictError } from '../../domain/errors';
import { findOr404, type PageOptions } from '../lookup';
import { presentPlatformConnection } from './platform-connection-object';

/** Per-merchant connections to a WooCommerce or Shopify shop, holding the shop's webhook secret. */
export function createPlatformConnectionService(deps: {
  knex: Knex;
  secrets: SecretBox;
  publicBaseUrl: string;
}) {
  const repo = createPlatformConnectionRepository(deps.knex);
  const present = (row: Parameters<typeof presentPlatformConnection>[0]) =>
    presentPlatformConnection(row, deps.publicBaseUrl);
  const find = (scope: Scope, id: string) =>
    findOr404(
      'platform connection',
      scope,
      id,
      () => repo.find(scope, id),
      () => repo.existsInOtherMode(scope, id),
    );

  return {
    async create(
      scope: Scope,
      input: {
        platform: Platform;
        shop: string;
        secret: string;
        claim_payment_methods?: string[] | undefined;
      },
    ) {
      const id = repo.newId();
      try {
        return present(
          await repo.create(scope, {
            id,
            platform: input.platform,
            shop: normalizeShop(input.platform, input.shop),
            secretSealed: deps.secrets.seal(input.secret, SEALED_AT.platformSecret(id)),
            claimPaymentMethods: input.claim_payment_methods ?? [],
          }),
        );
      } catch (err) {
        if (isUniqueViolation(err, 'platform_connections_shop'))
          throw new ConflictError('This shop is connected already', 'platform_connection_exists', 'shop');
        throw err;
      }
    },
    async list(scope: Scope, opts: PageOptions) {
      const page = await repo.list(scope, opts);
      return { data: page.data.map(present), hasMore: page.hasMore };
    },
    async retrieve(scope: Scope, id: string) {
      return present(await find(scope, id));
    },
    async remove(scope: Scope, id: string) {
      const row = await find(scope, id);
      await repo.remove(scope, row.id);
      return { id: row.id, object: 'platform_connection' as const, deleted: true as const };
    },
  };
}

export type PlatformConnectionService = ReturnType<typeof createPlatformConnectionService>;
