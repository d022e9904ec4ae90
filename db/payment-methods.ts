import type { Db } from './knex';
import type { Scope } from '../domain/scope';
import type { CardToken } from '../adapters/acquirers/card-acquirer';
import { newId, ID_PREFIX } from '../domain/ids';
import { pageByCreated } from './pagination';
import { existsInOtherMode, type PageOptions } from './tenant';

export interface PaymentMethodRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  customer_id: string | null;
  type: 'card';
  acquirer_token: string;
  card_brand: string;
  card_last4: string;
  card_exp_month: number;
  card_exp_year: number;
  wallet: 'apple_pay' | 'google_pay' | null;
  metadata: Record<string, string>;
  created_at: Date;
  detached_at: Date | null;
}

/** Tokenized cards: brand, last 4 and expiry, and the acquirer's token; never the number. */
export function createPaymentMethodRepository(db: Db) {
  const scoped = (scope: Scope, trx: Db) =>
    trx<PaymentMethodRow>('payment_methods').where({
      merchant_id: scope.merchantId,
      livemode: scope.livemode,
    });

  return {
    async create(
      scope: Scope,
      card: CardToken,
      customerId: string | null,
      trx: Db = db,
    ): Promise<PaymentMethodRow> {
      const [row] = await trx<PaymentMethodRow>('payment_methods')
        .insert({
          id: newId(ID_PREFIX.paymentMethod),
          merchant_id: scope.merchantId,
          livemode: scope.livemode,
          customer_id: customerId,
          acquirer_token: card.token,
          card_brand: card.brand,
          card_last4: card.last4,
          card_exp_month: card.exp_month,
          card_exp_year: card.exp_year,
          wallet: card.wallet,
        })
        .returning('*');
      return row!;
    },

    async findById(scope: Scope, id: string, trx: Db = db): Promise<PaymentMethodRow | undefined> {
      return scoped(scope, trx).where({ id }).first();
    },

    /** Payment methods by id, of any merchant (a batch's own ids), e.g. to present intents in events. */
    async findByIds(ids: readonly string[], trx: Db = db): Promise<PaymentMethodRow[]> {
      if (ids.length === 0) return [];
      return trx<PaymentMethodRow>('payment_methods').whereIn('id', [...ids]);
    },

    existsInOtherMode: (scope: Scope, id: string, trx: Db = db) =>
      existsInOtherMode(trx, 'payment_methods', scope, id),

    async list(scope: Scope, opts: PageOptions & { customerId?: string }, trx: Db = db) {
      const q = scoped(scope, trx).whereNull('detached_at');
      if (opts.customerId !== undefined) q.where({ customer_id: opts.customerId });
      return pageByCreated<PaymentMethodRow>(q, 'payment_methods', scope, opts);
    },

    async attach(scope: Scope, id: string, customerId: string, trx: Db = db) {
      const [row] = await scoped(scope, trx)
        .where({ id })
        .whereNull('detached_at')
        .update({ customer_id: customerId })
        .returning('*');
      return row;
    },

    /** Detaches from its customer for good; the customer's default is cleared if it was this one. */
    async detach(scope: Scope, id: string, trx: Db = db): Promise<PaymentMethodRow | undefined> {
      await trx('customers')
        .where({ merchant_id: scope.merchantId, livemode: scope.livemode, default_payment_method_id: id })
        .update({ default_payment_method_id: null, updated_at: trx.fn.now() });
      const [row] = await scoped(scope, trx)
        .where({ id })
        .update({ customer_id: null, detached_at: trx.raw('coalesce(detached_at, now())') })
        .returning('*');
      return row;
    },

    async setDefault(scope: Scope, customerId: string, paymentMethodId: string, trx: Db = db) {
      await trx('customers')
        .where({ merchant_id: scope.merchantId, livemode: scope.livemode, id: customerId })
        .update({ default_payment_method_id: paymentMethodId, updated_at: trx.fn.now() });
    },

    /** Makes the card the customer's default unless one is set already (a card saved at checkout). */
    async setDefaultIfUnset(customerId: string, paymentMethodId: string, trx: Db = db): Promise<void> {
      await trx('customers')
        .where({ id: customerId })
        .whereNull('default_payment_method_id')
        .update({ default_payment_method_id: paymentMethodId });
    },
  };
}

export type PaymentMethodRepository = ReturnType<typeof createPaymentMethodRepository>;
