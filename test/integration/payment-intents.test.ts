import { verify } from '@octokit/webhooks-methods';
import { sharedTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { startReceiver } from '../helpers/receiver';
import { PaymentIntentSchema } from '../../services/payments/payment-intent-object';

/**
 * Payment intents against the simulated acquirer over HTTP: statuses, manual capture, cancel,
 * fees, declines, the processing-error retry, 3-D Secure, refunds under concurrency, and the
 * signed payment_intent.* webhooks.
 */

let stack: TestStack;
let m: TestMerchant;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let secret: string;

beforeAll(async () => {
  [stack, receiver] = await Promise.all([sharedTestStack(), startReceiver()]);
  m = await stack.merchant('Greiðslur ehf.');
  const channel = await post('/v1/notification-channels', {
    type: 'webhook',
    config: { url: receiver.url },
    event_subscriptions: ['payment_intent.captured', 'payment_intent.failed', 'payment_intent.refunded'],
  });
  expect(channel.status).toBe(200);
  secret = channel.body.config.secret;
});
afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

function post(path: string, json: unknown, headers: Record<string, string> = {}) {
  return stack.api(m.testKey, path, { method: 'POST', json, headers });
}
const card = (number: string) => ({ number, exp_month: 12, exp_year: 2034, cvc: '123' });
const intent = (body: unknown) => PaymentIntentSchema.strict().parse(body);

test('automatic capture: succeeded, fee 1.5 % half-up stored once, net = amount − fee', async () => {
  const r = await post('/v1/payment-intents', {
    amount: '1033',
    card: card('4242424242424242'),
    confirm: true,
  });
  expect(r.status).toBe(200);
  // 1033 × 0.015 = 15.495 → 15
  expect(intent(r.body)).toMatchObject({
    status: 'succeeded',
    amount_received: 1033,
    fee_amount: 15,
    net_amount: 1018,
  });
  const r2 = await post('/v1/payment-intents', {
    amount: 1100,
    card: card('4242424242424242'),
    confirm: true,
  });
  expect(r2.body).toMatchObject({ fee_amount: 17, net_amount: 1083 }); // 16.5 → 17 (half up)
  expect((await stack.knex('payment_intents').where({ id: r2.body.id }).first()).fee_amount).toBe(17);
});

test('manual capture: requires_capture, partial capture once, second capture refused; cancel releases', async () => {
  const created = await post('/v1/payment-intents', { amount: 5000, capture_method: 'manual' });
  expect(intent(created.body).status).toBe('requires_payment_method');
  const confirmed = await post(`/v1/payment-intents/${created.body.id}/confirm`, {
    card: card('4242424242424242'),
  });
  expect(confirmed.body).toMatchObject({ status: 'requires_capture', amount_capturable: 5000 });
  const [c1, c2] = await Promise.all([
    post(`/v1/payment-intents/${created.body.id}/capture`, { amount_to_capture: 4000 }),
    post(`/v1/payment-intents/${created.body.id}/capture`, { amount_to_capture: 4000 }),
  ]);
  expect([c1.status, c2.status].sort()).toEqual([200, 409]);
  const done = (await stack.api(m.testKey, `/v1/payment-intents/${created.body.id}`)).body;
  expect(done).toMatchObject({ status: 'succeeded', amount_received: 4000, fee_amount: 60 });

  const other = await post('/v1/payment-intents', {
    amount: 700,
    capture_method: 'manual',
    card: card('4242424242424242'),
    confirm: true,
  });
  const canceled = await post(`/v1/payment-intents/${other.body.id}/cancel`, {
    cancellation_reason: 'requested_by_customer',
  });
  expect(canceled.body).toMatchObject({ status: 'canceled', cancellation_reason: 'requested_by_customer' });
  expect((await post(`/v1/payment-intents/${other.body.id}/capture`, {})).status).toBe(409);

  const list = await stack.api(m.testKey, '/v1/payment-intents?limit=2');
  expect(list.body.data.map((p: any) => p.id)).toEqual([other.body.id, created.body.id]);
});

test.each([
  ['4000000000000002', 'generic_decline'],
  ['4000000000009995', 'insufficient_funds'],
  ['4000000000000069', 'expired_card'],
  ['4000000000000127', 'incorrect_cvc'],
])('card %s is declined with %s; the intent can be retried with another card', async (number, code) => {
  const r = await post('/v1/payment-intents', { amount: 1000, card: card(number), confirm: true });
  expect(intent(r.body)).toMatchObject({
    status: 'requires_payment_method',
    last_payment_error: { code: 'card_declined', decline_code: code },
  });
  const retry = await post(`/v1/payment-intents/${r.body.id}/confirm`, { card: card('4242424242424242') });
  expect(retry.body).toMatchObject({ status: 'succeeded', last_payment_error: null });
});

test('a processing error is retried by the client with the same idempotency key and succeeds', async () => {
  const r = await post('/v1/payment-intents', {
    amount: 2000,
    card: card('4000000000000119'),
    confirm: true,
  });
  expect(r.body).toMatchObject({ status: 'succeeded', amount_received: 2000 });
});

test('3-D Secure: requires_action with a challenge page; completing it lets the intent succeed', async () => {
  const r = await post('/v1/payment-intents', {
    amount: 3000,
    card: card('4000000000003220'),
    confirm: true,
    return_url: 'https://shop.is/back',
  });
  expect(intent(r.body)).toMatchObject({
    status: 'requires_action',
    next_action: { type: 'redirect_to_url' },
  });
  const url = r.body.next_action.redirect_to_url.url as string;
  const page = await fetch(url);
  expect(await page.text()).toContain('Complete authentication');
  const done = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'outcome=complete',
    redirect: 'manual',
  });
  expect([done.status, done.headers.get('location')]).toEqual([303, 'https://shop.is/back']);
  expect((await stack.api(m.testKey, `/v1/payment-intents/${r.body.id}`)).body).toMatchObject({
    status: 'succeeded',
  });
});

