import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { PageOptions } from '../../db/tenant';
import type { SubscriptionEngine } from '../../engine/subscription-engine';
import type { DunningEndState, SubscriptionStatus } from '../../domain/subscription';
import { isEnded } from '../../domain/subscription';
import { ServiceUnavailableError, NotFoundError } from '../../domain/errors';
import { createSubscriptionRepository, type SubscriptionRow } from '../../db/subscriptions';
import { createCustomerRepository } from '../../db/customers';
import { createPriceRepository } from '../../db/prices';
import { createTestClockRepository } from '../../db/test-clocks';
import { recordEvents } from '../../db/event-batch';
import { prorate } from '../../domain/billing-calendar';
import { findOr404, findReference } from '../lookup';
import { bad, createReferenceChecks } from './references';
import { newSubscription } from './new-subscription';
import { createSubscriptionDiscounts } from './discounts';
import { newId, ID_PREFIX } from '../../domain/ids';
import { presentSubscription } from './subscription-object';
import { canceled, createTransitions, updated, type SubscriptionPatch, type Transition } from './transitions';

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
  /** A promotion code as the customer types it; its coupon is applied. */
  promotionCode?: string;
  retryDays?: number[];
  endState?: DunningEndState;
  /** The card → krafa fallback of this subscription; null or unset: the merchant's (decision 0105). */
  claimFallback?: boolean | null;
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
  promotionCode?: string;
  claimFallback?: boolean | null;
  metadata?: Record<string, string>;
}

export interface SubscriptionListFilter {
  customer?: string;
  status?: SubscriptionStatus;
  price?: string;
}

/**
 * Subscriptions (decision 0040). Each change is a row change and its `subscription.*` event in one
 * transaction, then a signal (with start) to the lifecycle workflow when the lifecycle is affected.
 */
