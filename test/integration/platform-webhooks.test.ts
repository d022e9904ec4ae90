import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sharedTestStack, type TestStack, type TestMerchant } from '../helpers/stack';

/**
 * Issue 20, done-means 2 and 4 (last part): signed WooCommerce and Shopify order webhooks, built from
 * the platforms' documented payloads (test/fixtures/platforms), at `POST /api/v1/<platform>/webhook/`.
 * One order is one checkout session or krafa however often it arrives; a wrong or missing signature
 * and a malformed payload change nothing; later cancellations and refunds are applied.
 */
let stack: TestStack;
let m: TestMerchant;
const WOO_SHOP = 'https://verslun.example.is';
const WOO_SECRET = 'wc-secret-0123456789';
const SHOPIFY_SHOP = 'verslun.myshopify.com';
const SHOPIFY_SECRET = 'shpss_0123456789abcdef';

const fixture = (name: string) =>
  JSON.parse(readFileSync(path.join(__dirname, '..', 'fixtures', 'platforms', name), 'utf8')) as Record<
    string,
    any
  >;
const sign = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('base64');

beforeAll(async () => {
  stack = await sharedTestStack();
  m = await stack.merchant('Verslun ehf.');
  const ok = async (p: string, json: unknown, method = 'POST') => {
    const res = await stack.api(m.testKey, p, { method, json });
    if (res.status !== 200) throw new Error(`${p}: ${res.status} ${res.text}`);
    return res.body;
  };
  await ok('/v1/merchant', { kennitala: '5510730339' }, 'PATCH');
  await ok('/v1/delivery/carriers/dropp', { active: true });
  await ok('/v1/platform-connections', {
    platform: 'woocommerce',
    shop: `${WOO_SHOP}/`,
    secret: WOO_SECRET,
    claim_payment_methods: ['skil_krafa'],
  });
  await ok('/v1/platform-connections', {
    platform: 'shopify',
    shop: SHOPIFY_SHOP,
    secret: SHOPIFY_SECRET,
    claim_payment_methods: ['Krafa'],
  });
});
afterAll(async () => {
  await stack?.stop();
});

async function woo(order: unknown, opts: { topic?: string; secret?: string | null; source?: string } = {}) {
  const body = JSON.stringify(order);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-wc-webhook-source': opts.source ?? `${WOO_SHOP}/`,
    'x-wc-webhook-topic': opts.topic ?? 'order.created',
    'x-wc-webhook-resource': 'order',
    'x-wc-webhook-event': (opts.topic ?? 'order.created').split('.')[1]!,
    'x-wc-webhook-id': '12',
    // A new id per delivery attempt: WooCommerce's own id is no use for spotting a re-delivery.
    'x-wc-webhook-delivery-id': randomUUID(),
  };
  if (opts.secret !== null) headers['x-wc-webhook-signature'] = sign(opts.secret ?? WOO_SECRET, body);
  return stack.api(null, '/api/v1/woocommerce/webhook/', { method: 'POST', headers, body });
}

async function shopify(order: unknown, opts: { topic?: string; webhookId?: string; secret?: string } = {}) {
  const body = JSON.stringify(order);
  return stack.api(null, '/api/v1/shopify/webhook/', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-shopify-topic': opts.topic ?? 'orders/create',
      'x-shopify-shop-domain': SHOPIFY_SHOP,
      'x-shopify-api-version': '2025-10',
      'x-shopify-webhook-id': opts.webhookId ?? randomUUID(),
      'x-shopify-hmac-sha256': sign(opts.secret ?? SHOPIFY_SECRET, body),
    },
    body,
  });
}

/** Every session and krafa the merchant has, for counting what a webhook created. */
async function created() {
  const sessions = (await stack.api(m.testKey, '/v1/checkout/sessions?limit=100')).body.data as any[];
  const claims = (await stack.api(m.testKey, '/v1/claims?limit=100')).body.data as any[];
  return { sessions, claims };
}
const ofOrder = (list: any[], id: string) => list.filter((o) => o.metadata?.order_id === id);

