import { startTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { createClaimActivities } from '../../activities/claims';
import { createClaimBatchService } from '../../services/claims/claim-batches';
import { createClaimPaymentsSync } from '../../services/claims/claim-payments-sync';
import { createLogger } from '../../stack/logger';
import { claimBatchWorkflowId } from '../../workflows/contract';
import { REFUSED_PAYOR_KENNITALA } from '../../simulators/bank/claims-rules';

/**
 * A krafa the bank refuses at issuance (decision 0103), driven as a buyer: the
 * session is created through the API, the buyer chooses "pay with a krafa" on the hosted checkout
 * with the simulated bank's refused test payer, and the claim batch started at checkout gets the
 * bank's refusal. The session becomes `unpaid` (status stays `complete`), `payment_intent.failed`
 * and `claim.failed` are emitted once, what the completion took (stock, the code's redemption, the
 * link's completion) is given back, and the buyer pays again through a new session.
 */

const CLAIMANT = '5510730339';

let stack: TestStack;
let m: TestMerchant;

beforeAll(async () => {
  stack = await startTestStack({ realBaseUrl: true, bank: true });
  m = await stack.merchant('Ullarbúðin ehf.');
  await stack.knex('merchants').where({ id: m.id }).update({ kennitala: CLAIMANT });
});
afterAll(async () => {
  await stack?.stop();
});

const get = (path: string) => stack.api(m.testKey, path);
const post = (path: string, json: unknown) => stack.api(m.testKey, path, { method: 'POST', json });

/** Submits the hosted checkout form as a browser would, without following redirects. */
async function submit(url: string, form: Record<string, string>) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
    redirect: 'manual',
  });
  return { status: res.status, text: await res.text() };
}
const card = { action: 'pay', card_number: '4242424242424242', card_exp: '12/34', card_cvc: '123' };

const events = async (type: string) =>
  (await get(`/v1/events?type=${type}&limit=100`)).body.data as {
    data: { id: string; [k: string]: unknown };
  }[];

/** The buyer pays the session by krafa with the refused payer; waits for the batch checkout started. */
async function payByRefusedClaim(session: { id: string; url: string }) {
  const chosen = await submit(session.url, { action: 'claim', claim_kennitala: REFUSED_PAYOR_KENNITALA });
  expect(chosen.status).toBe(200);
  expect(chosen.text).toContain('data-payment-status="awaiting_claim"');
  const totals = await stack.client.workflow
    .getHandle(claimBatchWorkflowId(false, `checkout-${session.id}`))
    .result();
  expect(totals).toMatchObject({ claims: 1, issued: 0, failed: 1 });
}