export function createSubscriptionService(deps: {
  knex: Knex;
  /** Only `notify`: a dry run's copy is given one that tells no workflow (decision 0202). */
  engine: Pick<SubscriptionEngine, 'notify'> | null;
  wakeChannels: (channelIds: string[]) => Promise<void>;
}) {
  const subscriptions = createSubscriptionRepository(deps.knex);
  const customers = createCustomerRepository(deps.knex);
  const prices = createPriceRepository(deps.knex);
  const clocks = createTestClockRepository(deps.knex);
  const check = createReferenceChecks(deps.knex);
  const discounts = createSubscriptionDiscounts(deps.knex);
  const transitions = createTransitions(deps);

  const find = (scope: Scope, id: string) =>
    findOr404(
      'subscription',
      scope,
      id,
      () => subscriptions.findById(scope, id),
      () => subscriptions.existsInOtherMode(scope, id),
    );

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

  /**
   * A subscription's own krafa fallback needs kröfur enabled for the merchant; it applies to card
   * subscriptions only (a claim-collected one has no card retries to run out).
   */
  async function fallbackPossible(scope: Scope, byClaim: boolean, trx: Knex) {
    const param = 'dunning.claim_fallback';
    if (byClaim) throw bad('The krafa fallback applies to subscriptions charged automatically', param);
    await check.claimsEnabled(scope, trx, param);
  }

  /** Now for a subscription: the frozen time of its test clock, if it has one. */
  async function nowFor(testClockId: string | null, trx: Knex): Promise<Date> {
    return (testClockId ? await clocks.frozenTime(testClockId, trx) : undefined) ?? new Date();
  }

  /** A new subscription and its event; changes of an existing one go through `transition` below. */
  async function write(
    scope: Scope,
    type: string,
    work: (trx: Knex.Transaction) => Promise<SubscriptionRow>,
  ) {
    const { row, channels } = await deps.knex.transaction(async (trx) => {
      const changed = await work(trx);
      const ch = await recordEvents(trx, [{ ...scope, type, data: presentSubscription(changed) }]);
      return { row: changed, channels: ch };
    });
    if (channels.length > 0) await deps.wakeChannels(channels);
    return row;
  }

  /** A change of one existing subscription, through the one path every transition takes. */
  async function transition(
    scope: Scope,
    id: string,
    decide: (row: SubscriptionRow, trx: Knex.Transaction) => Promise<Transition>,
  ): Promise<SubscriptionRow> {
    const done = await transitions.apply(scope, id, decide);
    // `find` answered for it a moment ago; should the lock find none after all, it is a 404 too.
    if (done.outcome !== 'applied') throw new NotFoundError(`No such subscription: '${id}'`, 'id');
    return done.row;
  }

  return {
    /** The first period is charged by the lifecycle workflow, or a trial begins. */
    async create(scope: Scope, input: CreateSubscriptionInput) {
      const created = await write(scope, 'subscription.created', async (trx) => {
        const customer = await findReference('customer', input.customer, 'customer', () =>
          customers.findById(scope, input.customer, trx),
        );
        await check.recurringPrice(scope, input.price, trx, 'price');
        const pmId = input.paymentMethod ?? customer.default_payment_method_id;
        if (pmId) await check.usableCard(scope, customer.id, pmId, trx, 'default_payment_method');
        const discount = discounts.targetOf(input);
        const now = await nowFor(customer.test_clock_id, trx);
        const trialEnd =
          input.trialEnd ??
          (input.trialPeriodDays !== undefined
            ? new Date(now.getTime() + input.trialPeriodDays * 86_400_000)
            : null);
        if (trialEnd !== null && trialEnd.getTime() <= now.getTime())
          throw bad('trial_end must be in the future', 'trial_end');
        const byClaim = input.collectionMethod === 'claim';
        if (byClaim) await check.claimsPossible(scope, customer.kennitala, trx);
        if (input.claimFallback === true) await fallbackPossible(scope, byClaim, trx);
        if (trialEnd === null && !pmId && !byClaim)
          throw bad('A subscription without a trial needs a payment method', 'default_payment_method');
        // Counted with the subscription, as checkout counts it with the completed session.
        const id = newId(ID_PREFIX.subscription);
        const couponId = discount
          ? await discounts.redeem(
              scope,
              discount,
              { customerId: customer.id, priceId: input.price, quantity: input.quantity, at: now, key: id },
              trx,
            )
          : null;
        return subscriptions.create(
          scope,
          newSubscription({
            id,
            customerId: customer.id,
            priceId: input.price,
            quantity: input.quantity,
            paymentMethodId: pmId,
            collectionMethod: input.collectionMethod ?? 'charge_automatically',
            testClockId: customer.test_clock_id,
            now,
            trialEnd,
            couponId,
            missingPaymentMethod: input.missingPaymentMethod,
            ...(input.retryDays !== undefined && { retryDays: input.retryDays }),
            ...(input.endState !== undefined && { endState: input.endState }),
            claimFallback: input.claimFallback ?? null,
            metadata: input.metadata ?? {},
          }),
          trx,
        );
      });
      // The lifecycle takes the first charge, or waits for the trial's end.
      await notify(created);
      return presentSubscription(created);
    },

    retrieve: async (scope: Scope, id: string) => presentSubscription(await find(scope, id)),

    async list(scope: Scope, opts: PageOptions & SubscriptionListFilter) {
      const { customer, price, ...rest } = opts;
      if (customer !== undefined)
        await findReference('customer', customer, 'customer', () => customers.findById(scope, customer));
      if (price !== undefined)
        await findReference('price', price, 'price', () => prices.findById(scope, price));
      const page = await subscriptions.list(scope, { ...rest, customerId: customer, priceId: price });
      return { data: page.data.map(presentSubscription), hasMore: page.hasMore };
    },

    /** Price (next period, or now with prorations), quantity, card, cancel at period end, coupon. */
    async update(scope: Scope, id: string, input: UpdateSubscriptionInput) {
      await find(scope, id);
      let lifecycle = false;
      const result = await transition(scope, id, async (row, trx) => {
        if (isEnded(row.status)) throw bad(`The subscription is ${row.status}`, 'id');
        const patch: SubscriptionPatch = {};
        if (input.price !== undefined && input.price !== row.price_id) {
          await check.recurringPrice(scope, input.price, trx, 'price');
          if (input.prorationBehavior === 'create_prorations' && row.status === 'active') {
            // Now: credit the unused days at the old price, charge them at the new one (decision 0043).
            const amounts = await prices.findByIds(scope, [row.price_id, input.price], trx);
            const unit = (id: string) => Number(amounts.get(id)!.unit_amount);
            const quantity = input.quantity ?? row.quantity;
            const at = await nowFor(row.test_clock_id, trx);
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
          await check.usableCard(scope, row.customer_id, input.paymentMethod, trx, 'default_payment_method');
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
        if (input.coupon === null) {
          if (input.promotionCode !== undefined)
            throw bad('Send coupon or promotion_code, not both', 'promotion_code');
          patch.coupon_id = null;
          patch.discount_period_index = null;
          patch.discount_start = null;
        } else {
          const target = discounts.targetOf({ coupon: input.coupon, promotionCode: input.promotionCode });
          // The coupon the subscription already has is kept as it is: no second redemption, and
          // its duration does not start again.
          if (target && !('couponId' in target && target.couponId === row.coupon_id)) {
            const at = await nowFor(row.test_clock_id, trx);
            patch.coupon_id = await discounts.redeem(
              scope,
              target,
              {
                customerId: row.customer_id,
                priceId: patch.price_id ?? input.price ?? row.pending_price_id ?? row.price_id,
                quantity: input.quantity ?? row.quantity,
                at,
                // This update of this subscription: the row as it was when locked.
                key: `${row.id}@${row.updated_at.toISOString()}`,
              },
              trx,
            );
            patch.discount_period_index = row.current_period_index + 1;
            patch.discount_start = new Date();
          }
        }
        if (input.claimFallback !== undefined) {
          if (input.claimFallback === true)
            await fallbackPossible(scope, row.collection_method === 'claim', trx);
          patch.claim_fallback = input.claimFallback;
        }
        if (input.metadata !== undefined) patch.metadata = input.metadata;
        return updated(patch);
      });
      if (lifecycle) await notify(result);
      return presentSubscription(result);
    },

    /** Cancels now: no further renewals, whatever the period. */
    async cancel(scope: Scope, id: string, reason: string | null) {
      await find(scope, id);
      const ended = await transition(scope, id, async (row, trx) => {
        if (isEnded(row.status)) throw bad(`The subscription is already ${row.status}`, 'id');
        return canceled(await nowFor(row.test_clock_id, trx), { reason, clearFailure: true });
      });
      // A lifecycle waiting on a retry or a period end learns now that nothing is left to do.
      await notify(ended);
      return presentSubscription(ended);
    },
  };
}

export type SubscriptionService = ReturnType<typeof createSubscriptionService>;
