import { randomBase62 } from '../../domain/ids';
import { checkoutClaimDates } from '../../domain/checkout-claims';
import type { ClaimRow } from '../../db/claims';
import { SHARED_STACK_OPTIONS, startTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { until } from '../helpers/until';

/**
 * Claims in subscriptions (decision 0064): a subscription collected by claim on a
 * test clock; each period becomes a krafa dated by the clock, paid through the bank and the claim
 * payments sync; advancing past a claim's cancellation date expires it.
 */

const CLAIMANT = '5510730339';
const PAYER = '1201603389';
const T0 = Date.UTC(2027, 0, 4, 12, 0, 0);
const DAY = 86_400_000;
const unixOf = (ms: number) => Math.floor(ms / 1000);

let stack: TestStack;
let m: TestMerchant;

beforeAll(async () => {
  // A stack of its own (decision 0200): its claim batches take every pending krafa of the
  // database, and it counts what they issued.
  stack = await startTestStack(SHARED_STACK_OPTIONS);
  m = await stack.merchant('Áskriftir ehf.');
  await stack.knex('merchants').where({ id: m.id }).update({ kennitala: CLAIMANT });
});
afterAll(async () => {
  await stack?.stop();
});

const api = (p: string, json?: unknown) =>
  stack.api(m.testKey, p, json === undefined ? {} : { method: 'POST', json });

async function advance(clockId: string, toMs: number) {
  const res = await api(`/v1/test_helpers/test_clocks/${clockId}/advance`, { frozen_time: unixOf(toMs) });
  expect(res.status).toBe(200);
  return until(
    () => api(`/v1/test_helpers/test_clocks/${clockId}`),
    (r) => r.body.status === 'ready',
    55_000,
  );
}

const claimsOf = (subscriptionId: string) =>
  stack
    .knex<ClaimRow>('claims')
    .join('renewals', 'renewals.id', 'claims.renewal_id')
    .where('renewals.subscription_id', subscriptionId)
    .orderBy('renewals.period_index')
    .select<(ClaimRow & { period_index: number; renewal_status: string })[]>(
      'claims.*',
      'renewals.period_index',
      'renewals.status as renewal_status',
    );

const runBatch = () => {
  const batch = `b-${randomBase62(6)}`;
  return stack.client.workflow.execute('claimBatch', {
    workflowId: `claim-batch/test/${batch}`,
    taskQueue: stack.taskQueue,
    args: [{ livemode: false, batch, pollMs: 50 }],
  });
};
const runSync = () =>
  stack.client.workflow.execute('claimPaymentsSync', {
    workflowId: `claim-payments-sync/test/${randomBase62(6)}`,
    taskQueue: stack.taskQueue,
    args: [{}],
  });

test('a claim-collected subscription on a test clock: renewals become kröfur, paid by the sync, expired past the cancellation date', async () => {
  const product = await api('/v1/products', { name: 'Áskrift', vat_rate: 24 });
  const price = await api('/v1/prices', {
    product: product.body.id,
    unit_amount: 2990,
    recurring: { interval: 'month' },
  });
  const clock = (await api('/v1/test_helpers/test_clocks', { frozen_time: unixOf(T0), name: 'krafa' })).body
    .id as string;
  const noKt = await api('/v1/customers', { name: 'Án kennitölu', test_clock: clock });
  const refused = await api('/v1/subscriptions', {
    customer: noKt.body.id,
    price: price.body.id,
    collection_method: 'claim',
  });
  expect(refused.status).toBe(400);
  expect(refused.body.error.param).toBe('customer');

  const customer = await api('/v1/customers', { name: 'Guðrún', kennitala: PAYER, test_clock: clock });
  expect(customer.status).toBe(200);
  const created = await api('/v1/subscriptions', {
    customer: customer.body.id,
    price: price.body.id,
    collection_method: 'claim',
  });
  expect(created.status).toBe(200);
  expect(created.body).toMatchObject({ collection_method: 'claim', default_payment_method: null });
  const sub = created.body.id as string;

  // Period 0: no card, a krafa dated from the clock's time (2027-01-04 + 14 days, then + 90).
  await until(
    () => api(`/v1/subscriptions/${sub}`),
    (r) => r.body.status === 'active',
  );
  const [first] = await until(
    () => claimsOf(sub),
    (c) => c.length === 1,
  );
  const t0 = checkoutClaimDates('2027-01-04');
  expect(t0).toEqual({ dueDate: '2027-01-18', finalDueDate: '2027-01-18', cancellationDate: '2027-04-19' });
  expect(first).toMatchObject({
    period_index: 0,
    renewal_status: 'awaiting_claim',
    status: 'pending',
    amount: 2990,
    payer_kennitala: PAYER,
    due_date: t0.dueDate,
    cancellation_date: t0.cancellationDate,
    payment_intent_id: null,
  });

  // Issued, paid at the bank, one sync: the claim and its renewal are paid with one payment intent.
  // The renewal's invoice is issued with the krafa, open, and paid with it (decision 0211).
  expect(await runBatch()).toMatchObject({ issued: 1 });
  const invoiceOf = async (claimId: string) =>
    (
      (await stack.api(m.testKey, `/v1/invoices?subscription=${sub}`)).body.data as {
        id: string;
        claim: string;
      }[]
    ).filter((i) => i.claim === claimId);
  expect(await invoiceOf(first!.id)).toEqual([
    expect.objectContaining({ status: 'open', payment_intent: null, total: 2990, due_date: t0.dueDate }),
  ]);
  stack.bank!.bank.ledger.pay(first!.bank_claim_id);
  expect(await runSync()).toMatchObject({ applied: 1 });
  const [paid] = await claimsOf(sub);
  expect(paid).toMatchObject({ status: 'paid', renewal_status: 'paid' });
  expect(await invoiceOf(first!.id)).toEqual([
    expect.objectContaining({ status: 'paid', payment_intent: paid!.payment_intent_id }),
  ]);
  const renewal0 = await stack.knex('renewals').where({ id: paid!.renewal_id }).first();
  expect(renewal0.payment_intent_id).toBe(paid!.payment_intent_id);
  const intent = (await api(`/v1/payment-intents/${paid!.payment_intent_id}`)).body;
  expect(intent).toMatchObject({ status: 'succeeded', amount_received: 2990, fee_amount: 25 });

  // One month on (2027-02-04): the renewal is a new krafa, dated by the clock.
  await advance(clock, T0 + 31 * DAY + 3_600_000);
  const afterRenewal = await claimsOf(sub);
  expect(afterRenewal).toHaveLength(2);
  const t1 = checkoutClaimDates('2027-02-04');
  expect(afterRenewal[1]).toMatchObject({
    period_index: 1,
    renewal_status: 'awaiting_claim',
    due_date: t1.dueDate,
    cancellation_date: t1.cancellationDate,
  });
  expect((await api(`/v1/subscriptions/${sub}`)).body.status).toBe('active');
  expect(await runBatch()).toMatchObject({ issued: 1 });

  // Not paid: past its cancellation date (2027-05-19) the claim expires and its renewal is void;
  // the later periods' kröfur, not yet past theirs, stay open.
  expect(t1.cancellationDate).toBe('2027-05-19');
  await advance(clock, Date.UTC(2027, 4, 20, 13, 0, 0));
  const later = await claimsOf(sub);
  expect(later[0]).toMatchObject({ status: 'paid' });
  expect(later[1]).toMatchObject({ status: 'expired', renewal_status: 'void' });
  expect(later.length).toBeGreaterThan(2);
  for (const c of later.slice(2)) expect(c.status).not.toBe('expired');
  expect((await api(`/v1/claims/${later[1]!.id}`)).body.status).toBe('expired');
  // Its invoice is credited in full at the expiry, by a credit note naming the krafa (decision 0211).
  const [expiredInvoice] = await invoiceOf(later[1]!.id);
  expect(expiredInvoice).toMatchObject({ status: 'open', amount_credited: 2990 });
  expect((await stack.api(m.testKey, `/v1/credit-notes?invoice=${expiredInvoice!.id}`)).body.data).toEqual([
    expect.objectContaining({ claim: later[1]!.id, refund: null, total: 2990 }),
  ]);
  // An expired krafa ends the subscription as configured (dunning.end_state, canceled by default;
  // decision 0105), at the clock's time of the expiry; no krafa follows it.
  const ended = (await api(`/v1/subscriptions/${sub}`)).body;
  expect(ended).toMatchObject({ status: 'canceled', cancellation_details: { reason: 'payment_failed' } });
  expect(ended.canceled_at).toBe(unixOf(Date.UTC(2027, 4, 20, 13, 0, 0)));
  await advance(clock, Date.UTC(2027, 5, 30, 13, 0, 0));
  expect(await claimsOf(sub)).toHaveLength(later.length);
});
