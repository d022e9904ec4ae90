import { sharedTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { startReceiver, type Received } from '../helpers/receiver';
import { until } from '../helpers/until';
import { claimBatchWorkflowId, WorkflowType } from '../../workflows/contract';

/**
 * One presenter per object: for a payment intent, a subscription, a claim and a checkout session,
 * each made through its real path, the webhook a local receiver gets carries as `data` exactly what
 * a GET of the object returns with no change in between: the same keys in the same order, `id` first.
 */

let stack: TestStack;
let m: TestMerchant;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  stack = await sharedTestStack();
  m = await stack.merchant('Samhljóða ehf.');
  // A claimant needs its kennitala on the merchant profile.
  const profile = await stack.api(m.testKey, '/v1/merchant', {
    method: 'PATCH',
    json: { kennitala: '5510730339' },
  });
  expect(profile.status).toBe(200);
  receiver = await startReceiver();
  const channel = await post('/v1/notification-channels', {
    type: 'webhook',
    config: { url: receiver.url },
    event_subscriptions: ['*'],
  });
  expect(channel.status).toBe(200);
});
afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
});

const post = (path: string, json: unknown) => stack.api(m.testKey, path, { method: 'POST', json });
const get = (path: string) => stack.api(m.testKey, path);
const card = { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' };

/** The last webhook received about object `id`, once `type` has arrived for it. */
async function lastWebhookAbout(id: string, type: string): Promise<Received> {
  const about = () => receiver.received.filter((r) => r.body?.data?.id === id);
  await until(
    () => Promise.resolve(about()),
    (rs) => rs.some((r) => r.body.type === type),
    30_000,
  );
  return about().at(-1)!;
}

/** The webhook's `data` and a GET of the object, as the bytes a client parses. */
async function expectSameAsGet(hook: Received, path: string) {
  const fetched = await get(path);
  expect(fetched.status).toBe(200);
  expect(Object.keys(hook.body.data)[0]).toBe('id');
  expect(JSON.stringify(hook.body.data)).toBe(JSON.stringify(fetched.body));
}

test('a payment intent confirmed through the API', async () => {
  const pi = await post('/v1/payment-intents', { amount: 4_900, card, confirm: true });
  expect(pi.status).toBe(200);
  const hook = await lastWebhookAbout(pi.body.id, 'payment_intent.captured');
  await expectSameAsGet(hook, `/v1/payment-intents/${pi.body.id}`);
});

test('a checkout session paid on the hosted page', async () => {
  const session = await post('/v1/checkout/sessions', { amount: 2_500, form_fields: [] });
  expect(session.status).toBe(200);
  const paid = await fetch(session.body.url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      action: 'pay',
      card_number: '4242424242424242',
      card_exp: '12/34',
      card_cvc: '123',
    }).toString(),
    redirect: 'manual',
  });
  expect(paid.status).toBeLessThan(400);
  const hook = await lastWebhookAbout(session.body.id, 'checkout.session.completed');
  await expectSameAsGet(hook, `/v1/checkout/sessions/${session.body.id}`);
});

test('a subscription started through the API, and its activation', async () => {
  const product = await post('/v1/products', {
    name: 'Mánaðaráskrift',
    vat_rate: 24,
    default_price_data: { unit_amount: 3_490, recurring: { interval: 'month' } },
  });
  const customer = await post('/v1/customers', { name: 'Guðrún' });
  const pm = await post('/v1/payment-methods', { card, customer: customer.body.id });
  expect(pm.status).toBe(200);

  // A trial: created and nothing else until the trial ends.
  const trial = await post('/v1/subscriptions', {
    customer: customer.body.id,
    price: product.body.default_price,
    default_payment_method: pm.body.id,
    trial_period_days: 30,
  });
  expect(trial.body.status).toBe('trialing');
  const created = await lastWebhookAbout(trial.body.id, 'subscription.created');
  await expectSameAsGet(created, `/v1/subscriptions/${trial.body.id}`);

  // Charged at once: the events a charge causes carry the subscription and, after it, the renewal
  // just billed (decision 0098); the subscription part is what a GET returns.
  const sub = await post('/v1/subscriptions', {
    customer: customer.body.id,
    price: product.body.default_price,
    default_payment_method: pm.body.id,
  });
  expect(sub.status).toBe(200);
  await until(
    () => get(`/v1/subscriptions/${sub.body.id}`),
    (r) => r.body.status === 'active',
    30_000,
  );
  const activated = await lastWebhookAbout(sub.body.id, 'subscription.activated');
  expect(activated.body.type).toBe('subscription.activated');
  const { latest_renewal: renewal, ...subscription } = activated.body.data;
  const fetched = await get(`/v1/subscriptions/${sub.body.id}`);
  expect(JSON.stringify(subscription)).toBe(JSON.stringify(fetched.body));
  expect(Object.keys(activated.body.data).at(-1)).toBe('latest_renewal');
  expect(renewal).toMatchObject({ object: 'renewal', status: 'paid', amount: 3_490 });
  const pi = await get(`/v1/payment-intents/${renewal.payment_intent}`);
  expect(pi.body).toMatchObject({ status: 'succeeded', amount: 3_490, subscription: sub.body.id });
});

test('a claim created through the API and issued at the bank', async () => {
  const due = new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10);
  const claim = await post('/v1/claims', { payer_kennitala: '1201603389', amount: 12_900, due_date: due });
  expect(claim.status).toBe(200);
  await stack.client.workflow.execute(WorkflowType.claimBatch, {
    workflowId: claimBatchWorkflowId(false, `webhook-data-${claim.body.id}`),
    taskQueue: stack.taskQueue,
    args: [{ livemode: false, batch: `webhook-data-${claim.body.id}`, pollMs: 50 }],
  });
  const hook = await lastWebhookAbout(claim.body.id, 'claim.created');
  expect((await get(`/v1/claims/${claim.body.id}`)).body.status).toBe('issued');
  await expectSameAsGet(hook, `/v1/claims/${claim.body.id}`);
});
