import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { CheckoutSessionRow, LineItem, SubscriptionData } from '../../db/checkout-sessions';
import { createSubscriptionRepository, type SubscriptionRow } from '../../db/subscriptions';
import { createEventRepository } from '../../db/events';
import { createCustomerRepository } from '../../db/customers';
import { createPriceRepository } from '../../db/prices';
import { createPromotionCodeRepository } from '../../db/promotion-codes';
import { createRenewalRepository } from '../../db/renewals';
import { createPaymentIntentRepository } from '../../db/payment-intents';
import { periodAt } from '../../domain/billing-calendar';
import { vatOf } from '../../domain/vat';
import { newId, ID_PREFIX } from '../../domain/ids';
import { SESSION_LIFETIME_MS } from '../../domain/checkout';
import { newSubscription } from '../subscriptions/new-subscription';
import { presentSubscription, presentSubscriptionWithRenewal } from '../subscriptions/subscription-object';
import { bad, type SubscriptionDataInput } from './inputs';

export const isTrial = (d: SubscriptionData) => d.trial_end !== null || d.trial_period_days !== null;

/** Subscription sign-up through checkout: the session's subscription data, the subscription at completion. */
export function createSubscriptionSignup(deps: { knex: Knex }) {
  const events = createEventRepository(deps.knex);
  const subscriptions = createSubscriptionRepository(deps.knex);
  const customers = createCustomerRepository(deps.knex);
  const prices = createPriceRepository(deps.knex);
  const promotionCodes = createPromotionCodeRepository(deps.knex);
  const renewals = createRenewalRepository();
  const paymentIntents = createPaymentIntentRepository(deps.knex);

  /** The customer's time: its test clock's, or now. */
  async function customerNow(
    scope: Scope,
    customerId: string,
    trx: Knex = deps.knex,
  ): Promise<{ now: Date; clockId: string | null }> {
    const clock = await customers.clockOf(scope, customerId, trx);
    return { now: clock.frozenTime ?? new Date(), clockId: clock.testClockId };
  }

  /** Checks and stores what a subscription session will subscribe to (decision 0050). */
  async function subscriptionDataOf(
    scope: Scope,
    input: SubscriptionDataInput | undefined,
    line: LineItem,
    priceId: string,
    customer: { id: string } | null,
  ): Promise<SubscriptionData> {
    const days = input?.trial_period_days ?? null;
    const end = input?.trial_end ?? null;
    if (days !== null && end !== null)
      throw bad('Send trial_end or trial_period_days, not both', 'subscription_data.trial_end');
    if (end !== null) {
      // The trial must outlive the open session, so a buyer paying late never lands after its end.
      const now = customer ? (await customerNow(scope, customer.id)).now : new Date();
      if (end * 1000 <= now.getTime() + SESSION_LIFETIME_MS)
        throw bad('trial_end must be more than 24 hours away', 'subscription_data.trial_end');
    }
    return {
      price: priceId,
      quantity: line.quantity,
      trial_period_days: days,
      trial_end: end === null ? null : new Date(end * 1000).toISOString(),
      metadata: input?.metadata ?? {},
    };
  }

  /**
   * The subscription a completed `subscription` session creates, in the completion's transaction
   * (decision 0050). A trial starts `trialing` and its lifecycle workflow (started after commit)
   * ends it. Without a trial the checkout's payment IS period 0: the subscription starts `active`
   * in period 0, anchored now, with a paid renewal for period 0 holding the checkout's payment
   * intent, so neither the lifecycle nor a billing run charges period 0 again.
   */
  async function subscribe(
    scope: Scope,
    s: CheckoutSessionRow,
    customerId: string,
    paymentMethodId: string,
    paymentIntentId: string | null,
    trx: Knex.Transaction,
    wake: string[],
  ): Promise<SubscriptionRow> {
    const data = s.subscription_data!;
    const { now, clockId } = await customerNow(scope, customerId, trx);
    const price = (await prices.findById(scope, data.price, trx))!;
    const couponId = s.promotion_code_id
      ? (await promotionCodes.findById(scope, s.promotion_code_id, trx))!.coupon_id
      : null;
    const trialEnd =
      data.trial_end !== null
        ? new Date(data.trial_end)
        : data.trial_period_days !== null
          ? new Date(now.getTime() + data.trial_period_days * 86_400_000)
          : null;
    const period = periodAt(
      now,
      { interval: price.recurring_interval!, intervalCount: price.recurring_interval_count! },
      0,
    );
    const sub = await subscriptions.create(
      scope,
      newSubscription({
        customerId,
        priceId: data.price,
        quantity: data.quantity,
        paymentMethodId,
        collectionMethod: 'charge_automatically',
        testClockId: clockId,
        now,
        trialEnd,
        // Without a trial, the checkout's payment is period 0.
        ...(!trialEnd && { paidPeriod: period }),
        couponId,
        missingPaymentMethod: 'cancel',
        metadata: data.metadata,
      }),
      trx,
    );
    const types: { type: string; data: Record<string, unknown> }[] = [
      { type: 'subscription.created', data: presentSubscription(sub) },
    ];
    if (!trialEnd) {
      const line = s.items[0]!;
      const renewal = {
        id: newId(ID_PREFIX.renewal),
        merchant_id: scope.merchantId,
        livemode: scope.livemode,
        subscription_id: sub.id,
        period_index: 0,
        period_start: period.start,
        period_end: period.end,
        price_id: data.price,
        quantity: data.quantity,
        amount_subtotal: s.amount_subtotal,
        discount_amount: s.discount_amount,
        amount: s.amount,
        vat_rate: line.vat_rate,
        vat_amount: vatOf(s.amount, line.vat_rate),
        proration_amount: 0,
        coupon_id: couponId,
        status: 'paid' as const,
        attempt_count: 1,
        payment_intent_id: paymentIntentId,
        paid_at: now,
      };
      await renewals.insertPaid(trx, renewal);
      if (paymentIntentId) await paymentIntents.update(paymentIntentId, { subscription_id: sub.id }, trx);
      types.push({
        type: 'subscription.activated',
        data: presentSubscriptionWithRenewal(sub, renewal),
      });
    }
    for (const e of types) wake.push(...(await events.record(scope, e, trx)).channelIds);
    return sub;
  }

  return { customerNow, subscriptionDataOf, subscribe };
}

export type SubscriptionSignup = ReturnType<typeof createSubscriptionSignup>;
