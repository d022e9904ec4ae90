import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/**
 * Orders from e-commerce platforms (spec §4.7; decisions 0135, 0136): the WooCommerce and Shopify
 * order payloads as documented, the signature each platform sends, the key a re-delivery is known
 * by, and the one shape Skil acts on.
 */
export const PLATFORMS = ['woocommerce', 'shopify'] as const;
export type Platform = (typeof PLATFORMS)[number];

export function isPlatform(value: unknown): value is Platform {
  return typeof value === 'string' && (PLATFORMS as readonly string[]).includes(value);
}

/** Base64 HMAC-SHA256 of the raw body, compared in constant time (both platforms' scheme). */
export function verifyPlatformSignature(
  secret: string,
  rawBody: Buffer,
  header: string | undefined,
): boolean {
  if (!header) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(rawBody).digest('base64'));
  const given = Buffer.from(header.trim());
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** The shop a platform's own headers name: Shopify's shop domain, WooCommerce's source URL. */
export function normalizeShop(platform: Platform, raw: string): string {
  const text = raw.trim().toLowerCase();
  if (platform === 'shopify') return text.replace(/^https?:\/\//, '').replace(/\/+$/, '');
  // WooCommerce sends the site URL with a trailing slash; the scheme is kept, the slash is not.
  return text.replace(/\/+$/, '');
}

/** What Skil does with an order, whichever platform sent it. */
export interface PlatformOrder {
  id: string;
  /** open: waiting for payment; paid: paid at the shop already; cancelled; refunded. */
  state: 'open' | 'paid' | 'cancelled' | 'refunded';
  /** Whole ISK. */
  total: number;
  email: string | null;
  name: string | null;
  phone: string | null;
  paymentMethod: string;
  kennitala: string | null;
  pickupPointId: string | null;
  description: string;
}

const money = z
  .string()
  .regex(/^\d{1,12}(\.0{1,2})?$/, 'must be whole ISK')
  .transform((v) => Number(v.split('.')[0]));
/**
 * A whole number, also as an integer-formatted string: a form-encoded or multipart delivery carries
 * every value as text, with the same object shape as JSON (spec §4, decision 0204).
 */
const whole = z.union([
  z.number().int(),
  z
    .string()
    .regex(/^\d{1,15}$/, 'must be a whole number')
    .transform(Number),
]);
const positiveId = whole.pipe(z.number().int().positive());
const meta = z.array(z.object({ key: z.string(), value: z.unknown() }).passthrough()).default([]);
const str = (max: number) => z.string().max(max);

/** WooCommerce REST order (v3), the fields Skil reads. */
const WooOrder = z
  .object({
    id: positiveId,
    status: z.string().max(40),
    currency: z.literal('ISK'),
    total: money,
    date_modified_gmt: z.string().min(10).max(40),
    payment_method: str(100).default(''),
    billing: z
      .object({
        first_name: str(200).default(''),
        last_name: str(200).default(''),
        email: str(255).default(''),
        phone: str(50).default(''),
      })
      .passthrough()
      .default({ first_name: '', last_name: '', email: '', phone: '' }),
    line_items: z.array(z.object({ name: str(500), quantity: whole }).passthrough()).default([]),
    shipping_lines: z.array(z.object({ meta_data: meta }).passthrough()).default([]),
    meta_data: meta,
  })
  .passthrough();

/** Shopify Admin API order, the fields Skil reads. */
const ShopifyOrder = z
  .object({
    id: positiveId,
    name: str(100).default(''),
    currency: z.literal('ISK'),
    total_price: money,
    updated_at: z.string().min(10).max(40),
    financial_status: str(40).nullable().default(null),
    cancelled_at: z.string().nullable().default(null),
    email: str(255).nullable().default(null),
    phone: str(50).nullable().default(null),
    payment_gateway_names: z.array(str(100)).default([]),
    customer: z
      .object({ first_name: str(200).nullable().default(null), last_name: str(200).nullable().default(null) })
      .passthrough()
      .nullable()
      .default(null),
    line_items: z.array(z.object({ title: str(500), quantity: whole }).passthrough()).default([]),
    note_attributes: z.array(z.object({ name: z.string(), value: z.unknown() }).passthrough()).default([]),
  })
  .passthrough();

const metaValue = (list: { key: string; value: unknown }[], key: string): string | null => {
  const v = list.find((m) => m.key === key)?.value;
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : null;
};
const blank = (s: string | null | undefined) => (s && s.trim() !== '' ? s.trim() : null);

export type ParsedOrder =
  { ok: true; order: PlatformOrder; dedupKey: string } | { ok: false; param: string; message: string };

function failure(error: z.ZodError): ParsedOrder {
  const issue = error.issues[0]!;
  return { ok: false, param: issue.path.join('.') || 'body', message: issue.message };
}

/**
 * A WooCommerce order. WooCommerce sends no id per delivery that survives a re-delivery, so a
 * delivery is known by topic, order id and the order's modification time (decision 0135).
 */
export function parseWooOrder(topic: string, body: unknown): ParsedOrder {
  const parsed = WooOrder.safeParse(body);
  if (!parsed.success) return failure(parsed.error);
  const o = parsed.data;
  const state =
    o.status === 'cancelled' || o.status === 'failed'
      ? 'cancelled'
      : o.status === 'refunded'
        ? 'refunded'
        : o.status === 'processing' || o.status === 'completed'
          ? 'paid'
          : 'open';
  const pickup =
    o.shipping_lines.map((l) => metaValue(l.meta_data, 'pickup_point_id')).find((v) => v) ?? null;
  return {
    ok: true,
    dedupKey: `${topic}:${o.id}:${o.date_modified_gmt}`,
    order: {
      id: String(o.id),
      state,
      total: o.total,
      email: blank(o.billing.email),
      name: blank(`${o.billing.first_name} ${o.billing.last_name}`),
      phone: blank(o.billing.phone),
      paymentMethod: o.payment_method,
      kennitala: metaValue(o.meta_data, 'kennitala'),
      pickupPointId: pickup ?? metaValue(o.meta_data, 'pickup_point_id'),
      description:
        o.line_items
          .map((l) => `${l.quantity} × ${l.name}`)
          .join(', ')
          .slice(0, 500) || `Order ${o.id}`,
    },
  };
}

/** A Shopify order; the delivery is known by `X-Shopify-Webhook-Id`, passed in as `webhookId`. */
export function parseShopifyOrder(topic: string, webhookId: string, body: unknown): ParsedOrder {
  const parsed = ShopifyOrder.safeParse(body);
  if (!parsed.success) return failure(parsed.error);
  const o = parsed.data;
  const attr = (name: string) => {
    const v = o.note_attributes.find((a) => a.name === name)?.value;
    return typeof v === 'string' && v.trim() !== '' ? v.trim() : null;
  };
  const state =
    o.cancelled_at !== null || topic === 'orders/cancelled'
      ? 'cancelled'
      : o.financial_status === 'refunded'
        ? 'refunded'
        : o.financial_status === 'paid'
          ? 'paid'
          : 'open';
  return {
    ok: true,
    dedupKey: webhookId,
    order: {
      id: String(o.id),
      state,
      total: o.total_price,
      email: blank(o.email),
      name: blank(`${o.customer?.first_name ?? ''} ${o.customer?.last_name ?? ''}`),
      phone: blank(o.phone),
      paymentMethod: o.payment_gateway_names[0] ?? '',
      kennitala: attr('kennitala'),
      pickupPointId: attr('pickup_point_id'),
      description:
        o.line_items
          .map((l) => `${l.quantity} × ${l.title}`)
          .join(', ')
          .slice(0, 500) || `Order ${o.name || o.id}`,
    },
  };
}