test('WooCommerce: one order is one checkout session, delivered three times in turn or at once', async () => {
  const order = fixture('woocommerce-order.json');
  const replies = [];
  for (let i = 0; i < 3; i++) replies.push(await woo(order));
  expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
  expect(replies.map((r) => r.body.duplicate)).toEqual([false, true, true]);
  const sessions = ofOrder((await created()).sessions, '727');
  expect(sessions).toHaveLength(1);
  expect(sessions[0]).toMatchObject({
    amount: 5980,
    status: 'open',
    customer_email: 'jona@example.is',
    customer_name: 'Jóna Jónsdóttir',
    pickup_point: { id: 'dropp:d-kringlan' },
    metadata: { platform: 'woocommerce', shop: WOO_SHOP, order_id: '727' },
  });
  expect(replies[0]!.body.checkout_session).toEqual({ id: sessions[0].id, url: sessions[0].url });

  // Three deliveries of another order at once: one session.
  const other = { ...order, id: 728 };
  const concurrent = await Promise.all([woo(other), woo(other), woo(other)]);
  expect(concurrent.map((r) => r.status)).toEqual([200, 200, 200]);
  expect(concurrent.filter((r) => !r.body.duplicate)).toHaveLength(1);
  expect(ofOrder((await created()).sessions, '728')).toHaveLength(1);

  // A later change of the same order (new modification time) is no new session either.
  const updated = await woo(
    { ...order, date_modified_gmt: '2026-12-20T12:05:00' },
    { topic: 'order.updated' },
  );
  expect(updated.body).toMatchObject({ duplicate: false, checkout_session: { id: sessions[0].id } });
  expect(ofOrder((await created()).sessions, '727')).toHaveLength(1);
});

test('a wrong, missing or foreign signature answers 401 and creates nothing', async () => {
  const order = { ...fixture('woocommerce-order.json'), id: 801 };
  const before = await created();
  for (const res of [
    await woo(order, { secret: 'not-the-secret' }),
    await woo(order, { secret: null }),
    await woo(order, { source: 'https://other.example.is/' }),
    await shopify({ ...fixture('shopify-order.json'), id: 801 }, { secret: WOO_SECRET }),
  ]) {
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_signature' });
  }
  const after = await created();
  expect(after.sessions).toHaveLength(before.sessions.length);
  expect(after.claims).toHaveLength(before.claims.length);
  // The same order signed properly afterwards is new: the refused deliveries left no trace.
  expect((await woo(order)).body.duplicate).toBe(false);
});

test('malformed payloads answer 400 in the error envelope and change nothing', async () => {
  const before = await created();
  const noTotal: Record<string, unknown> = { ...fixture('woocommerce-order.json'), id: 802 };
  delete noTotal.total;
  const missing = await woo(noTotal);
  expect(missing.status).toBe(400);
  expect(missing.body.error).toMatchObject({ type: 'invalid_request_error', param: 'total' });
  const euros = await woo({ ...fixture('woocommerce-order.json'), id: 803, currency: 'EUR' });
  expect(euros.status).toBe(400);
  expect(euros.body.error.param).toBe('currency');
  const body = '{"id": 804, ';
  const broken = await stack.api(null, '/api/v1/woocommerce/webhook/', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-wc-webhook-source': `${WOO_SHOP}/`,
      'x-wc-webhook-topic': 'order.created',
      'x-wc-webhook-signature': sign(WOO_SECRET, body),
    },
    body,
  });
  expect(broken.status).toBe(400);
  expect(broken.body.error.param).toBe('body');
  const after = await created();
  expect(after.sessions).toHaveLength(before.sessions.length);
  // A fixed re-send of the order that failed is taken: the refusal recorded nothing.
  expect((await woo({ ...fixture('woocommerce-order.json'), id: 802 })).body.duplicate).toBe(false);
});

test('WooCommerce’s unsigned creation ping answers 200; an unknown platform 404', async () => {
  const ping = await stack.api(null, '/api/v1/woocommerce/webhook/', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'webhook_id=12',
  });
  expect(ping.status).toBe(200);
  expect((await stack.api(null, '/api/v1/magento/webhook/', { method: 'POST', json: {} })).status).toBe(404);
});

test('Shopify: a krafa order is one krafa however often it arrives; cancelling the order cancels it', async () => {
  const order = fixture('shopify-order.json');
  const webhookId = randomUUID();
  const replies = await Promise.all([1, 2, 3].map(() => shopify(order, { webhookId })));
  expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
  expect(replies.filter((r) => !r.body.duplicate)).toHaveLength(1);
  // The same delivery again later, too.
  expect((await shopify(order, { webhookId })).body.duplicate).toBe(true);
  const claims = ofOrder((await created()).claims, '5412345678901');
  expect(claims).toHaveLength(1);
  expect(claims[0]).toMatchObject({ amount: 12500, status: 'pending', payer_kennitala: '1201603389' });

  // Another order paid by card at Skil: a checkout session.
  const card = { ...order, id: 5412345678902, payment_gateway_names: ['manual'], gateway: 'manual' };
  const res = await shopify(card);
  expect(res.body.checkout_session).not.toBeNull();
  expect(ofOrder((await created()).sessions, '5412345678902')).toMatchObject([
    { amount: 12500, pickup_point: { id: 'dropp:d-grandi' } },
  ]);

  const cancelled = { ...order, cancelled_at: '2026-12-20T11:00:00-00:00', cancel_reason: 'customer' };
  expect((await shopify(cancelled, { topic: 'orders/cancelled' })).status).toBe(200);
  const after = ofOrder((await created()).claims, '5412345678901');
  expect(after).toHaveLength(1);
  expect(after[0].status).toBe('cancelled');
});

