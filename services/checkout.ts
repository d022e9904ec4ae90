import type { Knex } from '../db/knex';
import type { Scope } from '../domain/scope';
import type { VatRate } from '../domain/vat';
import type { FormField, Locale } from '../domain/checkout';
import type { WebhookDispatcher } from '../engine/webhook-dispatch';
import type { CardAcquirer, Wallet } from '../bank-adapters/card-acquirer';
import type { SubscriptionEngine } from '../engine/subscription-engine';
import {
  createCheckoutSessionRepository,
  type CheckoutSessionRow,
  type LineItem,
  type NewSession,
  type SubscriptionData,
} from '../db/checkout-sessions';
import { createSubscriptionRepository, subscriptionObject, type SubscriptionRow } from '../db/subscriptions';
import { periodAt } from '../domain/billing-calendar';
import { DEFAULT_RETRY_DAYS } from '../domain/subscription';
import { vatOf } from '../domain/vat';
import { createProductRepository } from '../db/products';
import { createPriceRepository } from '../db/prices';
import { createVariantRepository } from '../db/product-variants';
import { createCustomerRepository } from '../db/customers';
import { createEventRepository } from '../db/events';
import { createRedemptionService, type Pricing } from '../db/coupon-redemptions';
import { newId, ID_PREFIX } from '../domain/ids';
import { effectiveFormFields, isKnownField, SESSION_LIFETIME_MS, successRedirect } from '../domain/checkout';
import { ApiError, InvalidRequestError, ServiceUnavailableError } from '../domain/errors';
import { unix } from '../domain/unix-time';
import { missingReference } from './lookup';
import { createPaymentService, DECLINE_MESSAGES, type AttemptOutcome } from './payments';
import { onboardingState } from './merchant-account';
import { enabledCapabilities } from '../domain/capabilities';
import { checkKennitala } from '../domain/kennitala';
import { claimDatesFor, claimTermsRuleOf } from '../domain/checkout-claims';
import { insertClaim } from '../db/claims';
import type { MerchantRow } from '../db/merchants';

export type ItemInput =
  | { product: string; variant?: string | undefined; quantity: number }
  | { price: string; quantity: number }
  | { description: string; unit_amount: number; vat_rate: VatRate; quantity: number };

/** Stripe's `subscription_data`: the trial and metadata of the subscription a session creates. */
export interface SubscriptionDataInput {
  trial_period_days?: number | undefined;
  /** Epoch seconds. */
  trial_end?: number | undefined;
  metadata?: Record<string, string> | undefined;
}

export interface SessionInput {
  mode: 'payment' | 'setup' | 'subscription';
  subscription_data?: SubscriptionDataInput | undefined;
  amount?: number | undefined;
  items?: ItemInput[] | undefined;
  product?: string | undefined;
  success_url?: string | null | undefined;
  cancel_url?: string | null | undefined;
  customer?: string | null | undefined;
  customer_email?: string | null | undefined;
  customer_name?: string | null | undefined;
  customer_phone?: string | null | undefined;
  save_payment_method: boolean;
  locale?: Locale | null | undefined;
  form_fields?: FormField[] | null | undefined;
  allow_custom_amount: boolean;
  minimum_amount?: number | null | undefined;
  promotion_code?: string | undefined;
  metadata?: Record<string, string> | null | undefined;
  paymentLinkId?: string | null;
}

/** The checkout session object of spec §2.1, every field present. */
export function presentSession(row: CheckoutSessionRow, baseUrl: string) {
  return {
    id: row.id,
    object: 'checkout.session' as const,
    livemode: row.livemode,
    amount: row.amount,
    amount_subtotal: row.amount_subtotal,
    discount_amount: row.discount_amount,
    promotion_code_id: row.promotion_code_id,
    currency: row.currency,
    status: row.status,
    url: `${baseUrl}/checkout/${row.id}`,
    short_url: `${baseUrl}/s/${row.short_code}`,
    success_url: row.success_url,
    cancel_url: row.cancel_url,
    save_payment_method: row.save_payment_method,
    customer: row.customer_id,
    product: row.product_id,
    subscription: row.subscription_id,
    payment_intent: row.payment_intent_id,
    payment_method: row.payment_method_id,
    customer_email: row.customer_email,
    customer_name: row.customer_name,
    customer_phone: row.customer_phone,
    payment_status: row.payment_status,
    locale: row.locale,
    items: row.items,
    form_fields: row.form_fields,
    custom_fields: row.custom_fields,
    allow_custom_amount: row.allow_custom_amount,
    minimum_amount: row.minimum_amount,
    expires_at: unix(row.expires_at),
    created_at: unix(row.created_at),
    metadata: row.metadata,
  };
}

