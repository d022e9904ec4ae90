import type { Knex } from '../db/knex';
import type { Scope } from '../domain/scope';
import type { SubscriptionEngine } from '../engine/subscription-engine';
import type { DunningEndState } from '../domain/subscription';
import { DEFAULT_RETRY_DAYS, isEnded } from '../domain/subscription';
import { newId, ID_PREFIX } from '../domain/ids';
import { InvalidRequestError, NotFoundError, ServiceUnavailableError } from '../domain/errors';
import { createSubscriptionRepository, subscriptionObject, type SubscriptionRow } from '../db/subscriptions';
import { recordEvents } from '../db/event-batch';
import { prorate } from '../domain/billing-calendar';
import { enabledCapabilities } from '../domain/capabilities';
import { onboardingState } from './merchant/merchant-account';
import type { MerchantRow } from '../db/merchants';

export interface CreateSubscriptionInput {
  customer: string;
  price: string;
  quantity: number;
  paymentMethod?: string;
  collectionMethod?: 'charge_automatically' | 'claim';
  trialEnd?: Date;
  trialPeriodDays?: number;
  missingPaymentMethod: 'cancel' | 'pause';
  coupon?: string;
  retryDays?: number[];
  endState?: DunningEndState;
  metadata?: Record<string, string>;
}

export interface UpdateSubscriptionInput {
  price?: string;
  /** `create_prorations`: the new price applies now, the difference to the day goes on the next renewal. */
  prorationBehavior?: 'none' | 'create_prorations';
  quantity?: number;
  paymentMethod?: string;
  cancelAtPeriodEnd?: boolean;
  cancellationReason?: string | null;
  coupon?: string | null;
  metadata?: Record<string, string>;
}

const bad = (message: string, param: string) =>
  new InvalidRequestError(message, { code: 'parameter_invalid', param });

/**
 * Subscription changes from the API: each is a row change and its `subscription.*` event in one
 * transaction, then a signal (with start) to the lifecycle workflow when the lifecycle is affected.
 */
