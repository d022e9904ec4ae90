import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { WebhookDispatcher } from '../../engine/webhook-dispatch';
import {
  createPlatformConnectionRepository,
  type PlatformConnectionRow,
  type PlatformOrderRow,
} from '../../db/platform-connections';
import { createCheckoutSessionRepository } from '../../db/checkout-sessions';
import { createPaymentIntentRepository } from '../../db/payment-intents';
import { createDeliveryRepository } from '../../db/deliveries';
import {
  isPlatform,
  normalizeShop,
  parseShopifyOrder,
  parseWooOrder,
  verifyPlatformSignature,
  type ParsedOrder,
  type Platform,
  type PlatformOrder,
} from '../../domain/platform-orders';
import { isCancelable } from '../../domain/delivery';
import { SEALED_AT, type SecretBox } from '../../domain/secret-box';
import { ApiError, AuthenticationError, InvalidRequestError, NotFoundError } from '../../domain/errors';
import type { CheckoutService } from '../checkout';
import type { createClaimsService } from '../claims/claims-service';
import type { createRefundService } from '../payments/refunds';
import type { CarrierService } from '../delivery/carriers';
import type { DeliveryService } from '../delivery/deliveries';

/** The services an order acts through, bound to the webhook's one transaction. */
export interface OrderServices {
  checkout: CheckoutService;
  claims: ReturnType<typeof createClaimsService>;
  refunds: ReturnType<typeof createRefundService>;
}

export interface InboundResult {
  received: true;
  duplicate: boolean;
  checkout_session: { id: string; url: string } | null;
  claim: string | null;
}

const WOO_TOPICS = ['order.created', 'order.updated', 'order.restored'];
const SHOPIFY_TOPICS = ['orders/create', 'orders/updated', 'orders/paid', 'orders/cancelled'];
const CLAIM_DUE_DAYS = 14;

