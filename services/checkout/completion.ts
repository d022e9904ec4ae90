import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { WebhookDispatcher } from '../../engine/webhook-dispatch';
import type { SubscriptionEngine } from '../../engine/subscription-engine';
import {
  createCheckoutSessionRepository,
  type BusinessBuyer,
  type CheckoutSessionRow,
} from '../../db/checkout-sessions';
import { checkKennitala } from '../../domain/kennitala';
import type { SubscriptionRow } from '../../db/subscriptions';
import { createVariantRepository } from '../../db/product-variants';
import { createCustomerRepository } from '../../db/customers';
import { createEventRepository } from '../../db/events';
import { createRedemptionService } from '../../db/coupon-redemptions';
import { createPaymentLinkRepository } from '../../db/payment-links';
import { effectiveFormFields, isKnownField } from '../../domain/checkout';
import { ApiError, InvalidRequestError } from '../../domain/errors';
import type { PaymentService } from '../payments/card-payments';
import type { PayInput } from './inputs';
import { linesOf } from './promotion-codes';
import type { SubscriptionSignup } from './subscription-signup';
import { presentSession } from './checkout-session-object';
import { createDeliveryRepository } from '../../db/deliveries';
import type { DeliveryService } from '../delivery/deliveries';
import type { Logger } from '../../stack/logger';

/**
 * Completing a paid (or free, or krafa) session, shared by card and claim payment: the buyer's
 * answers, what may still be refused (code, stock, link limit), and the completion itself.
 */
export function createCheckoutCompletion(deps: {
  knex: Knex;
  payments: PaymentService;
  signup: SubscriptionSignup;
  dispatcher: WebhookDispatcher;
  publicBaseUrl: string;
  engine?: SubscriptionEngine | null;
  /** Books the delivery of a paid session with a pickup point; unset: no pickup points. */
  delivery?: { deliveries: DeliveryService; log: Logger } | undefined;
}) {
  const sessions = createCheckoutSessionRepository(deps.knex);
  const variants = createVariantRepository(deps.knex);
  const customers = createCustomerRepository(deps.knex);
  const events = createEventRepository(deps.knex);
  const redemption = createRedemptionService(deps.knex);
  const links = createPaymentLinkRepository(deps.knex);
  const deliveries = createDeliveryRepository(deps.knex);
  const { payments } = deps;
  const { subscribe } = deps.signup;

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
    const business = session.business_invoice ? readBusinessBuyer(input.business, errors) : null;
    return { errors, custom: hasCustomFields ? custom : null, known, amount, business };
  }

  /** The session's columns the buyer's answers set: custom fields, contact details, the amount typed. */
  function answersPatch(s: CheckoutSessionRow, read: ReturnType<typeof readFields>) {
    return {
      custom_fields: read.custom,
      ...(read.known.name !== undefined && { customer_name: read.known.name || s.customer_name }),
      ...(read.known.email !== undefined && { customer_email: read.known.email || s.customer_email }),
      ...(read.known.phone !== undefined && { customer_phone: read.known.phone || s.customer_phone }),
      ...(s.allow_custom_amount && { amount: read.amount, amount_subtotal: read.amount }),
      ...(s.business_invoice && { business_buyer: read.business }),
    };
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
          if (!(await links.countCompletion(s.payment_link_id, t)))
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
    // "Invoice to a company": the company becomes the session's customer, marked business, so the
    // invoice issued for this payment is a business e-invoice (decisions 0210, 0212).
    if (s.business_buyer && !customerId) {
      const b = s.business_buyer;
      const created = await customers.create(
        scope,
        {
          name: b.name,
          email: s.customer_email,
          phone: s.customer_phone,
          kennitala: b.kennitala,
          address: { line1: b.line1, line2: null, postal_code: b.postal_code, city: b.city, country: 'IS' },
          business: true,
        },
        trx,
      );
      customerId = created.id;
    }
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
      await payments.methods.setDefaultIfUnset(customerId, paymentMethodId, trx);
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
    // Shipping is booked on paid, never on complete (spec §3): the delivery is written with the
    // payment, one per session, and booked with the carrier once this commits.
    if (paymentStatus === 'paid') await recordDelivery(scope, done, trx);
    return done;
  }

  /** The session's delivery, pending booking; at most one per session (decision 0134). */
  async function recordDelivery(scope: Scope, s: CheckoutSessionRow, trx: Knex.Transaction): Promise<void> {
    if (!s.pickup_point) return;
    await deliveries.createForSession(
      scope,
      {
        sessionId: s.id,
        point: s.pickup_point,
        recipient: { name: s.customer_name, email: s.customer_email, phone: s.customer_phone },
      },
      trx,
    );
  }

  /**
   * After commit: books the paid session's delivery with its carrier. The payment stands whatever
   * the carrier says; a delivery the carrier could not take stays pending, to be booked again.
   */
  async function bookDelivery(s: CheckoutSessionRow): Promise<void> {
    if (!deps.delivery || !s.pickup_point || s.payment_status !== 'paid') return;
    const scope = { merchantId: s.merchant_id, livemode: s.livemode };
    const [d] = (await deliveries.list(scope, { limit: 1, checkoutSessionId: s.id })).data;
    if (!d) return;
    try {
      await deps.delivery.deliveries.book(scope, d.id);
    } catch (err) {
      deps.delivery.log.warn({ err, delivery: d.id }, 'could not book the delivery with its carrier');
    }
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

  return { readFields, answersPatch, claimCompletion, complete, afterCommit, recordDelivery, bookDelivery };
}

export type CheckoutCompletion = ReturnType<typeof createCheckoutCompletion>;

/**
 * "Invoice to a company" as the buyer filled it in (decision 0212): null when not asked for; else
 * the company, or the fields at fault added to `errors` (kennitala checked as the API checks it).
 */
function readBusinessBuyer(
  input: PayInput['business'],
  errors: Record<string, string>,
): BusinessBuyer | null {
  if (!input) return null;
  const v = {
    kennitala: input.kennitala.replace(/[\s-]/g, ''),
    name: input.name.trim().slice(0, 255),
    line1: input.line1.trim().slice(0, 200),
    postal_code: input.postal_code.trim().slice(0, 20),
    city: input.city.trim().slice(0, 100),
  };
  const kt = checkKennitala(v.kennitala);
  if (!kt.ok) errors.business_kennitala = v.kennitala === '' ? 'required' : 'invalid';
  for (const f of ['name', 'line1', 'postal_code', 'city'] as const)
    if (v[f] === '') errors[`business_${f}`] = 'required';
  return kt.ok ? { ...v, kennitala: kt.kennitala.value } : null;
}