export function createSubscriptionService(deps: {
  knex: Knex;
  engine: SubscriptionEngine | null;
  wakeChannels: (channelIds: string[]) => Promise<void>;
}) {
  const subscriptions = createSubscriptionRepository(deps.knex);

  async function notify(row: SubscriptionRow) {
    if (!deps.engine)
      throw new ServiceUnavailableError(
        'Subscriptions need the workflow engine, which is not connected',
        'workflow_engine_unavailable',
      );
    await deps.engine.notify([
      {
        merchantId: row.merchant_id,
        livemode: row.livemode,
        subscriptionId: row.id,
        testClockId: row.test_clock_id,
      },
    ]);
  }

  async function recurringPrice(scope: Scope, id: string, trx: Knex, param: string) {
    const price = await trx('prices')
      .where({ id, merchant_id: scope.merchantId, livemode: scope.livemode })
      .first<{ id: string; type: string; active: boolean } | undefined>('id', 'type', 'active');
    if (!price) throw new NotFoundError(`No such price: '${id}'`, param);
    if (price.type !== 'recurring') throw bad('The price is not recurring', param);
    if (!price.active) throw bad('The price is not active', param);
    return price;
  }

  async function usableCard(scope: Scope, customerId: string, id: string, trx: Knex, param: string) {
    const pm = await trx('payment_methods')
      .where({ id, merchant_id: scope.merchantId, livemode: scope.livemode, customer_id: customerId })
      .whereNull('detached_at')
      .first<{ id: string } | undefined>('id');
    if (!pm) throw bad(`No payment method '${id}' attached to the customer`, param);
  }

  async function couponFor(scope: Scope, id: string, trx: Knex) {
    const c = await trx('coupons')
      .where({ id, merchant_id: scope.merchantId, livemode: scope.livemode })
      .whereNull('deleted_at')
      .first<{ id: string } | undefined>('id');
    if (!c) throw new NotFoundError(`No such coupon: '${id}'`, 'coupon');
  }

  /** A claim-collected subscription: claims enabled, a claimant kennitala and a payer kennitala. */
  async function claimsPossible(scope: Scope, payer: string | null, trx: Knex) {
    const merchant = await trx<MerchantRow>('merchants').where({ id: scope.merchantId }).first();
    if (
      !merchant?.kennitala ||
      !enabledCapabilities(onboardingState(merchant), scope.livemode).includes('payments.bank_claim')
    )
      throw new InvalidRequestError('Bank claims are not enabled for this merchant', {
        code: 'claims_not_enabled',
        param: 'collection_method',
      });
    if (!payer) throw bad('A subscription collected by claim needs a customer with a kennitala', 'customer');
  }

  async function nowFor(row: SubscriptionRow, trx: Knex): Promise<Date> {
    if (!row.test_clock_id) return new Date();
    const clock = await trx('test_clocks')
      .where({ id: row.test_clock_id })
      .first<{ frozen_time: Date }>('frozen_time');
    return clock.frozen_time;
  }

  async function write(
    scope: Scope,
    type: string,
    work: (trx: Knex.Transaction) => Promise<SubscriptionRow>,
  ) {
    const { row, channels } = await deps.knex.transaction(async (trx) => {
      const changed = await work(trx);
      const ch = await recordEvents(trx, [{ ...scope, type, data: subscriptionObject(changed) }]);
      return { row: changed, channels: ch };
    });
    if (channels.length > 0) await deps.wakeChannels(channels);
    return row;
  }

  return {
    async create(scope: Scope, input: CreateSubscriptionInput) {
      const created = await write(scope, 'subscription.created', async (trx) => {
        const customer = await trx('customers')
          .where({ id: input.customer, merchant_id: scope.merchantId, livemode: scope.livemode })
          .whereNull('deleted_at')
          .first<
            | {
                id: string;
                default_payment_method_id: string | null;
                test_clock_id: string | null;
                kennitala: string | null;
              }
            | undefined
          >();
        if (!customer) throw new NotFoundError(`No such customer: '${input.customer}'`, 'customer');
        await recurringPrice(scope, input.price, trx, 'price');
        const pmId = input.paymentMethod ?? customer.default_payment_method_id;
        if (pmId) await usableCard(scope, customer.id, pmId, trx, 'default_payment_method');
        if (input.coupon !== undefined) await couponFor(scope, input.coupon, trx);
        const clock = customer.test_clock_id
          ? await trx('test_clocks')
              .where({ id: customer.test_clock_id })
              .first<{ frozen_time: Date }>('frozen_time')
          : undefined;
        const now = clock?.frozen_time ?? new Date();
        const trialEnd =
          input.trialEnd ??
          (input.trialPeriodDays !== undefined
            ? new Date(now.getTime() + input.trialPeriodDays * 86_400_000)
            : null);
        if (trialEnd !== null && trialEnd.getTime() <= now.getTime())
          throw bad('trial_end must be in the future', 'trial_end');
        const byClaim = input.collectionMethod === 'claim';
        if (byClaim) await claimsPossible(scope, customer.kennitala, trx);
        if (trialEnd === null && !pmId && !byClaim)
          throw bad('A subscription without a trial needs a payment method', 'default_payment_method');
        return subscriptions.create(
          scope,
          {
            id: newId(ID_PREFIX.subscription),
            customer_id: customer.id,
            price_id: input.price,
            quantity: input.quantity,
            status: trialEnd ? 'trialing' : 'incomplete',
            payment_method_id: pmId,
            collection_method: input.collectionMethod ?? 'charge_automatically',
            test_clock_id: customer.test_clock_id,
            billing_cycle_anchor: trialEnd ?? now,
            current_period_index: -1,
            current_period_start: now,
            current_period_end: trialEnd ?? now,
            trial_start: trialEnd ? now : null,
            trial_end: trialEnd,
            trial_ended_at: null,
            payment_retry_requested: false,
            missing_payment_method: input.missingPaymentMethod,
            paused: false,
            cancel_at_period_end: false,
            cancellation_reason: null,
            canceled_at: null,
            ended_at: null,
            pending_price_id: null,
            proration_amount: 0,
            coupon_id: input.coupon ?? null,
            discount_period_index: input.coupon !== undefined ? 0 : null,
            discount_start: input.coupon !== undefined ? now : null,
            dunning_retry_days: input.retryDays ?? [...DEFAULT_RETRY_DAYS],
            dunning_end_state: input.endState ?? 'canceled',
            payment_failed_at: null,
            metadata: input.metadata ?? {},
          },
          trx,
        );
      });
      // The lifecycle takes the first charge, or waits for the trial's end.
      await notify(created);
      return created;
    },

    /** Applies a change; returns whether the lifecycle workflow must look at it. */
    async update(scope: Scope, id: string, input: UpdateSubscriptionInput) {
      let lifecycle = false;
      const result = await write(scope, 'subscription.updated', async (trx) => {
        const row = await subscriptions.lock(scope, id, trx);
        if (!row) throw new NotFoundError(`No such subscription: '${id}'`, 'id');
        if (isEnded(row.status)) throw bad(`The subscription is ${row.status}`, 'id');
        const patch: Partial<SubscriptionRow> = {};
        if (input.price !== undefined && input.price !== row.price_id) {
          await recurringPrice(scope, input.price, trx, 'price');
          if (input.prorationBehavior === 'create_prorations' && row.status === 'active') {
            // Now: credit the unused days at the old price, charge them at the new one (decision 0043).
            const amounts = await trx('prices')
              .whereIn('id', [row.price_id, input.price])
              .select<{ id: string; unit_amount: string }[]>('id', 'unit_amount');
            const unit = (id: string) => Number(amounts.find((p) => p.id === id)!.unit_amount);
            const quantity = input.quantity ?? row.quantity;
            const at = await nowFor(row, trx);
            const period = { start: row.current_period_start, end: row.current_period_end };
            patch.proration_amount =
              Number(row.proration_amount) +
              prorate(unit(input.price) * quantity, period, at) -
              prorate(unit(row.price_id) * row.quantity, period, at);
            patch.price_id = input.price;
            patch.pending_price_id = null;
          } else {
            // Effective from the next period: the renewal bills it and makes it the price (decision 0043).
            patch.pending_price_id = input.price;
          }
        }
        if (input.quantity !== undefined) patch.quantity = input.quantity;
        if (input.paymentMethod !== undefined) {
          await usableCard(scope, row.customer_id, input.paymentMethod, trx, 'default_payment_method');
          patch.payment_method_id = input.paymentMethod;
          if (['past_due', 'incomplete', 'unpaid'].includes(row.status)) {
            patch.payment_retry_requested = true;
            lifecycle = true;
          }
        }
        if (input.cancelAtPeriodEnd !== undefined) {
          patch.cancel_at_period_end = input.cancelAtPeriodEnd;
          if (input.cancellationReason !== undefined) patch.cancellation_reason = input.cancellationReason;
          lifecycle = true;
        }
        if (input.coupon !== undefined) {
          if (input.coupon !== null) await couponFor(scope, input.coupon, trx);
          patch.coupon_id = input.coupon;
          patch.discount_period_index = input.coupon === null ? null : row.current_period_index + 1;
          patch.discount_start = input.coupon === null ? null : new Date();
        }
        if (input.metadata !== undefined) patch.metadata = input.metadata;
        return subscriptions.update(scope, row.id, patch, trx);
      });
      if (lifecycle) await notify(result);
      return result;
    },

    /** Cancels now: no further renewals, whatever the period. */
    async cancel(scope: Scope, id: string, reason: string | null) {
      const canceled = await write(scope, 'subscription.canceled', async (trx) => {
        const row = await subscriptions.lock(scope, id, trx);
        if (!row) throw new NotFoundError(`No such subscription: '${id}'`, 'id');
        if (isEnded(row.status)) throw bad(`The subscription is already ${row.status}`, 'id');
        const clock = row.test_clock_id
          ? await trx('test_clocks')
              .where({ id: row.test_clock_id })
              .first<{ frozen_time: Date }>('frozen_time')
          : undefined;
        const now = clock?.frozen_time ?? new Date();
        return subscriptions.update(
          scope,
          row.id,
          {
            status: 'canceled',
            canceled_at: now,
            ended_at: now,
            cancellation_reason: reason,
            payment_failed_at: null,
          },
          trx,
        );
      });
      // A lifecycle waiting on a retry or a period end learns now that nothing is left to do.
      await notify(canceled);
      return canceled;
    },

    notify,
  };
}

export type SubscriptionService = ReturnType<typeof createSubscriptionService>;
