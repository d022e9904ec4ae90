import type { Db } from './knex';
import type { Scope } from '../domain/scope';
import type { Platform } from '../domain/platform-orders';
import { newId, ID_PREFIX } from '../domain/ids';
import { existsInOtherMode, type PageOptions } from './tenant';
import { pageByCreated } from './pagination';

export interface PlatformConnectionRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  platform: Platform;
  shop: string;
  secret_sealed: string;
  claim_payment_methods: string[];
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export interface PlatformOrderRow {
  connection_id: string;
  order_id: string;
  merchant_id: string;
  livemode: boolean;
  checkout_session_id: string | null;
  claim_id: string | null;
  status: string;
}

/** Platform connections, the webhooks they sent, and the orders they became (decisions 0135, 0136). */
export function createPlatformConnectionRepository(db: Db) {
  const live = (trx: Db) => trx<PlatformConnectionRow>('platform_connections').whereNull('deleted_at');
  return {
    async create(
      scope: Scope,
      input: {
        id: string;
        platform: Platform;
        shop: string;
        secretSealed: string;
        claimPaymentMethods: string[];
      },
      trx: Db = db,
    ): Promise<PlatformConnectionRow> {
      const [row] = await trx<PlatformConnectionRow>('platform_connections')
        .insert({
          id: input.id,
          merchant_id: scope.merchantId,
          livemode: scope.livemode,
          platform: input.platform,
          shop: input.shop,
          secret_sealed: input.secretSealed,
          claim_payment_methods: input.claimPaymentMethods,
        })
        .returning('*');
      return row!;
    },

    newId: () => newId(ID_PREFIX.platformConnection),

    async find(scope: Scope, id: string, trx: Db = db) {
      return live(trx).where({ id, merchant_id: scope.merchantId, livemode: scope.livemode }).first();
    },

    /** The connection a webhook belongs to, by the shop its platform's headers name (no tenant yet). */
    async findByShop(platform: Platform, shop: string, trx: Db = db) {
      return live(trx).where({ platform, shop }).first();
    },

    async list(scope: Scope, opts: PageOptions, trx: Db = db) {
      const query = trx('platform_connections')
        .where({ merchant_id: scope.merchantId, livemode: scope.livemode })
        .whereNull('deleted_at');
      return pageByCreated<PlatformConnectionRow>(query, 'platform_connections', scope, opts);
    },

    async remove(scope: Scope, id: string, trx: Db = db) {
      await trx('platform_connections')
        .where({ id, merchant_id: scope.merchantId, livemode: scope.livemode })
        .update({ deleted_at: trx.fn.now(), updated_at: trx.fn.now() });
    },

    existsInOtherMode(scope: Scope, id: string, trx: Db = db) {
      return existsInOtherMode(trx, 'platform_connections', scope, id, { softDeleted: true });
    },

    /**
     * Records a webhook once: false when its key was seen before. A second delivery racing the
     * first waits on the key until the first commits, then finds it.
     */
    async receive(connectionId: string, dedupKey: string, topic: string, trx: Db): Promise<boolean> {
      const rows = await trx('platform_webhook_receipts')
        .insert({ connection_id: connectionId, dedup_key: dedupKey, topic })
        .onConflict(['connection_id', 'dedup_key'])
        .ignore()
        .returning('dedup_key');
      return rows.length === 1;
    },

    /** The order's row, locked: every webhook of one order is applied one after the other. */
    async lockOrder(connection: PlatformConnectionRow, orderId: string, trx: Db): Promise<PlatformOrderRow> {
      await trx('platform_orders')
        .insert({
          connection_id: connection.id,
          order_id: orderId,
          merchant_id: connection.merchant_id,
          livemode: connection.livemode,
          status: 'new',
        })
        .onConflict(['connection_id', 'order_id'])
        .ignore();
      return (await trx<PlatformOrderRow>('platform_orders')
        .where({ connection_id: connection.id, order_id: orderId })
        .forUpdate()
        .first())!;
    },

    async updateOrder(row: PlatformOrderRow, values: Partial<PlatformOrderRow>, trx: Db): Promise<void> {
      await trx('platform_orders')
        .where({ connection_id: row.connection_id, order_id: row.order_id })
        .update({ ...values, updated_at: trx.fn.now() });
    },
  };
}

export type PlatformConnectionRepository = ReturnType<typeof createPlatformConnectionRepository>;