test('WooCommerce: a cancelled order expires its session; a refunded one refunds it and cancels the delivery', async () => {
  const order = { ...fixture('woocommerce-order.json'), id: 900 };
  const first = await woo(order);
  const sessionId = first.body.checkout_session.id as string;
  await woo(
    { ...order, status: 'cancelled', date_modified_gmt: '2026-12-20T13:00:00' },
    { topic: 'order.updated' },
  );
  expect((await stack.api(m.testKey, `/v1/checkout/sessions/${sessionId}`)).body.status).toBe('expired');

  const paidOrder = { ...fixture('woocommerce-order.json'), id: 901 };
  const paid = (await woo(paidOrder)).body.checkout_session.id as string;
  await stack.api(m.testKey, `/v1/test_helpers/checkout/sessions/${paid}/complete`, {
    method: 'POST',
    json: {},
  });
  const [delivery] = (await stack.api(m.testKey, `/v1/deliveries?checkout_session=${paid}`)).body.data;
  expect(delivery.status).toBe('booked');
  const refunded = await woo(
    { ...paidOrder, status: 'refunded', date_modified_gmt: '2026-12-21T09:00:00' },
    { topic: 'order.updated' },
  );
  expect(refunded.status).toBe(200);
  const session = (await stack.api(m.testKey, `/v1/checkout/sessions/${paid}`)).body;
  const intent = (await stack.api(m.testKey, `/v1/payment-intents/${session.payment_intent}`)).body;
  expect(intent.amount_refunded).toBe(5980);
  expect((await stack.api(m.testKey, `/v1/deliveries/${delivery.id}`)).body.status).toBe('canceled');
  // The refund arriving again refunds nothing more.
  await woo(
    { ...paidOrder, status: 'refunded', date_modified_gmt: '2026-12-21T09:00:00' },
    { topic: 'order.updated' },
  );
  await woo(
    { ...paidOrder, status: 'refunded', date_modified_gmt: '2026-12-21T09:30:00' },
    { topic: 'order.updated' },
  );
  expect(
    (await stack.api(m.testKey, `/v1/payment-intents/${session.payment_intent}`)).body.amount_refunded,
  ).toBe(5980);
});

/**
 * Spec §4: a body is declared in JSON, plain text (JSON in it), form-encoded and multipart form, with
 * one object shape (decision 0204). Forms carry nested fields in bracket names and every value as
 * text; nulls are left out, as a form cannot carry them.
 */
function formPairs(value: unknown, name = ''): [string, string][] {
  if (value === null || value === undefined) return [];
  if (typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => formPairs(v, name ? `${name}[${k}]` : k));
  return [[name, typeof value === 'string' ? value : JSON.stringify(value)]];
}
const ENCODINGS = [
  'application/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
];
/** The order encoded as a platform (or a proxy in front of it) would send it: the bytes and their type. */
async function encode(encoding: string, order: unknown): Promise<{ bytes: Buffer; type: string }> {
  if (encoding === 'application/json' || encoding === 'text/plain')
    return { bytes: Buffer.from(JSON.stringify(order)), type: `${encoding}; charset=utf-8` };
  if (encoding === 'application/x-www-form-urlencoded')
    return { bytes: Buffer.from(new URLSearchParams(formPairs(order)).toString()), type: encoding };
  const form = new FormData();
  for (const [k, v] of formPairs(order)) form.append(k, v);
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return { bytes: Buffer.from(await request.arrayBuffer()), type: request.headers.get('content-type')! };
}
/** One delivery over HTTP, signed over exactly the bytes sent (or with another secret's signature). */
async function deliver(
  platform: 'woocommerce' | 'shopify',
  encoding: string,
  order: unknown,
  secret?: string,
  signed?: Buffer,
) {
  const { bytes, type } = await encode(encoding, order);
  const headers: Record<string, string> =
    platform === 'woocommerce'
      ? {
          'x-wc-webhook-source': `${WOO_SHOP}/`,
          'x-wc-webhook-topic': 'order.created',
          'x-wc-webhook-signature': createHmac('sha256', secret ?? WOO_SECRET)
            .update(signed ?? bytes)
            .digest('base64'),
        }
      : {
          'x-shopify-topic': 'orders/create',
          'x-shopify-shop-domain': SHOPIFY_SHOP,
          'x-shopify-webhook-id': randomUUID(),
          'x-shopify-hmac-sha256': createHmac('sha256', secret ?? SHOPIFY_SECRET)
            .update(signed ?? bytes)
            .digest('base64'),
        };
  return stack.api(null, `/api/v1/${platform}/webhook/`, {
    method: 'POST',
    headers: { ...headers, 'content-type': type },
    body: bytes,
  });
}

