import type { Db } from './knex';

/**
 * The reads a subscription's lifecycle decides on besides the subscription row: its latest
 * renewal and whether its payment method is still attached.
 */
export function createSubscriptionLifecycleRepository(db: Db) {
  return {
    /** The renewal of the latest period, if any: its status and how many charges it took. */
    async latestRenewal(
      subscriptionId: string,
      trx: Db = db,
    ): Promise<{ status: string; attempt_count: number } | undefined> {
      return trx('renewals')
        .where({ subscription_id: subscriptionId })
        .orderBy('period_index', 'desc')
        .first<{ status: string; attempt_count: number } | undefined>('status', 'attempt_count');
    },

    /** Whether the payment method exists and is not detached. */
    async isAttached(paymentMethodId: string, trx: Db = db): Promise<boolean> {
      const pm = await trx('payment_methods')
        .where({ id: paymentMethodId })
        .whereNull('detached_at')
        .first<{ id: string } | undefined>('id');
      return pm !== undefined;
    },
  };
}

export type SubscriptionLifecycleRepository = ReturnType<typeof createSubscriptionLifecycleRepository>;