test('the checkout expiry workflow (run by a schedule) expires open sessions past expires_at', async () => {
  const s = (await post('/v1/checkout/sessions', { amount: 100 })).body;
  await stack
    .knex('checkout_sessions')
    .where({ id: s.id })
    .update({ expires_at: new Date(Date.now() - 1000) });
  const result = await stack.client.workflow.execute('checkoutExpiry', {
    taskQueue: stack.taskQueue,
    workflowId: `checkout-expiry-test/${s.id}`,
    args: [{}],
  });
  expect(result).toEqual({ expired: 1 });
  expect((await stack.knex('checkout_sessions').where({ id: s.id }).first()).status).toBe('expired');
});

test('live mode has no card acquirer yet: card payments are refused', async () => {
  const r = await stack.api(m.liveKey, '/v1/payment-intents', {
    method: 'POST',
    json: { amount: 100, card: card('4242424242424242') },
  });
  expect([r.status, r.body.error.code]).toEqual([503, 'card_payments_not_enabled']);
});

test('20 concurrent refunds never exceed the captured amount; an idempotency key refunds once', async () => {
  const pi = (
    await post('/v1/payment-intents', { amount: 10_000, card: card('4242424242424242'), confirm: true })
  ).body;
  // 20 requests of 700: at most 14 fit in 10 000 (9 800).
  const results = await Promise.all(
    Array.from({ length: 20 }, () => post('/v1/refunds', { payment_intent: pi.id, amount: 700 })),
  );
  const ok = results.filter((r) => r.status === 200);
  expect(ok).toHaveLength(14);
  expect(results.filter((r) => r.status !== 200).every((r) => r.body.error.code === 'amount_too_large')).toBe(
    true,
  );
  const after = (await stack.api(m.testKey, `/v1/payment-intents/${pi.id}`)).body;
  expect(after.amount_refunded).toBe(9800);
  const rows = await stack.knex('refunds').where({ payment_intent_id: pi.id });
  expect(rows.reduce((a, r) => a + r.amount, 0)).toBe(9800);

  // The rest, twice with one key (also concurrently): one refund of 200.
  const key = { 'idempotency-key': `last-${pi.id}` };
  const [a, b] = await Promise.all([
    post(`/v1/payment-intents/${pi.id}/refund`, {}, key),
    post(`/v1/payment-intents/${pi.id}/refund`, {}, key),
  ]);
  const answered = [a, b].filter((r) => r.status === 200);
  expect(answered.length).toBeGreaterThanOrEqual(1);
  expect(new Set(answered.map((r) => r.body.id)).size).toBe(1);
  expect(answered[0]!.body.amount).toBe(200);
  expect((await stack.api(m.testKey, `/v1/payment-intents/${pi.id}`)).body.amount_refunded).toBe(10_000);
  const full = await post('/v1/refunds', { payment_intent: pi.id });
  expect([full.status, full.body.error.code]).toEqual([409, 'charge_already_refunded']);
  expect(
    (await stack.api(m.testKey, `/v1/refunds?payment_intent=${pi.id}&limit=100`)).body.data,
  ).toHaveLength(15);

  // Webhooks: every payment_intent.* event of this merchant, signed; refunded carries the pi id first.
  const expected = await stack.knex('events').where({ merchant_id: m.id, livemode: false });
  // Within the relay's 60 s grace, so a lost wake-up would still fail it; 20 s missed one delivery
  // once beside the other files on the CI machine's slowest day.
  const received = await receiver.waitFor(expected.length, 50_000);
  for (const r of received) {
    expect(await verify(secret, r.rawBody.toString('utf8'), String(r.headers['x-service-signature']))).toBe(
      true,
    );
    expect(Object.keys(r.body.data)[0]).toBe('id');
    expect(r.body.data.id).toMatch(/^pi_/);
  }
  const types = received.map((r) => r.body.type);
  expect(types).toEqual(
    expect.arrayContaining(['payment_intent.captured', 'payment_intent.failed', 'payment_intent.refunded']),
  );
  expect(types.filter((t) => t === 'payment_intent.refunded').length).toBeGreaterThanOrEqual(15);
});
