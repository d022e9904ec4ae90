import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { SubscriptionEngine } from '../../engine/subscription-engine';
import {
  createCheckoutSessionRepository,
  type CheckoutSessionRow,
  type LineItem,
  type NewSession,
} from '../../db/checkout-sessions';
import { createProductRepository } from '../../db/products';
import { createPriceRepository } from '../../db/prices';
import { createVariantRepository } from '../../db/product-variants';
import { createCustomerRepository } from '../../db/customers';
import { newId, ID_PREFIX } from '../../domain/ids';
import { InvalidRequestError, ServiceUnavailableError } from '../../domain/errors';
import { priceLine, type PricedLine } from '../../domain/line-pricing';
import { findOr404, missingReference } from '../lookup';
import { checkedVatTreatment } from '../vat-treatment';
import { conflictingVatLine, VAT_CONFLICT_MESSAGE } from '../../domain/vat-category';
import type { PageOptions } from '../../db/tenant';
import { presentSession } from './checkout-session-object';
import { bad, type ItemInput, type SessionInput } from './inputs';
import type { CheckoutPromotionCodes } from './promotion-codes';
import { isTrial, type SubscriptionSignup } from './subscription-signup';
import type { CarrierService } from '../delivery/carriers';
import type { PickupPoint } from '../../domain/delivery';

/** A checkout line item as stored: the priced line without its amounts, which the session keeps. */
const lineItem = (line: PricedLine, variantId: string | null): LineItem => ({
  id: newId(ID_PREFIX.lineItem),
  product_id: line.product_id,
  variant_id: variantId,
  description: line.description,
  quantity: line.quantity,
  unit_amount: line.unit_amount,
  vat_rate: line.vat_rate,
  vat_category: line.vat_category,
  vat_exemption_reason: line.vat_exemption_reason,
  vat_exemption_reason_code: line.vat_exemption_reason_code,
});

