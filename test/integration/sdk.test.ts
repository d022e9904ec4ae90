import { createHmac } from 'node:crypto';
import {
  constructEvent,
  Skil,
  SkilAuthenticationError,
  SkilConnectionError,
  SkilIdempotencyError,
  SkilInvalidRequestError,
  SkilSignatureVerificationError,
} from '@skil/sdk';
import { startTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { startReceiver } from '../helpers/receiver';
import { until } from '../helpers/until';

/**
 * The SDK against the real API: every resource of its client, auto-pagination, typed errors, and
 * the retry rules (one idempotency key across the client's own retries; 409 retried only while the
 * key is in use; 429 after Retry-After; never another 4xx), and the webhook signature helper on a
 * real delivery.
 */

let stack: TestStack;
let m: TestMerchant;
let skil: Skil;
const card = { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' };

beforeAll(async () => {
  stack = await startTestStack({ realBaseUrl: true, schedule: [50, 50, 50, 50, 50] });
  m = await stack.merchant('SDK ehf.');
  skil = new Skil(m.testKey, { baseUrl: stack.url, initialRetryDelayMs: 10, maxRetryDelayMs: 50 });
});
afterAll(() => stack?.stop());

test('catalog, customers, payment methods, payments, refunds and payment links through the client', async () => {
  const product = await skil.products.create({ name: 'Kaffi', vat_rate: 11 });
  const variant = await skil.products.variants.create(product.id, { name: 'Stór', unit_amount: 890 });
  expect((await skil.products.variants.retrieve(product.id, variant.id)).name).toBe('Stór');
  expect((await skil.products.variants.list(product.id)).data.map((v) => v.id)).toContain(variant.id);
  const price = await skil.prices.create({ product: product.id, unit_amount: 690 });
  expect((await skil.prices.retrieve(price.id)).unit_amount).toBe(690);
  expect((await skil.products.update(product.id, { name: 'Kaffi bolli' })).name).toBe('Kaffi bolli');

  const customer = await skil.customers.create({ name: 'Jóna', email: 'jona@example.is' });
  expect((await skil.customers.retrieve(customer.id)).email).toBe('jona@example.is');
  const pm = await skil.paymentMethods.create({ card, customer: customer.id });
  expect((await skil.paymentMethods.list({ customer: customer.id })).data.map((p) => p.id)).toEqual([pm.id]);
  await skil.customers.setDefaultPaymentMethod(customer.id, { payment_method: pm.id });
  expect((await skil.customers.retrieve(customer.id)).default_payment_method).toBe(pm.id);

  const intent = await skil.paymentIntents.create({ amount: 4990, card, confirm: true });
  expect(intent.status).toBe('succeeded');
  const refund = await skil.refunds.create({ payment_intent: intent.id, amount: 990 });
  expect((await skil.refunds.retrieve(refund.id)).amount).toBe(990);
  expect((await skil.refunds.list({ payment_intent: intent.id })).data).toHaveLength(1);
  expect((await skil.paymentIntents.retrieve(intent.id)).amount_refunded).toBe(990);

  const link = await skil.paymentLinks.create({ amount: 2500 });
  expect((await skil.paymentLinks.retrieve(link.id)).url).toBe(link.url);

  const session = await skil.checkout.sessions.create({
    amount: 1990,
    currency: 'ISK',
    success_url: 'https://example.is/takk',
  });
  const paid = await skil.testHelpers.checkout.sessions.complete(session.id);
  expect(paid).toMatchObject({ id: session.id, status: 'complete', payment_status: 'paid' });
  expect((await skil.checkout.sessions.retrieve(session.id)).payment_intent).toBe(paid.payment_intent);
});

test('coupons, promotion codes, subscriptions, billing portal, claims, channels, events, merchant, test clocks', async () => {
  const coupon = await skil.coupons.create({ percent_off: 10, duration: 'once' });
  const code = await skil.promotionCodes.create({ coupon: coupon.id, code: `SDK${Date.now()}` });
  expect((await skil.promotionCodes.retrieve(code.id)).coupon).toBe(coupon.id);

  const clock = await skil.testHelpers.testClocks.create({ frozen_time: Math.floor(Date.now() / 1000) });
  const customer = await skil.customers.create({ name: 'Áskrifandi', test_clock: clock.id });
  const pm = await skil.paymentMethods.create({ card, customer: customer.id });
  const product = await skil.products.create({ name: 'Áskrift' });
  const price = await skil.prices.create({
    product: product.id,
    unit_amount: 2990,
    recurring: { interval: 'month' },
  });
  const sub = await skil.subscriptions.create({
    customer: customer.id,
    price: price.id,
    default_payment_method: pm.id,
  });
  await until(
    () => skil.subscriptions.retrieve(sub.id),
    (s) => s.status === 'active',
  );
  expect((await skil.subscriptions.list({ customer: customer.id })).data.map((s) => s.id)).toEqual([sub.id]);
  const portal = await skil.billingPortal.sessions.create({
    customer: customer.id,
    return_url: 'https://example.is/account',
  });
  expect(portal.url).toMatch(/^http/);
  expect((await skil.subscriptions.cancel(sub.id)).status).toBe('canceled');
  expect((await skil.testHelpers.testClocks.retrieve(clock.id)).id).toBe(clock.id);

  // A krafa, in the merchant's name: it needs a kennitala. No bank here, so it stays pending.
  await skil.merchant.update({ kennitala: '5510730339' });
  const due = new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10);
  const claim = await skil.claims.create({ payer_kennitala: '3108962099', amount: 1500, due_date: due });
  expect(claim).toMatchObject({ object: 'claim', amount: 1500 });
  expect((await skil.claims.list({ payer_kennitala: '3108962099' })).data.map((c) => c.id)).toContain(
    claim.id,
  );
  expect((await skil.claims.retrieve(claim.id)).id).toBe(claim.id);

  const receiver = await startReceiver();
  const channel = await skil.notificationChannels.create({
    type: 'webhook',
    config: { url: receiver.url },
    event_subscriptions: ['debug.check'],
  });
  expect((await skil.notificationChannels.list()).data.map((c) => c.id)).toContain(channel.id);
  const sent = await skil.notificationChannels.sendTest({ channel: channel.id });
  const [delivery] = await receiver.waitFor(1, 30_000);

  // The webhook helper: the real delivery verifies with the channel's secret, and only with it.
  const secret = String(channel.config.secret);
  const event = constructEvent(delivery!.rawBody, delivery!.headers['x-service-signature'], secret);
  expect(event).toMatchObject({ id: sent.deliveries[0]!.event, type: 'debug.check' });
  expect(() =>
    constructEvent(delivery!.rawBody, delivery!.headers['x-service-signature'], 'whsec_wrong'),
  ).toThrow(SkilSignatureVerificationError);
  expect(() => constructEvent(delivery!.rawBody, undefined, secret)).toThrow(SkilSignatureVerificationError);
  const tampered = Buffer.from(delivery!.rawBody.toString('utf8').replace('debug.check', 'debug.chec_'));
  expect(() => constructEvent(tampered, delivery!.headers['x-service-signature'], secret)).toThrow(
    SkilSignatureVerificationError,
  );

  expect((await skil.events.retrieve(event.id)).type).toBe('debug.check');
  const resent = await until(
    () => skil.events.resend(event.id, { channel: channel.id }).catch((err: unknown) => err),
    (r) => !(r instanceof Error),
  );
  expect(resent).toMatchObject({ object: 'webhook_delivery' });
  await receiver.waitFor(2, 30_000);
  await expect(skil.events.resend(event.id, { channel: 'nch_missing' })).rejects.toMatchObject({
    statusCode: 400,
    code: 'resource_missing',
    param: 'channel',
  });
  expect((await skil.notificationChannels.del(channel.id)).id).toBe(channel.id);
  await receiver.close();

  expect((await skil.merchant.retrieve()).id).toBe(m.id);
  expect((await skil.merchant.update({ website: 'https://sdk.example.is' })).website).toBe(
    'https://sdk.example.is',
  );
});

test('auto-pagination walks every page; errors are typed with the API message and param', async () => {
  const made = await Promise.all(
    Array.from({ length: 7 }, (_, i) => skil.customers.create({ name: `Síða ${i}` })),
  );
  const seen: string[] = [];
  for await (const c of skil.customers.list({ limit: 2 })) seen.push(c.id);
  expect(seen).toEqual(expect.arrayContaining(made.map((c) => c.id)));
  expect(new Set(seen).size).toBe(seen.length);

  await expect(skil.customers.retrieve('cus_doesnotexist')).rejects.toBeInstanceOf(SkilInvalidRequestError);
  await expect(skil.customers.create({ email: 'not an email' })).rejects.toMatchObject({
    statusCode: 400,
    type: 'invalid_request_error',
    param: 'email',
  });
  await expect(new Skil('sk_test_wrong', { baseUrl: stack.url }).customers.list()).rejects.toBeInstanceOf(
    SkilAuthenticationError,
  );
  await expect(
    new Skil(m.testKey, { baseUrl: stack.url, authHeader: 'x-api-key' }).merchant.retrieve(),
  ).resolves.toMatchObject({
    id: m.id,
  });
});

/** A fetch that sends the real request but can lose or replace chosen answers, and records headers. */
function flakyFetch(plan: (attempt: number, real: Response) => Response | 'drop' | 'real') {
  const calls: Headers[] = [];
  const f: typeof fetch = async (input, init) => {
    calls.push(new Headers(init?.headers));
    const real = await fetch(input, init);
    const decision = plan(calls.length, real);
    if (decision === 'drop') throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
    return decision === 'real' ? real : decision;
  };
  return { fetch: f, calls };
}

const jsonAnswer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

test('a lost answer is retried with the same Idempotency-Key and creates one object', async () => {
  const { fetch: f, calls } = flakyFetch((n) => (n === 1 ? 'drop' : 'real'));
  const client = new Skil(m.testKey, { baseUrl: stack.url, fetch: f, initialRetryDelayMs: 5 });
  const name = `Once ${Date.now()}`;
  const customer = await client.customers.create({ name });
  expect(calls).toHaveLength(2);
  expect(calls[0]!.get('idempotency-key')).toMatch(/^sdk_/);
  expect(calls[1]!.get('idempotency-key')).toBe(calls[0]!.get('idempotency-key'));
  const same = (await skil.customers.list({ limit: 100 })).data.filter((c) => c.name === name);
  expect(same.map((c) => c.id)).toEqual([customer.id]);
});

test('409 is retried only while the key is in use; 429 waits Retry-After; 5xx is retried; other 4xx never', async () => {
  const inUse = flakyFetch((n) =>
    n === 1
      ? jsonAnswer(409, {
          error: { type: 'idempotency_error', message: 'in flight', code: 'idempotency_key_in_use' },
        })
      : 'real',
  );
  await new Skil(m.testKey, {
    baseUrl: stack.url,
    fetch: inUse.fetch,
    initialRetryDelayMs: 5,
  }).customers.create({});
  expect(inUse.calls).toHaveLength(2);

  const conflict = flakyFetch(() =>
    jsonAnswer(409, {
      error: { type: 'idempotency_error', message: 'reused', code: 'idempotency_key_reused' },
    }),
  );
  await expect(
    new Skil(m.testKey, {
      baseUrl: stack.url,
      fetch: conflict.fetch,
      initialRetryDelayMs: 5,
    }).customers.create({}),
  ).rejects.toBeInstanceOf(SkilIdempotencyError);
  expect(conflict.calls).toHaveLength(1);

  const limited = flakyFetch((n) =>
    n === 1
      ? jsonAnswer(429, { error: { type: 'rate_limit_error', message: 'slow' } }, { 'retry-after': '1' })
      : 'real',
  );
  const started = Date.now();
  await new Skil(m.testKey, { baseUrl: stack.url, fetch: limited.fetch }).customers.list();
  expect(limited.calls).toHaveLength(2);
  expect(Date.now() - started).toBeGreaterThanOrEqual(1000);

  const flaky = flakyFetch((n) =>
    n < 3 ? jsonAnswer(503, { error: { type: 'api_error', message: 'busy' } }) : 'real',
  );
  await new Skil(m.testKey, {
    baseUrl: stack.url,
    fetch: flaky.fetch,
    initialRetryDelayMs: 5,
  }).customers.list();
  expect(flaky.calls).toHaveLength(3);

  const invalid = flakyFetch(() => 'real');
  await expect(
    new Skil(m.testKey, { baseUrl: stack.url, fetch: invalid.fetch }).customers.create({ email: 'nope' }),
  ).rejects.toBeInstanceOf(SkilInvalidRequestError);
  expect(invalid.calls).toHaveLength(1);

  const down = new Skil(m.testKey, {
    baseUrl: 'http://127.0.0.1:1',
    maxNetworkRetries: 1,
    initialRetryDelayMs: 5,
  });
  await expect(down.customers.list()).rejects.toBeInstanceOf(SkilConnectionError);
});

test('the signature helper is the spec rule: sha256= and the hex HMAC of the exact bytes', () => {
  const body = JSON.stringify({ id: 'evt_1', type: 'debug.check', data: { id: 'x' } });
  const sig = `sha256=${createHmac('sha256', 'whsec_k').update(body).digest('hex')}`;
  expect(constructEvent(body, sig, 'whsec_k').id).toBe('evt_1');
  expect(() => constructEvent(body + ' ', sig, 'whsec_k')).toThrow(SkilSignatureVerificationError);
  expect(() => constructEvent(body, sig.toUpperCase(), 'whsec_k')).toThrow(SkilSignatureVerificationError);
});