describe.each(ENCODINGS.map((encoding, i) => ({ encoding, i })))('a body in $encoding', ({ encoding, i }) => {
  test('a signed WooCommerce order is one checkout session, a signed Shopify krafa order one krafa', async () => {
    const wooOrder = { ...fixture('woocommerce-order.json'), id: 1000 + i };
    const res = await deliver('woocommerce', encoding, wooOrder);
    expect({ status: res.status, body: res.body }).toMatchObject({ status: 200, body: { duplicate: false } });
    const sessions = ofOrder((await created()).sessions, String(1000 + i));
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({
      amount: 5980,
      customer_email: 'jona@example.is',
      customer_name: 'Jóna Jónsdóttir',
      pickup_point: { id: 'dropp:d-kringlan' },
    });
    expect(res.body.checkout_session).toEqual({ id: sessions[0].id, url: sessions[0].url });
    // The same order as JSON is the same delivery: one object shape, whichever encoding brought it.
    expect((await woo(wooOrder)).body.duplicate).toBe(true);
    expect(ofOrder((await created()).sessions, String(1000 + i))).toHaveLength(1);

    const shopifyId = 5412345679000 + i;
    const shop = await deliver('shopify', encoding, { ...fixture('shopify-order.json'), id: shopifyId });
    expect(shop.status).toBe(200);
    const krafa = ofOrder((await created()).claims, String(shopifyId));
    expect(krafa).toMatchObject([{ amount: 12500, status: 'pending', payer_kennitala: '1201603389' }]);
    // Cancelled before any batch: the shared stack's next claim batch (another file's) finds only
    // its own file's kröfur.
    const cancel = await stack.api(m.testKey, `/v1/claims/${krafa[0].id}/cancel`, {
      method: 'POST',
      json: {},
    });
    expect(cancel.status).toBe(200);
  });

  test('a signature that does not match the bytes answers 401 and creates nothing', async () => {
    const before = await created();
    const wooOrder = { ...fixture('woocommerce-order.json'), id: 1100 + i };
    const shopifyOrder = { ...fixture('shopify-order.json'), id: 5412345679100 + i };
    for (const res of [
      await deliver('woocommerce', encoding, wooOrder, 'not-the-secret'),
      await deliver('shopify', encoding, shopifyOrder, 'not-the-secret'),
      // The right secret over other bytes of the same order (another encoding, or JSON spaced
      // differently): the signature covers the bytes received, not the object they parse to.
      await deliver(
        'woocommerce',
        encoding,
        wooOrder,
        undefined,
        Buffer.from(JSON.stringify(wooOrder, null, 1)),
      ),
      await deliver(
        'shopify',
        encoding,
        shopifyOrder,
        undefined,
        Buffer.from(JSON.stringify(shopifyOrder, null, 1)),
      ),
    ]) {
      expect({ status: res.status, error: res.body.error }).toMatchObject({
        status: 401,
        error: { type: 'authentication_error', code: 'invalid_signature' },
      });
    }
    const after = await created();
    expect(after.sessions).toHaveLength(before.sessions.length);
    expect(after.claims).toHaveLength(before.claims.length);
  });

  test('WooCommerce’s unsigned creation ping answers 200 and creates nothing', async () => {
    const before = await created();
    const { bytes, type } = await encode(encoding, { webhook_id: 12 });
    const ping = await stack.api(null, '/api/v1/woocommerce/webhook/', {
      method: 'POST',
      headers: { 'content-type': type },
      body: bytes,
    });
    expect({ status: ping.status, body: ping.body }).toEqual({
      status: 200,
      body: { received: true, duplicate: false, checkout_session: null, claim: null },
    });
    expect((await created()).sessions).toHaveLength(before.sessions.length);
  });
});