const header = (headers: Record<string, string | string[] | undefined>, name: string): string | undefined => {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** WooCommerce's creation ping: a body of `webhook_id` alone, a number. */
function isWooPing(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const keys = Object.keys(body);
  const id = (body as Record<string, unknown>).webhook_id;
  return (
    keys.length === 1 && (typeof id === 'string' || typeof id === 'number') && /^\d{1,20}$/.test(String(id))
  );
}

/**
 * `POST /api/v1/<platform>/webhook/` (spec §4.7; decisions 0135, 0136): finds the merchant's
 * connection from the platform's own headers, verifies the platform's signature over the raw body
 * with that connection's secret, skips a delivery seen before, and turns the order into a checkout
 * session or a krafa (with its delivery to a pickup point), applying later cancellations and refunds.
 * A refused webhook (401, 400) changes nothing: everything happens in one transaction.
 */
export function createInboundWebhooks(deps: {
  knex: Knex;
  secrets: SecretBox;
  dispatcher: WebhookDispatcher;
  carriers: CarrierService;
  deliveries: DeliveryService;
  /** The order services on a transaction, waking channels through `dispatcher`. */
  servicesOn: (trx: Knex.Transaction, dispatcher: WebhookDispatcher) => OrderServices;
}) {
  const connections = createPlatformConnectionRepository(deps.knex);

  async function connectionOf(platform: Platform, shopHeader: string | undefined) {
    if (!shopHeader) return undefined;
    return connections.findByShop(platform, normalizeShop(platform, shopHeader));
  }

  /** The pickup point to preset, or the active carriers for the buyer to choose among. */
  async function pickupOf(scope: Scope, order: PlatformOrder) {
    if (!order.pickupPointId) return {};
    const active = await deps.carriers.activeCarriers(scope);
    if (active.length === 0) return {};
    try {
      await deps.carriers.point(scope, order.pickupPointId, active, 'pickup_point');
      return { pickup_point: order.pickupPointId };
    } catch (err) {
      if (err instanceof ApiError) return { pickup_point_carriers: active };
      throw err;
    }
  }

  async function create(
    scope: Scope,
    conn: PlatformConnectionRow,
    row: PlatformOrderRow,
    order: PlatformOrder,
    services: OrderServices,
    trx: Knex.Transaction,
  ) {
    const metadata = { platform: conn.platform, shop: conn.shop, order_id: order.id };
    const repo = createPlatformConnectionRepository(trx);
    if (conn.claim_payment_methods.includes(order.paymentMethod) && order.kennitala) {
      const due = new Date(Date.now() + CLAIM_DUE_DAYS * 86_400_000).toISOString().slice(0, 10);
      const claim = await services.claims.create(scope, {
        payer_kennitala: order.kennitala,
        amount: order.total,
        due_date: due,
        description: order.description.slice(0, 255),
        metadata,
      });
      await repo.updateOrder(row, { claim_id: claim.id, status: 'claim' }, trx);
      return;
    }
    const session = await services.checkout.create(scope, {
      mode: 'payment',
      amount: order.total,
      customer_email: order.email,
      customer_name: order.name,
      customer_phone: order.phone,
      save_payment_method: false,
      allow_custom_amount: false,
      metadata,
      ...(await pickupOf(scope, order)),
    });
    await repo.updateOrder(row, { checkout_session_id: session.id, status: 'checkout' }, trx);
  }

  /** A cancelled or refunded order: the open session expires, a pending krafa is cancelled, a paid session refunded. */
  async function undo(
    scope: Scope,
    conn: PlatformConnectionRow,
    row: PlatformOrderRow,
    order: PlatformOrder,
    services: OrderServices,
    trx: Knex.Transaction,
    after: (() => Promise<unknown>)[],
  ) {
    if (row.checkout_session_id) {
      const sessions = createCheckoutSessionRepository(trx);
      await sessions.expireOpen(scope, row.checkout_session_id, trx);
      const session = await sessions.findById(scope, row.checkout_session_id, trx);
      if (order.state === 'refunded' && session?.payment_status === 'paid' && session.payment_intent_id) {
        const intent = await createPaymentIntentRepository(trx).findById(
          scope,
          session.payment_intent_id,
          trx,
        );
        if (intent && intent.amount_refunded < intent.amount_captured)
          await services.refunds.refundPaymentIntent(scope, intent.id, {
            idempotencyKey: `platform:${conn.id}:${order.id}:refund`,
          });
      }
      const delivery = (
        await createDeliveryRepository(trx).list(
          scope,
          { limit: 1, checkoutSessionId: row.checkout_session_id },
          trx,
        )
      ).data[0];
      if (delivery && isCancelable(delivery.status))
        after.push(() => deps.deliveries.cancel(scope, delivery.id).catch(() => undefined));
    }
    if (row.claim_id) {
      const claim = await services.claims.retrieve(scope, row.claim_id);
      if (claim.status === 'pending' || claim.status === 'issued')
        await services.claims.cancel(scope, row.claim_id);
    }
    await createPlatformConnectionRepository(trx).updateOrder(row, { status: order.state }, trx);
  }

  function parse(
    platform: Platform,
    topic: string,
    headers: Record<string, string | string[] | undefined>,
    body: unknown,
  ): ParsedOrder {
    if (platform === 'woocommerce') return parseWooOrder(topic, body);
    const webhookId = header(headers, 'x-shopify-webhook-id');
    if (!webhookId)
      return {
        ok: false,
        param: 'X-Shopify-Webhook-Id',
        message: 'Shopify names each webhook in X-Shopify-Webhook-Id',
      };
    return parseShopifyOrder(topic, webhookId.slice(0, 200), body);
  }

  return {
    /**
     * One delivery: `raw` is the body exactly as received, which the signature covers; `body` is
     * the same bytes parsed by the API's body parsers, in whichever encoding they came (spec §4).
     */
    async handle(
      platformRaw: string,
      headers: Record<string, string | string[] | undefined>,
      raw: Buffer,
      body: unknown,
    ): Promise<InboundResult> {
      if (!isPlatform(platformRaw))
        throw new NotFoundError(`No such platform: '${platformRaw.slice(0, 40)}'`, 'platform');
      const platform = platformRaw;
      const none: InboundResult = { received: true, duplicate: false, checkout_session: null, claim: null };
      // WooCommerce pings a new webhook's URL once, unsigned, with `webhook_id=N` (form-encoded
      // by WooCommerce; any encoding here): it only wants a 2xx.
      if (platform === 'woocommerce' && !header(headers, 'x-wc-webhook-topic') && isWooPing(body))
        return none;
      const conn = await connectionOf(
        platform,
        header(headers, platform === 'woocommerce' ? 'x-wc-webhook-source' : 'x-shopify-shop-domain'),
      );
      const signature = header(
        headers,
        platform === 'woocommerce' ? 'x-wc-webhook-signature' : 'x-shopify-hmac-sha256',
      );
      if (
        !conn ||
        !verifyPlatformSignature(
          deps.secrets.open(conn.secret_sealed, SEALED_AT.platformSecret(conn.id)),
          raw,
          signature,
        )
      )
        throw new AuthenticationError(
          'The webhook signature does not match a connected shop',
          'invalid_signature',
        );
      const topic = (
        header(headers, platform === 'woocommerce' ? 'x-wc-webhook-topic' : 'x-shopify-topic') ?? ''
      ).slice(0, 100);
      if (!(platform === 'woocommerce' ? WOO_TOPICS : SHOPIFY_TOPICS).includes(topic)) return none;
      const parsed = parse(platform, topic, headers, body);
      if (!parsed.ok)
        throw new InvalidRequestError(parsed.message, { code: 'parameter_invalid', param: parsed.param });
      const { order } = parsed;
      const scope = { merchantId: conn.merchant_id, livemode: conn.livemode };
      const wake: string[] = [];
      const after: (() => Promise<unknown>)[] = [];
      const result = await deps.knex.transaction(async (trx): Promise<InboundResult> => {
        const repo = createPlatformConnectionRepository(trx);
        if (!(await repo.receive(conn.id, parsed.dedupKey, topic, trx))) return { ...none, duplicate: true };
        const services = deps.servicesOn(trx, { wake: (ids) => Promise.resolve(void wake.push(...ids)) });
        let row = await repo.lockOrder(conn, order.id, trx);
        if (row.status === 'new' && order.state === 'open')
          await create(scope, conn, row, order, services, trx);
        else if (row.status === 'new' && order.state === 'paid')
          await repo.updateOrder(row, { status: 'paid_elsewhere' }, trx);
        else if ((order.state === 'cancelled' || order.state === 'refunded') && row.status !== order.state)
          await undo(scope, conn, row, order, services, trx, after);
        row = await repo.lockOrder(conn, order.id, trx);
        const session = row.checkout_session_id
          ? await services.checkout.retrieve(scope, row.checkout_session_id)
          : null;
        return {
          received: true,
          duplicate: false,
          checkout_session: session ? { id: session.id, url: session.url } : null,
          claim: row.claim_id,
        };
      });
      await deps.dispatcher.wake(wake);
      for (const work of after) await work();
      return result;
    },
  };
}

export type InboundWebhooks = ReturnType<typeof createInboundWebhooks>;