/** Creating checkout sessions: what they sell, at what price, for whom (spec §2.1). */
export function createCheckoutSessions(deps: {
  knex: Knex;
  publicBaseUrl: string;
  engine?: SubscriptionEngine | null;
  promotionCodes: CheckoutPromotionCodes;
  signup: SubscriptionSignup;
  /** Pickup points; unset: a session asking for one is refused. */
  carriers?: CarrierService | undefined;
}) {
  const sessions = createCheckoutSessionRepository(deps.knex);
  const products = createProductRepository(deps.knex);
  const prices = createPriceRepository(deps.knex);
  const variants = createVariantRepository(deps.knex);
  const customers = createCustomerRepository(deps.knex);
  const { priceWithCode } = deps.promotionCodes;
  const { subscriptionDataOf } = deps.signup;

  async function resolveItems(
    scope: Scope,
    items: ItemInput[],
    recurring = false,
    /** The one item came as the `product` shorthand: errors name `product`, not `items.0`. */
    shorthand = false,
  ): Promise<{ lines: LineItem[]; priceIds: (string | null)[]; subtotal: number }> {
    const out: LineItem[] = [];
    const priceIds: (string | null)[] = [];
    let subtotal = 0;
    for (const [i, item] of items.entries()) {
      const param = shorthand ? 'product' : `items.${i}`;
      const productParam = shorthand ? 'product' : `${param}.product`;
      if ('description' in item) {
        if (recurring) throw bad('A subscription checkout needs a recurring price', param);
        const line = priceLine(
          {
            description: item.description,
            unitAmount: item.unit_amount,
            vatRate: item.vat_rate,
            vat: checkedVatTreatment(item.vat_rate, item, `${param}.`),
          },
          item.quantity,
        );
        out.push(lineItem(line, null));
        subtotal += line.amount;
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
      if (!product || !product.active) throw missingReference('product', productId, productParam);
      priceId ??= product.default_price_id;
      const price = priceId ? await prices.findById(scope, priceId) : undefined;
      if (!price) throw bad(`Product '${product.id}' has no default price`, productParam);
      if (recurring && price.type !== 'recurring')
        throw bad('A subscription checkout needs a recurring price', param);
      if (!recurring && price.type !== 'one_time')
        throw bad('Recurring prices are sold through subscriptions, not one-off checkout', `${param}`);
      priceIds.push(price.id);
      const variant = variantId ? await variants.findById(scope, product.id, variantId) : undefined;
      const line = priceLine({ product, variant, unitAmount: price.unit_amount }, item.quantity);
      // The price's variant stays on the line even if that variant is gone since (decision 0022).
      out.push(lineItem(line, variantId));
      subtotal += line.amount;
    }
    // One invoice holds one kind: outside the scope, exempt, or taxable (decision 0234).
    const conflict = conflictingVatLine(out.map((l) => l.vat_category ?? null));
    if (conflict >= 0) throw bad(VAT_CONFLICT_MESSAGE, `items.${conflict}.vat_category`);
    return { lines: out, priceIds, subtotal };
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

    const pickup = await pickupOf(scope, input);

    let customer = null;
    if (input.customer) {
      customer = await customers.findById(scope, input.customer);
      if (!customer) throw missingReference('customer', input.customer, 'customer');
    }
    const recurring = input.mode === 'subscription';
    const resolved = input.items
      ? await resolveItems(scope, input.items, recurring)
      : input.product
        ? await resolveItems(scope, [{ product: input.product, quantity: 1 }], recurring, true)
        : { lines: [], priceIds: [], subtotal: 0 };
    const items = resolved.lines;
    const subscriptionData = recurring
      ? await subscriptionDataOf(scope, input.subscription_data, items[0]!, resolved.priceIds[0]!, customer)
      : null;
    const subtotal =
      items.length > 0
        ? resolved.subtotal
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
      // A session for a known customer invoices that customer as it stands (decision 0212).
      business_invoice: (input.business_invoice?.enabled ?? false) && !customer,
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
      ...pickup,
    };
    return sessions.create(scope, session);
  }

  /** The pickup-point step a session asks for, its carriers active here (decision 0134). */
  async function pickupOf(
    scope: Scope,
    input: SessionInput,
  ): Promise<{ pickup_point_carriers: string[] | null; pickup_point: PickupPoint | null }> {
    if (input.pickup_point_carriers === undefined && input.pickup_point === undefined)
      return { pickup_point_carriers: null, pickup_point: null };
    const param = input.pickup_point_carriers !== undefined ? 'pickup_point_carriers' : 'pickup_point';
    if (input.mode !== 'payment') throw bad('Pickup points go with mode payment', param);
    if (!deps.carriers)
      throw new InvalidRequestError('No pickup-point carrier is active in this environment', {
        code: 'carrier_not_active',
        param,
      });
    const wanted = input.pickup_point_carriers ?? [input.pickup_point!.split(':')[0]!];
    const carriers = await deps.carriers.requireActive(scope, [...new Set(wanted)].sort(), param);
    const point = input.pickup_point
      ? await deps.carriers.point(scope, input.pickup_point, carriers, 'pickup_point')
      : null;
    return { pickup_point_carriers: carriers, pickup_point: point };
  }

  const present = (row: CheckoutSessionRow) => presentSession(row, deps.publicBaseUrl);

  return {
    sessions,

    /**
     * The pickup points the hosted page offers for a session: its carriers that are active now,
     * found by the buyer's search; null when the session asks for none or none is active.
     */
    async pickupPointsFor(
      s: CheckoutSessionRow,
      query: { q?: string | undefined; near?: { latitude: number; longitude: number } | undefined },
    ) {
      if (!s.pickup_point_carriers || !deps.carriers) return null;
      const scope = { merchantId: s.merchant_id, livemode: s.livemode };
      const active = await deps.carriers.activeCarriers(scope);
      const carriers = s.pickup_point_carriers.filter((c) => (active as string[]).includes(c));
      if (carriers.length === 0) return null;
      const q = query.q?.trim() ?? '';
      const found = await Promise.all(
        carriers.map((carrier) =>
          deps.carriers!.search(scope, {
            carrier,
            ...(/^\d{3}$/.test(q) ? { postcode: q } : { q }),
            near: query.near,
            limit: 100,
          }),
        ),
      );
      const all = found.flat();
      if (query.near) all.sort((a, b) => (a.distance_m ?? 0) - (b.distance_m ?? 0));
      return all;
    },

    /**
     * The buyer picks a pickup point on the hosted page: only on an open session that asks for one,
     * and only among its carriers' points.
     */
    async choosePickupPoint(sessionId: string, pointId: string): Promise<CheckoutSessionRow> {
      const s = await sessions.findPublic(sessionId);
      if (!s || s.status !== 'open' || !s.pickup_point_carriers || !deps.carriers)
        throw bad('This checkout does not take a pickup point now', 'pickup_point');
      const scope = { merchantId: s.merchant_id, livemode: s.livemode };
      const carriers = await deps.carriers.requireActive(scope, s.pickup_point_carriers, 'pickup_point');
      const point = await deps.carriers.point(scope, pointId, carriers, 'pickup_point');
      return sessions.update(s.id, { pickup_point: point });
    },

    /** Creates an open session (the checkout session object of spec §2.1). */
    async create(scope: Scope, input: SessionInput) {
      return present(await create(scope, input));
    },

    async retrieve(scope: Scope, id: string) {
      return present(
        await findOr404(
          'checkout session',
          scope,
          id,
          () => sessions.findById(scope, id),
          () => sessions.existsInOtherMode(scope, id),
        ),
      );
    },

    /** Newest first. */
    async list(scope: Scope, opts: PageOptions) {
      const page = await sessions.list(scope, opts);
      return { data: page.data.map(present), hasMore: page.hasMore };
    },
  };
}