/** What the buyer submitted on the checkout page. */
export interface PayInput {
  fields: Record<string, string>;
  customAmount?: string | undefined;
  card?: { number: string; exp_month: number; exp_year: number; cvc: string } | undefined;
  wallet?: Wallet | undefined;
  /** Where the buyer comes back after a 3-D Secure challenge. */
  returnUrl: string;
}

export type PayOutcome =
  | { kind: 'complete'; session: CheckoutSessionRow }
  | { kind: 'closed'; session: CheckoutSessionRow }
  | { kind: 'invalid'; errors: Record<string, string> }
  | { kind: 'declined'; message: string; session: CheckoutSessionRow }
  | { kind: 'action'; url: string };

const bad = (message: string, param: string) =>
  new InvalidRequestError(message, { code: 'parameter_invalid', param });

export function createCheckoutService(deps: {
  knex: Knex;
  acquirer: CardAcquirer;
  dispatcher: WebhookDispatcher;
  publicBaseUrl: string;
  /** Starts the lifecycle of a trial subscription created at completion; null without Temporal. */
  engine?: SubscriptionEngine | null;
  /**
   * Issues pending claims now (a claim batch named `batch`) instead of at the next scheduled batch;
   * unset or failing: the scheduled batch issues them (decision 0063).
   */
  issueClaims?: ((livemode: boolean, batch: string) => Promise<void>) | undefined;
}) {
  const sessions = createCheckoutSessionRepository(deps.knex);
  const products = createProductRepository(deps.knex);
  const prices = createPriceRepository(deps.knex);
  const variants = createVariantRepository(deps.knex);
  const customers = createCustomerRepository(deps.knex);
  const events = createEventRepository(deps.knex);
  const redemption = createRedemptionService(deps.knex);
  const payments = createPaymentService({ knex: deps.knex, acquirer: deps.acquirer });
  const subscriptions = createSubscriptionRepository(deps.knex);

  async function resolveItems(
    scope: Scope,
    items: ItemInput[],
    recurring = false,
  ): Promise<{ lines: LineItem[]; priceIds: (string | null)[] }> {
    const out: LineItem[] = [];
    const priceIds: (string | null)[] = [];
    for (const [i, item] of items.entries()) {
      const param = `items.${i}`;
      if ('description' in item) {
        if (recurring) throw bad('A subscription checkout needs a recurring price', param);
        out.push({
          id: newId(ID_PREFIX.lineItem),
          product_id: null,
          variant_id: null,
          description: item.description,
          quantity: item.quantity,
          unit_amount: item.unit_amount,
          vat_rate: item.vat_rate,
        });
        priceIds.push(null);
        continue;
      }
      let productId: string;
      let variantId: string | null = null;
      let priceId: string | null;
      if ('price' in item) {
        const price = await prices.findById(scope, item.price);
        if (!price || !price.active) throw missingReference('price', item.price, `${param}.price`);
        productId = price.product_id;
        variantId = price.variant_id;
        priceId = price.id;
      } else {
        productId = item.product;
        if (item.variant !== undefined) {
          const variant = await variants.findById(scope, item.product, item.variant);
          if (!variant || !variant.active)
            throw missingReference('variant', item.variant, `${param}.variant`);
          variantId = variant.id;
          priceId = variant.price_id;
        } else priceId = null;
      }
      const product = await products.findById(scope, productId);
      if (!product || !product.active) throw missingReference('product', productId, `${param}.product`);
      priceId ??= product.default_price_id;
      const price = priceId ? await prices.findById(scope, priceId) : undefined;
      if (!price) throw bad(`Product '${product.id}' has no default price`, `${param}.product`);
      if (recurring && price.type !== 'recurring')
        throw bad('A subscription checkout needs a recurring price', param);
      if (!recurring && price.type !== 'one_time')
        throw bad('Recurring prices are sold through subscriptions, not one-off checkout', `${param}`);
      priceIds.push(price.id);
      const variant = variantId ? await variants.findById(scope, product.id, variantId) : undefined;
      out.push({
        id: newId(ID_PREFIX.lineItem),
        product_id: product.id,
        variant_id: variantId,
        description: variant ? `${product.name} — ${variant.name}` : product.name,
        quantity: item.quantity,
        unit_amount: price.unit_amount,
        vat_rate: product.vat_rate,
      });
    }
    return { lines: out, priceIds };
  }

  const linesOf = (items: LineItem[]) =>
    items.map((l) => ({
      productId: l.product_id,
      quantity: l.quantity,
      unitAmount: l.unit_amount,
      vatRate: l.vat_rate,
    }));

  async function promotionId(
    scope: Scope,
    code: string,
    trx: Knex.Transaction | Knex = deps.knex,
  ): Promise<string | undefined> {
    const row = await trx('promotion_codes')
      .where({ merchant_id: scope.merchantId, livemode: scope.livemode, active: true })
      .whereRaw('lower(code) = lower(?)', [code])
      .first<{ id: string } | undefined>('id');
    return row?.id;
  }

  /** Prices a session's amount or items with a promotion code (checked, not yet counted). */
  async function priceWithCode(
    scope: Scope,
    s: Pick<CheckoutSessionRow, 'items' | 'amount_subtotal' | 'customer_id'>,
    code: string,
    trx: Knex.Transaction | Knex = deps.knex,
  ): Promise<{ pricing: Pricing; promotionCodeId: string }> {
    const pricing = await redemption.preview(
      scope,
      {
        target: { code },
        customerId: s.customer_id,
        ...(s.items.length > 0 ? { lines: linesOf(s.items) } : { amount: s.amount_subtotal }),
        idempotencyKey: 'preview',
      },
      trx,
    );
    return { pricing, promotionCodeId: (await promotionId(scope, code, trx))! };
  }

  const isTrial = (d: SubscriptionData) => d.trial_end !== null || d.trial_period_days !== null;

  /** The customer's time: its test clock's, or now. */
  async function customerNow(customerId: string, trx: Knex): Promise<{ now: Date; clockId: string | null }> {
    const row = await trx('customers')
      .leftJoin('test_clocks', 'test_clocks.id', 'customers.test_clock_id')
      .where('customers.id', customerId)
      .first<{ test_clock_id: string | null; frozen_time: Date | null }>(
        'customers.test_clock_id',
        'test_clocks.frozen_time',
      );
    return { now: row?.frozen_time ?? new Date(), clockId: row?.test_clock_id ?? null };
  }

  /** Checks and stores what a subscription session will subscribe to (decision 0050). */
  async function subscriptionDataOf(
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
      const now = customer ? (await customerNow(customer.id, deps.knex)).now : new Date();
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

  async function create(scope: Scope, input: SessionInput): Promise<CheckoutSessionRow> {
    const sources = [
      input.amount !== undefined,
      input.items !== undefined,
      input.product !== undefined,
    ].filter(Boolean);
    if (input.mode !== 'subscription' && input.subscription_data !== undefined)
      throw bad('subscription_data needs mode subscription', 'subscription_data');
    if (input.mode === 'subscription') {
      if (input.allow_custom_amount)
        throw bad(
          'A subscription checkout charges its recurring price, not a custom amount',
          'allow_custom_amount',
        );
      if (input.amount !== undefined)
        throw bad('A subscription checkout charges its recurring price: send items or product', 'amount');
      if (sources.length !== 1)
        throw new InvalidRequestError('Send exactly one of items or product', {
          code: sources.length === 0 ? 'parameter_missing' : 'parameter_invalid',
          param: 'items',
        });
      if (input.items !== undefined && input.items.length !== 1)
        throw bad('A subscription checkout has exactly one item, its recurring price', 'items');
      if (!deps.engine)
        throw new ServiceUnavailableError(
          'Subscription checkout needs the workflow engine, which is not connected',
          'workflow_engine_unavailable',
        );
    } else if (input.mode === 'setup') {
      if (sources.length > 0 || input.allow_custom_amount)
        throw bad(
          'A setup checkout saves a card and charges nothing: send no amount, items or product',
          'mode',
        );
    } else if (sources.length !== 1 && !(input.allow_custom_amount && sources.length === 0)) {
      throw new InvalidRequestError('Send exactly one of amount, items or product', {
        code: sources.length === 0 ? 'parameter_missing' : 'parameter_invalid',
        param: 'amount',
      });
    }
    if (input.allow_custom_amount && (input.items !== undefined || input.product !== undefined))
      throw bad(
        'allow_custom_amount works with a plain amount, not with items or product',
        'allow_custom_amount',
      );
    if (input.minimum_amount != null && !input.allow_custom_amount)
      throw bad('minimum_amount needs allow_custom_amount', 'minimum_amount');
    if (input.allow_custom_amount && input.promotion_code !== undefined)
      throw bad('A promotion code cannot discount a pay-what-you-want amount', 'promotion_code');

    let customer = null;
    if (input.customer) {
      customer = await customers.findById(scope, input.customer);
      if (!customer) throw missingReference('customer', input.customer, 'customer');
    }
    const recurring = input.mode === 'subscription';
    const resolved = input.items
      ? await resolveItems(scope, input.items, recurring)
      : input.product
        ? await resolveItems(scope, [{ product: input.product, quantity: 1 }], recurring)
        : { lines: [], priceIds: [] };
    const items = resolved.lines;
    const subscriptionData = recurring
      ? await subscriptionDataOf(input.subscription_data, items[0]!, resolved.priceIds[0]!, customer)
      : null;
    const subtotal =
      items.length > 0
        ? items.reduce((a, l) => a + l.unit_amount * l.quantity, 0)
        : input.mode === 'setup'
          ? 0
          : (input.amount ?? input.minimum_amount ?? 0);
    if (input.allow_custom_amount && input.minimum_amount != null && subtotal < input.minimum_amount)
      throw bad('amount must be at least minimum_amount', 'amount');

    let priced = {
      amount: subtotal,
      amount_subtotal: subtotal,
      discount_amount: 0,
      promotion_code_id: null as string | null,
    };
    if (input.promotion_code !== undefined) {
      const { pricing, promotionCodeId } = await priceWithCode(
        scope,
        { items, amount_subtotal: subtotal, customer_id: customer?.id ?? null },
        input.promotion_code,
      );
      priced = {
        amount: pricing.amount,
        amount_subtotal: pricing.amountSubtotal,
        discount_amount: pricing.discountAmount,
        promotion_code_id: promotionCodeId,
      };
    }
    // A trial charges nothing now; the code's coupon discounts the first charge after it (spec §2.1).
    if (subscriptionData && isTrial(subscriptionData))
      priced = { ...priced, amount: 0, amount_subtotal: 0, discount_amount: 0 };
    const session: NewSession = {
      mode: input.mode,
      ...priced,
      subscription_data: subscriptionData,
      success_url: input.success_url ?? null,
      cancel_url: input.cancel_url ?? null,
      save_payment_method: input.mode === 'payment' ? input.save_payment_method : true,
      customer_id: customer?.id ?? null,
      product_id: input.product ?? null,
      customer_email: input.customer_email ?? customer?.email ?? null,
      customer_name: input.customer_name ?? customer?.name ?? null,
      customer_phone: input.customer_phone ?? customer?.phone ?? null,
      locale: input.locale ?? null,
      items,
      form_fields: input.form_fields ?? null,
      allow_custom_amount: input.allow_custom_amount,
      minimum_amount: input.minimum_amount ?? null,
      payment_link_id: input.paymentLinkId ?? null,
      metadata: input.metadata ?? null,
    };
    return sessions.create(scope, session);
  }

  /** Applies (or with '' removes) a promotion code on an open session, from the checkout page. */
  async function applyCode(sessionId: string, code: string): Promise<CheckoutSessionRow | undefined> {
    // Under the session's lock, like paying: a code never changes a session being paid or paid.
    return deps.knex.transaction(async (trx) => {
      const session = await sessions.lockPublic(sessionId, trx);
      if (!session || session.status !== 'open' || session.allow_custom_amount || session.mode === 'setup')
        return session;
      const scope = { merchantId: session.merchant_id, livemode: session.livemode };
      if (code === '')
        return sessions.update(
          session.id,
          { amount: session.amount_subtotal, discount_amount: 0, promotion_code_id: null },
          trx,
        );
      const { pricing, promotionCodeId } = await priceWithCode(scope, session, code, trx);
      if (session.subscription_data && isTrial(session.subscription_data))
        return sessions.update(session.id, { promotion_code_id: promotionCodeId }, trx);
      return sessions.update(
        session.id,
        {
          amount: pricing.amount,
          amount_subtotal: pricing.amountSubtotal,
          discount_amount: pricing.discountAmount,
          promotion_code_id: promotionCodeId,
        },
        trx,
      );
    });
  }

  /** Checks the buyer's answers against the session's form fields. */
  function readFields(session: CheckoutSessionRow, input: PayInput) {
    const errors: Record<string, string> = {};
    const custom: Record<string, string> = {};
    const known: Record<string, string> = {};
    for (const f of effectiveFormFields(session.form_fields)) {
      const value = (input.fields[f.name] ?? '').trim().slice(0, 500);
      if (f.required && value === '') errors[f.name] = 'required';
      else if (f.type === 'email' && value !== '' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value))
        errors[f.name] = 'email';
      if (isKnownField(f.name)) known[f.name] = value;
      else if (value !== '') custom[f.name] = value;
    }
    let amount = session.amount;
    if (session.allow_custom_amount) {
      const raw = (input.customAmount ?? '').replace(/[\s.,]/g, '');
      const n = /^\d{1,12}$/.test(raw) ? Number(raw) : NaN;
      if (!Number.isSafeInteger(n) || n < Math.max(1, session.minimum_amount ?? 0))
        errors.custom_amount = 'minimum';
      else amount = n;
    }
    const hasCustomFields = effectiveFormFields(session.form_fields).some((f) => !isKnownField(f.name));
    return { errors, custom: hasCustomFields ? custom : null, known, amount };
  }

  /** Everything that may be refused only at completion: the promotion code, stock, the link's limit. */
  async function claimCompletion(
    scope: Scope,
    s: CheckoutSessionRow,
    trx: Knex.Transaction,
  ): Promise<string | null> {
    try {
      await trx.transaction(async (t) => {
        if (s.promotion_code_id) {
          await redemption.redeem(
            scope,
            {
              target: { promotionCodeId: s.promotion_code_id },
              customerId: s.customer_id,
              ...(s.items.length > 0 ? { lines: linesOf(s.items) } : { amount: s.amount_subtotal }),
              idempotencyKey: s.id,
            },
            t,
          );
        }
        for (const item of s.items) {
          if (item.variant_id && !(await variants.takeStock(scope, item.variant_id, item.quantity, t)))
            throw new InvalidRequestError(`${item.description} is sold out`, { code: 'out_of_stock' });
        }
        if (s.payment_link_id) {
          const rows = await t('payment_links')
            .where({ id: s.payment_link_id, active: true })
            .andWhere((q) =>
              q
                .whereNull('completed_sessions_limit')
                .orWhereRaw('completed_sessions_count < completed_sessions_limit'),
            )
            .increment('completed_sessions_count', 1)
            .returning('id');
          if (rows.length !== 1)
            throw new InvalidRequestError('This payment link is no longer available', {
              code: 'payment_link_inactive',
            });
        }
      });
      return null;
    } catch (err) {
      if (err instanceof ApiError) return err.message;
      throw err;
    }
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
    const { now, clockId } = await customerNow(customerId, trx);
    const price = await trx('prices')
      .where({ id: data.price })
      .first<{ recurring_interval: 'week' | 'month' | 'year'; recurring_interval_count: number }>(
        'recurring_interval',
        'recurring_interval_count',
      );
    const couponId = s.promotion_code_id
      ? (
          await trx('promotion_codes')
            .where({ id: s.promotion_code_id })
            .first<{ coupon_id: string }>('coupon_id')
        ).coupon_id
      : null;
    const trialEnd =
      data.trial_end !== null
        ? new Date(data.trial_end)
        : data.trial_period_days !== null
          ? new Date(now.getTime() + data.trial_period_days * 86_400_000)
          : null;
    const period = periodAt(
      now,
      { interval: price.recurring_interval, intervalCount: price.recurring_interval_count },
      0,
    );
    const sub = await subscriptions.create(
      scope,
      {
        id: newId(ID_PREFIX.subscription),
        customer_id: customerId,
        price_id: data.price,
        quantity: data.quantity,
        payment_method_id: paymentMethodId,
        collection_method: 'charge_automatically',
        test_clock_id: clockId,
        ...(trialEnd
          ? {
              status: 'trialing' as const,
              billing_cycle_anchor: trialEnd,
              current_period_index: -1,
              current_period_start: now,
              current_period_end: trialEnd,
              trial_start: now,
              trial_end: trialEnd,
            }
          : {
              status: 'active' as const,
              billing_cycle_anchor: now,
              current_period_index: 0,
              current_period_start: period.start,
              current_period_end: period.end,
              trial_start: null,
              trial_end: null,
            }),
        trial_ended_at: null,
        payment_retry_requested: false,
        missing_payment_method: 'cancel',
        paused: false,
        cancel_at_period_end: false,
        cancellation_reason: null,
        canceled_at: null,
        ended_at: null,
        pending_price_id: null,
        proration_amount: 0,
        // The coupon counts its duration from period 0, the first charge (decision 0046).
        coupon_id: couponId,
        discount_period_index: couponId ? 0 : null,
        discount_start: couponId ? now : null,
        dunning_retry_days: [...DEFAULT_RETRY_DAYS],
        dunning_end_state: 'canceled',
        payment_failed_at: null,
        metadata: data.metadata,
      },
      trx,
    );
    const types: { type: string; data: Record<string, unknown> }[] = [
      { type: 'subscription.created', data: subscriptionObject(sub) },
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
        status: 'paid',
        attempt_count: 1,
        payment_intent_id: paymentIntentId,
        paid_at: now,
      };
      // The unique (subscription, period_start) key holds period 0 against any second charge.
      await trx('renewals').insert(renewal);
      if (paymentIntentId)
        await trx('payment_intents').where({ id: paymentIntentId }).update({ subscription_id: sub.id });
      types.push({
        type: 'subscription.activated',
        data: {
          ...subscriptionObject(sub),
          latest_renewal: {
            id: renewal.id,
            object: 'renewal' as const,
            period_start: Math.floor(period.start.getTime() / 1000),
            period_end: Math.floor(period.end.getTime() / 1000),
            price: data.price,
            amount_subtotal: renewal.amount_subtotal,
            discount_amount: renewal.discount_amount,
            amount: renewal.amount,
            vat_amount: renewal.vat_amount,
            proration_amount: 0,
            currency: 'ISK' as const,
            status: 'paid' as const,
            attempt_count: 1,
            payment_intent: paymentIntentId,
          },
        },
      });
    }
    for (const e of types) wake.push(...(await events.record(scope, e, trx)).channelIds);
    return sub;
  }

  async function complete(
    scope: Scope,
    s: CheckoutSessionRow,
    paymentStatus: 'paid' | 'no_payment_required' | 'awaiting_claim',
    paymentMethodId: string | null,
    paymentIntentId: string | null,
    trx: Knex.Transaction,
    wake: string[],
    started: SubscriptionRow[],
  ): Promise<CheckoutSessionRow> {
    let customerId = s.customer_id;
    let savedId: string | null = null;
    if (s.save_payment_method && paymentMethodId) {
      if (!customerId) {
        const created = await customers.create(
          scope,
          { name: s.customer_name, email: s.customer_email, phone: s.customer_phone },
          trx,
        );
        customerId = created.id;
      }
      await payments.methods.attach(scope, paymentMethodId, customerId, trx);
      await trx('customers')
        .where({ id: customerId })
        .whereNull('default_payment_method_id')
        .update({ default_payment_method_id: paymentMethodId });
      savedId = paymentMethodId;
    }
    if (paymentIntentId && customerId)
      await payments.intents.update(paymentIntentId, { customer_id: customerId }, trx);
    let subscriptionId: string | null = null;
    if (s.mode === 'subscription') {
      const sub = await subscribe(scope, s, customerId!, savedId!, paymentIntentId, trx, wake);
      subscriptionId = sub.id;
      if (sub.status === 'trialing') started.push(sub);
    }
    const done = await sessions.update(
      s.id,
      {
        status: 'complete',
        payment_status: paymentStatus,
        completed_at: new Date(),
        customer_id: customerId,
        payment_method_id: savedId,
        payment_intent_id: paymentIntentId,
        subscription_id: subscriptionId,
      },
      trx,
    );
    const recorded = await events.record(
      scope,
      { type: 'checkout.session.completed', data: presentSession(done, deps.publicBaseUrl) },
      trx,
    );
    wake.push(...recorded.channelIds);
    return done;
  }

  /** After an authorization: claims, capture, completion; a refused claim voids the hold. */
  async function finish(
    scope: Scope,
    s: CheckoutSessionRow,
    outcome: AttemptOutcome,
    trx: Knex.Transaction,
    wake: string[],
    started: SubscriptionRow[],
  ): Promise<PayOutcome> {
    if (outcome.kind === 'requires_action') return { kind: 'action', url: outcome.url };
    if (outcome.kind === 'declined') return { kind: 'declined', message: outcome.error.message, session: s };
    const refused = await claimCompletion(scope, s, trx);
    if (refused) {
      await payments.release(scope, outcome.intent, refused, trx);
      return { kind: 'declined', message: refused, session: s };
    }
    const captured = await payments.capture(scope, outcome.intent, outcome.intent.amount, trx, wake);
    const done = await complete(
      scope,
      s,
      'paid',
      captured.payment_method_id,
      captured.id,
      trx,
      wake,
      started,
    );
    return { kind: 'complete', session: done };
  }

  async function afterCommit(wake: string[], started: SubscriptionRow[] = []) {
    await deps.dispatcher.wake(wake);
    // A trial's lifecycle sleeps until trial_end, then ends it and takes the first charge.
    if (started.length > 0)
      await deps.engine!.notify(
        started.map((r) => ({
          merchantId: r.merchant_id,
          livemode: r.livemode,
          subscriptionId: r.id,
          testClockId: r.test_clock_id,
        })),
      );
  }

  /**
   * Whether the session may be paid with a krafa: a one-off payment (nothing saved for later) of a
   * merchant with `payments.bank_claim` enabled and a kennitala to issue claims under.
   */
  async function claimsOffered(s: CheckoutSessionRow, trx: Knex | Knex.Transaction = deps.knex) {
    if (s.mode !== 'payment' || s.save_payment_method || (s.amount <= 0 && !s.allow_custom_amount))
      return null;
    const merchant = await trx<MerchantRow>('merchants').where({ id: s.merchant_id }).first();
    if (!merchant?.kennitala) return null;
    if (!enabledCapabilities(onboardingState(merchant), s.livemode).includes('payments.bank_claim'))
      return null;
    return {
      kennitala: merchant.kennitala,
      bankAccount: merchant.bank_account,
      terms: claimTermsRuleOf(merchant.claim_terms),
    };
  }

  return {
    sessions,
    create,
    applyCode,
    claimsOffered,

    /**
     * The buyer pays with a krafa (decision 0063): the session completes `awaiting_claim` and a
     * pending claim for its amount, due per CHECKOUT_CLAIM_TERMS, is linked to it; the claim batch
     * started after commit issues it (`claim.created`), and the claim payments sync marks it paid.
     */
    async payByClaim(
      sessionId: string,
      input: { fields: Record<string, string>; customAmount?: string | undefined; kennitala: string },
    ): Promise<PayOutcome> {
      const wake: string[] = [];
      const result = await deps.knex.transaction(async (trx): Promise<PayOutcome> => {
        const s = await sessions.lockPublic(sessionId, trx);
        if (!s || s.status !== 'open') return { kind: 'closed', session: s! };
        const scope = { merchantId: s.merchant_id, livemode: s.livemode };
        const claimant = await claimsOffered(s, trx);
        if (!claimant) return { kind: 'invalid', errors: { kennitala: 'unavailable' } };
        const read = readFields(s, { ...input, returnUrl: '' });
        const kt = checkKennitala(input.kennitala.trim());
        if (!kt.ok) read.errors.kennitala = 'invalid';
        if (!kt.ok || Object.keys(read.errors).length > 0) return { kind: 'invalid', errors: read.errors };
        const session = await sessions.update(
          s.id,
          {
            custom_fields: read.custom,
            ...(read.known.name !== undefined && { customer_name: read.known.name || s.customer_name }),
            ...(read.known.email !== undefined && { customer_email: read.known.email || s.customer_email }),
            ...(read.known.phone !== undefined && { customer_phone: read.known.phone || s.customer_phone }),
            ...(s.allow_custom_amount && { amount: read.amount, amount_subtotal: read.amount }),
          },
          trx,
        );
        const refused = await claimCompletion(scope, session, trx);
        if (refused) return { kind: 'declined', message: refused, session };
        // Real time, not a customer's test clock: such a claim is not clock-bound (decision 0064).
        const dates = claimDatesFor(new Date().toISOString().slice(0, 10), claimant.terms);
        await insertClaim(trx, {
          merchantId: s.merchant_id,
          livemode: s.livemode,
          claimantKennitala: claimant.kennitala,
          bankAccount: claimant.bankAccount,
          customerId: session.customer_id,
          payerKennitala: kt.kennitala.value,
          amount: session.amount,
          ...dates,
          description:
            session.items
              .map((i) => i.description)
              .join(', ')
              .slice(0, 200) || null,
          metadata: { checkout_session: session.id },
          checkoutSessionId: session.id,
        });
        const done = await complete(scope, session, 'awaiting_claim', null, null, trx, wake, []);
        return { kind: 'complete', session: done };
      });
      await afterCommit(wake);
      if (result.kind === 'complete' && deps.issueClaims)
        await deps.issueClaims(result.session.livemode, `checkout-${result.session.id}`);
      return result;
    },

    /**
     * The buyer pays. The session row is locked for the whole attempt, so a double-clicked pay
     * button or a second tab waits and then finds the session complete: it is paid once.
     */
    async pay(sessionId: string, input: PayInput): Promise<PayOutcome> {
      const wake: string[] = [];
      const started: SubscriptionRow[] = [];
      const result = await deps.knex.transaction(async (trx): Promise<PayOutcome> => {
        const s = await sessions.lockPublic(sessionId, trx);
        if (!s || s.status !== 'open') return { kind: 'closed', session: s! };
        const scope = { merchantId: s.merchant_id, livemode: s.livemode };
        const read = readFields(s, input);
        if (Object.keys(read.errors).length > 0) return { kind: 'invalid', errors: read.errors };
        let session = await sessions.update(
          s.id,
          {
            custom_fields: read.custom,
            ...(read.known.name !== undefined && { customer_name: read.known.name || s.customer_name }),
            ...(read.known.email !== undefined && { customer_email: read.known.email || s.customer_email }),
            ...(read.known.phone !== undefined && { customer_phone: read.known.phone || s.customer_phone }),
            ...(s.allow_custom_amount && { amount: read.amount, amount_subtotal: read.amount }),
          },
          trx,
        );
        const needsCard = session.amount > 0 || session.save_payment_method;
        let pmId: string | null = null;
        if (needsCard) {
          const card = input.wallet
            ? {
                number: '4242424242424242',
                exp_month: 12,
                exp_year: new Date().getUTCFullYear() + 3,
                cvc: '123',
                wallet: input.wallet,
              }
            : input.card;
          if (!card) return { kind: 'invalid', errors: { card: 'required' } };
          try {
            pmId = (await payments.tokenizeCard(scope, card, null, trx)).id;
          } catch (err) {
            if (err instanceof ApiError) return { kind: 'declined', message: err.message, session };
            throw err;
          }
        }
        if (session.amount === 0) {
          const refused = await claimCompletion(scope, session, trx);
          if (refused) return { kind: 'declined', message: refused, session };
          return {
            kind: 'complete',
            session: await complete(scope, session, 'no_payment_required', pmId, null, trx, wake, started),
          };
        }
        let intent = await payments.intents.findBySession(scope, session.id, trx);
        if (intent && intent.amount !== session.amount)
          intent = await payments.intents.update(intent.id, { amount: session.amount }, trx);
        intent ??= await payments.intents.create(
          scope,
          {
            amount: session.amount,
            captureMethod: 'automatic',
            customerId: session.customer_id,
            checkoutSessionId: session.id,
            description: session.items.map((i) => i.description).join(', ') || null,
          },
          trx,
        );
        session = await sessions.update(session.id, { payment_intent_id: intent.id }, trx);
        const pm = (await payments.methods.findById(scope, pmId!, trx))!;
        const outcome = await payments.attempt(scope, intent, pm, input.returnUrl, trx, wake);
        return finish(scope, session, outcome, trx, wake, started);
      });
      await afterCommit(wake, started);
      return result;
    },

    /** The buyer is back from a 3-D Secure challenge. */
    async resume(sessionId: string): Promise<PayOutcome> {
      const wake: string[] = [];
      const started: SubscriptionRow[] = [];
      const result = await deps.knex.transaction(async (trx): Promise<PayOutcome> => {
        const s = await sessions.lockPublic(sessionId, trx);
        if (!s || s.status !== 'open' || !s.payment_intent_id) return { kind: 'closed', session: s! };
        const scope = { merchantId: s.merchant_id, livemode: s.livemode };
        const intent = (await payments.intents.lock(scope, s.payment_intent_id, trx))!;
        const outcome = await payments.resume(scope, intent, trx, wake);
        if (!outcome) return { kind: 'declined', message: DECLINE_MESSAGES.generic_decline!, session: s };
        return finish(scope, s, outcome, trx, wake, started);
      });
      await afterCommit(wake, started);
      return result;
    },

    /** Where the buyer goes after paying: success_url with the id substituted, or our own page. */
    successUrl(s: CheckoutSessionRow): string {
      return s.success_url ? successRedirect(s.success_url, s.id) : `${deps.publicBaseUrl}/checkout/${s.id}`;
    },
  };
}

export type CheckoutService = ReturnType<typeof createCheckoutService>;