test('refused at issuance: session unpaid, payment_intent.failed and claim.failed once; stock and code given back; paid again', async () => {
  const product = (await post('/v1/products', { name: 'Lopapeysa' })).body;
  const variant = (
    await post(`/v1/products/${product.id}/variants`, { name: 'M', unit_amount: 14_900, stock: 1 })
  ).body;
  const coupon = (await post('/v1/coupons', { percent_off: 10, max_redemptions: 1 })).body;
  const code = (await post('/v1/promotion-codes', { coupon: coupon.id, code: 'VETUR', max_redemptions: 1 }))
    .body;
  expect(code.id).toBeDefined();
  const open = async () => {
    const r = await post('/v1/checkout/sessions', {
      items: [{ product: product.id, variant: variant.id }],
      promotion_code: 'VETUR',
      form_fields: [],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'open', payment_status: 'unpaid', amount: 13_410 });
    return r.body as { id: string; url: string };
  };

  const first = await open();
  await payByRefusedClaim(first);

  // The session: complete, unpaid, no payment intent (no payment completed).
  expect((await get(`/v1/checkout/sessions/${first.id}`)).body).toMatchObject({
    status: 'complete',
    payment_status: 'unpaid',
    payment_intent: null,
  });
  // The claim is closed with the bank's reason; it never reaches a batch again.
  const claim = (await get('/v1/claims?limit=100')).body.data.find(
    (c: { metadata: Record<string, string> }) => c.metadata.checkout_session === first.id,
  );
  expect(claim).toMatchObject({
    status: 'cancelled',
    amount: 13_410,
    payer_kennitala: REFUSED_PAYOR_KENNITALA,
    // The bank never had it: no claim key.
    claim_key: null,
    bank_error: { code: 'CLAIM_OTHERS', message: 'payorId is not in the national register' },
  });
  // One failed payment intent for the attempt, linked from the claim.
  const failed = await events('payment_intent.failed');
  expect(failed).toHaveLength(1);
  const intent = (await get(`/v1/payment-intents/${claim.payment_intent}`)).body;
  expect(failed[0]!.data).toEqual(intent);
  expect(intent).toMatchObject({
    status: 'requires_payment_method',
    amount: 13_410,
    amount_received: 0,
    metadata: { claim: claim.id, checkout_session: first.id },
    last_payment_error: {
      code: 'claim_refused',
      decline_code: 'claim_others',
      message: 'payorId is not in the national register',
    },
  });
  const claimFailed = await events('claim.failed');
  expect(claimFailed.map((e) => e.data)).toEqual([(await get(`/v1/claims/${claim.id}`)).body]);

  // What the completion took is given back: the unit in stock and the code's one redemption.
  expect((await get(`/v1/products/${product.id}/variants/${variant.id}`)).body.stock).toBe(1);
  expect((await get(`/v1/promotion-codes/${code.id}`)).body.times_redeemed).toBe(0);
  expect((await get(`/v1/coupons/${coupon.id}`)).body.times_redeemed).toBe(0);

  // A retried result read (an activity retry after a lost answer) changes nothing and emits nothing.
  const batchId = stack
    .bank!.exchanges.filter((x) => x.method === 'POST' && x.path === '/v1/batches')
    .map((x) => (x.responseBody as { batchId: string }).batchId)
    .at(-1)!;
  const claimsApi = stack.bank!.client();
  const claimDeps = {
    knex: stack.knex,
    log: createLogger('test', 'silent'),
    claimsApi,
    wakeChannels: () => Promise.resolve(),
  };
  const activities = createClaimActivities({
    claimBatches: createClaimBatchService(claimDeps),
    claimPaymentsSync: createClaimPaymentsSync(claimDeps),
  });
  expect(await activities.recordClaimBatch({ batchId })).toMatchObject({ done: true, failed: 1 });
  claimsApi.close();
  expect(await events('payment_intent.failed')).toHaveLength(1);
  expect(await events('claim.failed')).toHaveLength(1);
  expect((await get(`/v1/products/${product.id}/variants/${variant.id}`)).body.stock).toBe(1);
  // The next scheduled batch does not take the refused claim.
  const later = await stack.client.workflow.execute('claimBatch', {
    workflowId: claimBatchWorkflowId(false, `later-${first.id}`),
    taskQueue: stack.taskQueue,
    args: [{ livemode: false, batch: `later-${first.id}`, pollMs: 50 }],
  });
  expect(later).toMatchObject({ claims: 0 });

  // The buyer pays again through a new session for the same product, with the same code.
  const second = await open();
  const paid = await submit(second.url, card);
  expect(paid.status).toBe(200);
  expect((await get(`/v1/checkout/sessions/${second.id}`)).body).toMatchObject({
    status: 'complete',
    payment_status: 'paid',
    amount: 13_410,
  });
  expect((await get(`/v1/products/${product.id}/variants/${variant.id}`)).body.stock).toBe(0);
  expect((await get(`/v1/promotion-codes/${code.id}`)).body.times_redeemed).toBe(1);
  // The first session stays unpaid.
  expect((await get(`/v1/checkout/sessions/${first.id}`)).body.payment_status).toBe('unpaid');
});

test('a payment link at its completion limit opens again for the buyer after the refusal', async () => {
  const link = (
    await post('/v1/payment-links', { amount: 4_900, completed_sessions_limit: 1, form_fields: [] })
  ).body;
  const visit = async () => {
    const r = await fetch(link.url, { redirect: 'manual' });
    return { status: r.status, location: r.headers.get('location') };
  };
  const v1 = await visit();
  expect(v1.status).toBe(303);
  const firstId = v1.location!.split('/').at(-1)!;
  await payByRefusedClaim({ id: firstId, url: v1.location! });
  expect((await get(`/v1/checkout/sessions/${firstId}`)).body).toMatchObject({
    status: 'complete',
    payment_status: 'unpaid',
  });
  expect((await get(`/v1/payment-links/${link.id}`)).body.completed_sessions_count).toBe(0);

  // The same link opens a new session and the buyer pays it by card; then the link is used up.
  const v2 = await visit();
  expect(v2.status).toBe(303);
  expect(v2.location).not.toBe(v1.location);
  expect((await submit(v2.location!, card)).status).toBe(200);
  const secondId = v2.location!.split('/').at(-1)!;
  expect((await get(`/v1/checkout/sessions/${secondId}`)).body.payment_status).toBe('paid');
  expect((await get(`/v1/payment-links/${link.id}`)).body.completed_sessions_count).toBe(1);
  expect((await visit()).status).toBe(404);
});
