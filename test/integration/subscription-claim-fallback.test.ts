import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { replayHistory } from '../helpers/replay';
import { randomBase62, newId, ID_PREFIX } from '../../domain/ids';
import { claimDatesFor, DEFAULT_CLAIM_TERMS } from '../../domain/checkout-claims';
import { claimIdOf } from '../../adapters/banks/claims-api';
import { SHARED_STACK_OPTIONS, startTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { simulatedToken } from '../helpers/subscriptions';
import { until } from '../helpers/until';

/**
 * The card → krafa fallback (decision 0105): when a subscription's card retries run
 * out, a krafa for the unpaid renewal is issued instead of ending the subscription, by the merchant's
 * setting or the subscription's own. The subscription stays past_due until the krafa is paid on the
 * payer's online-bank page (payment_recovered, active) or ends unpaid at the bank (expired,
 * cancelled): then the configured end state. Ended kröfur of claim-collected subscriptions lead to
 * the same end states. Everything on test clocks, with the simulated bank.
 */

// Each merchant its own company kennitala: a claim's id at the bank is claimant + number + due date.
let merchants = 0;
const claimant = () => `${41 + merchants++}01801239`;
const PAYER = '1201603389';
const T0 = Date.UTC(2027, 0, 4, 12, 0, 0); // Monday 4 January 2027
const DAY = 86_400_000;
const unixOf = (ms: number) => Math.floor(ms / 1000);
// The first renewal (4 Feb) fails; retries 1, 3, 7 and 14 days later; the last on 18 Feb at noon.
const RETRIES_EXHAUSTED = Date.UTC(2027, 1, 18, 12, 0, 0);

let stack: TestStack;

beforeAll(async () => {
  // A stack of its own (decision 0200): its claim batches take every pending krafa of the
  // database, and it counts what they issued.
  stack = await startTestStack(SHARED_STACK_OPTIONS);
});
afterAll(async () => {
  await stack?.stop();
});

const call = (m: TestMerchant, p: string, json?: unknown, method = 'POST') =>
  stack.api(m.testKey, p, json === undefined ? {} : { method, json });

async function claimsMerchant(name: string, dunning?: { claim_fallback: boolean }): Promise<TestMerchant> {
  const m = await stack.merchant(name);
  const patched = await call(
    m,
    '/v1/merchant',
    { kennitala: claimant(), ...(dunning && { dunning }) },
    'PATCH',
  );
  expect(patched.status).toBe(200);
  return m;
}

async function monthlyPrice(m: TestMerchant): Promise<string> {
  const product = await call(m, '/v1/products', { name: 'Áskrift', vat_rate: 24 });
  const price = await call(m, '/v1/prices', {
    product: product.body.id,
    unit_amount: 2990,
    recurring: { interval: 'month' },
  });
  expect(price.status).toBe(200);
  return price.body.id as string;
}

/** A saved card of the simulated acquirer (its documented test tokens), as the other tests save one. */
async function card(m: TestMerchant, customerId: string, behaviour: 'success' | 'generic_decline') {
  const id = newId(ID_PREFIX.paymentMethod);
  await stack.knex('payment_methods').insert({
    id,
    merchant_id: m.id,
    livemode: false,
    customer_id: customerId,
    acquirer_token: simulatedToken(behaviour),
    card_brand: 'visa',
    card_last4: behaviour === 'success' ? '4242' : '0002',
    card_exp_month: 12,
    card_exp_year: 2040,
  });
  return id;
}

async function clock(m: TestMerchant): Promise<string> {
  const r = await call(m, '/v1/test_helpers/test_clocks', { frozen_time: unixOf(T0), name: 'fallback' });
  expect(r.status).toBe(200);
  return r.body.id as string;
}

async function advance(m: TestMerchant, clockId: string, toMs: number) {
  const res = await call(m, `/v1/test_helpers/test_clocks/${clockId}/advance`, { frozen_time: unixOf(toMs) });
  expect(res.status).toBe(200);
  await until(
    () => call(m, `/v1/test_helpers/test_clocks/${clockId}`),
    (r) => r.body.status === 'ready',
    55_000,
  );
}

/**
 * An active monthly subscription on the clock whose card then starts failing: its first renewal (4
 * February) fails and the retries run out on 18 February.
 */
async function failingSubscription(
  m: TestMerchant,
  opts: { clockId: string; price: string; kennitala?: string | null; body?: Record<string, unknown> },
) {
  const customer = await call(m, '/v1/customers', {
    name: 'Guðrún',
    test_clock: opts.clockId,
    ...(opts.kennitala !== null && { kennitala: opts.kennitala ?? PAYER }),
  });
  expect(customer.status).toBe(200);
  const good = await card(m, customer.body.id, 'success');
  const created = await call(m, '/v1/subscriptions', {
    customer: customer.body.id,
    price: opts.price,
    default_payment_method: good,
    ...opts.body,
  });
  expect(created.status).toBe(200);
  const id = created.body.id as string;
  await until(
    () => call(m, `/v1/subscriptions/${id}`),
    (r) => r.body.status === 'active',
  );
  const failing = await card(m, customer.body.id, 'generic_decline');
  const switched = await call(m, `/v1/subscriptions/${id}`, { default_payment_method: failing });
  expect(switched.status).toBe(200);
  return { id, customer: customer.body.id as string, created: created.body };
}

const subscriptionEvents = async (m: TestMerchant, id: string) =>
  (
    await stack
      .knex('events')
      .where({ merchant_id: m.id })
      .whereLike('type', 'subscription.%')
      .orderBy('seq')
      .select<{ type: string; data: Record<string, any> }[]>('type', 'data')
  ).filter((e) => e.data.id === id);

const claimsOfCustomer = async (m: TestMerchant, customer: string) =>
  (await call(m, `/v1/claims?customer=${customer}`)).body.data as Record<string, any>[];

const issued = (m: TestMerchant, claimId: string) =>
  until(
    () => call(m, `/v1/claims/${claimId}`),
    (r) => r.body.status === 'issued',
  ).then((r) => r.body);

/** The payer opens the simulated online bank's page, finds the krafa and pays it (form posts, no script). */
async function payOnPayerPage(kennitala: string, claim: { claim_key: Record<string, string> }) {
  const bankClaimId = claimIdOf({
    claimantId: claim.claim_key.claimant_id!,
    account: claim.claim_key.account!,
    dueDate: claim.claim_key.due_date!,
  });
  const bank = stack.bank!.bank;
  const landing = await (await fetch(bank.payerUrl)).text();
  expect(landing).toContain('action="/bank/payor"');
  const list = await fetch(`${bank.url}/bank/payor?kt=${kennitala}&lang=is`);
  expect(list.status).toBe(200);
  expect(await list.text()).toContain(`data-claim-id="${bankClaimId}"`);
  const paid = await fetch(`${bank.url}/bank/pay`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ kt: kennitala, lang: 'is', claimId: bankClaimId }).toString(),
  });
  expect(paid.status).toBe(303);
  expect(paid.headers.get('location')).toContain('paid=1');
}

const runSync = () =>
  stack.client.workflow.execute('claimPaymentsSync', {
    workflowId: `claim-payments-sync/test/${randomBase62(6)}`,
    taskQueue: stack.taskQueue,
    args: [{}],
  });

const runBatch = () => {
  const batch = `b-${randomBase62(6)}`;
  return stack.client.workflow.execute('claimBatch', {
    workflowId: `claim-batch/test/${batch}`,
    taskQueue: stack.taskQueue,
    args: [{ livemode: false, batch, pollMs: 50 }],
  });
};

test('the settings: the merchant default, the per-subscription override, their validation', async () => {
  const m = await stack.merchant('Stillingar ehf.');
  expect((await call(m, '/v1/merchant')).body.dunning).toEqual({ claim_fallback: false });
  const bad = await call(m, '/v1/merchant', { dunning: { claim_fallback: 'yes' } }, 'PATCH');
  expect(bad.status).toBe(400);
  expect(bad.body.error.param).toBe('dunning.claim_fallback');
  const unknown = await call(m, '/v1/merchant', { dunning: { retries: 2 } }, 'PATCH');
  expect(unknown.status).toBe(400);
  const on = await call(m, '/v1/merchant', { dunning: { claim_fallback: true } }, 'PATCH');
  expect(on.status).toBe(200);
  expect(on.body.dunning).toEqual({ claim_fallback: true });

  // Without a claimant kennitala the subscription's own fallback is refused as a claim-collected one is.
  const price = await monthlyPrice(m);
  const customer = await call(m, '/v1/customers', { name: 'Jón', kennitala: PAYER });
  const pm = await card(m, customer.body.id, 'success');
  const refused = await call(m, '/v1/subscriptions', {
    customer: customer.body.id,
    price,
    default_payment_method: pm,
    dunning: { claim_fallback: true },
  });
  expect(refused.status).toBe(400);
  expect(refused.body.error).toMatchObject({
    code: 'merchant_kennitala_missing',
    param: 'dunning.claim_fallback',
  });

  await call(m, '/v1/merchant', { kennitala: claimant() }, 'PATCH');
  const byClaim = await call(m, '/v1/subscriptions', {
    customer: customer.body.id,
    price,
    collection_method: 'claim',
    dunning: { claim_fallback: true },
  });
  expect(byClaim.status).toBe(400);
  expect(byClaim.body.error.param).toBe('dunning.claim_fallback');

  const own = await call(m, '/v1/subscriptions', {
    customer: customer.body.id,
    price,
    default_payment_method: pm,
    dunning: { claim_fallback: false },
  });
  expect(own.status).toBe(200);
  expect(own.body.dunning).toMatchObject({ claim_fallback: false, claim: null, end_state: 'canceled' });
  const cleared = await call(m, `/v1/subscriptions/${own.body.id}`, { dunning: { claim_fallback: null } });
  expect(cleared.status).toBe(200);
  expect(cleared.body.dunning.claim_fallback).toBeNull();
  const set = await call(m, `/v1/subscriptions/${own.body.id}`, { dunning: { claim_fallback: true } });
  expect(set.body.dunning.claim_fallback).toBe(true);
});

test('card retries run out → a krafa through the simulated bank → paid on the payer page → payment_recovered and active', async () => {
  const m = await claimsMerchant('Kröfuvernd ehf.', { claim_fallback: true });
  const price = await monthlyPrice(m);
  const clockId = await clock(m);
  // Follows the merchant's setting; one opts out; one customer has no kennitala to send a krafa to.
  const a = await failingSubscription(m, { clockId, price });
  expect(a.created.dunning).toMatchObject({ claim_fallback: null, claim: null });
  const optedOut = await failingSubscription(m, {
    clockId,
    price,
    body: { dunning: { claim_fallback: false } },
  });
  const noKennitala = await failingSubscription(m, { clockId, price, kennitala: null });

  await advance(m, clockId, RETRIES_EXHAUSTED + DAY);

  // The opted-out one and the one without a payer kennitala end as configured (canceled), no krafa.
  for (const s of [optedOut, noKennitala]) {
    const sub = (await call(m, `/v1/subscriptions/${s.id}`)).body;
    expect(sub).toMatchObject({
      status: 'canceled',
      cancellation_details: { reason: 'payment_failed' },
      dunning: { claim: null },
    });
    expect(sub.canceled_at).toBe(unixOf(RETRIES_EXHAUSTED));
    expect(await claimsOfCustomer(m, s.customer)).toEqual([]);
  }

  // The one that follows the merchant waits, past_due, for the krafa of its unpaid renewal.
  const waiting = (await call(m, `/v1/subscriptions/${a.id}`)).body;
  expect(waiting.status).toBe('past_due');
  expect(waiting.dunning.claim).toMatch(/^clm_/);
  const events = await subscriptionEvents(m, a.id);
  expect(events.map((e) => e.type)).toEqual([
    'subscription.created',
    'subscription.activated',
    'subscription.updated',
    'subscription.payment_failed',
    'subscription.payment_retry_failed',
    'subscription.payment_retry_failed',
    'subscription.payment_retry_failed',
    'subscription.payment_retry_failed',
    'subscription.updated',
  ]);
  expect(events.at(-1)!.data.dunning.claim).toBe(waiting.dunning.claim);
  const failedRenewal = events[3]!.data.latest_renewal;
  expect(failedRenewal).toMatchObject({ status: 'failed', amount: 2990 });

  // Issued through the claim batch at the simulated bank: the renewal's amount, to the customer's
  // kennitala, dated from the clock's time by the merchant's claim terms.
  const claim = await issued(m, waiting.dunning.claim);
  const dates = claimDatesFor('2027-02-18', DEFAULT_CLAIM_TERMS);
  expect(claim).toMatchObject({
    customer: a.customer,
    payer_kennitala: PAYER,
    amount: 2990,
    due_date: dates.dueDate,
    final_due_date: dates.finalDueDate,
    cancellation_date: dates.cancellationDate,
    metadata: { subscription: a.id, renewal: failedRenewal.id },
  });
  expect(await claimsOfCustomer(m, a.customer)).toHaveLength(1);

  await payOnPayerPage(PAYER, claim);
  expect(await runSync()).toMatchObject({ applied: 1 });

  const recovered = await until(
    () => call(m, `/v1/subscriptions/${a.id}`),
    (r) => r.body.status === 'active',
  );
  expect(recovered.body.dunning).toMatchObject({ claim: null, payment_failed_at: null });
  const paidClaim = (await call(m, `/v1/claims/${claim.id}`)).body;
  expect(paidClaim).toMatchObject({ status: 'paid', amount_paid: 2990 });
  const after = await subscriptionEvents(m, a.id);
  expect(after.map((e) => e.type).slice(events.length)).toEqual(['subscription.payment_recovered']);
  expect(after.at(-1)!.data).toMatchObject({
    status: 'active',
    latest_renewal: { id: failedRenewal.id, status: 'paid', payment_intent: paidClaim.payment_intent },
  });
  // The krafa's payment intent took the money; the card's intent for the renewal is canceled.
  expect((await call(m, `/v1/payment-intents/${paidClaim.payment_intent}`)).body).toMatchObject({
    status: 'succeeded',
    amount_received: 2990,
  });
  expect((await call(m, `/v1/payment-intents/${failedRenewal.payment_intent}`)).body).toMatchObject({
    status: 'canceled',
    amount_received: 0,
  });
  // One renewal for the period, paid once.
  const renewals = await stack.knex('renewals').where({ subscription_id: a.id }).orderBy('period_index');
  expect(renewals.map((r) => [r.period_index, r.status])).toEqual([
    [0, 'paid'],
    [1, 'paid'],
  ]);

  // Determinism guard: this run replays; RECORD_HISTORIES=1 stores it for replay.test.ts.
  const history = await stack.client.workflow.getHandle(`subscription/${a.id}`).fetchHistory();
  await replayHistory(history, `subscription/${a.id}`);
  if (process.env.RECORD_HISTORIES === '1')
    await writeFile(
      path.join(__dirname, '..', 'fixtures', 'histories', 'subscription-claim-fallback-on-test-clock.json'),
      historyToJSON(history),
    );
});

test('a krafa that expires unpaid ends the subscription as configured (canceled); the renewal is failed again', async () => {
  const m = await claimsMerchant('Útrunnið ehf.', { claim_fallback: true });
  const price = await monthlyPrice(m);
  const clockId = await clock(m);
  const e = await failingSubscription(m, { clockId, price });
  await advance(m, clockId, RETRIES_EXHAUSTED + DAY);
  const waiting = (await call(m, `/v1/subscriptions/${e.id}`)).body;
  expect(waiting.status).toBe('past_due');
  const claim = await issued(m, waiting.dunning.claim);

  // Past its cancellation date (niðurfellingardagur) the krafa expires: the configured end state.
  await advance(m, clockId, Date.parse(`${claim.cancellation_date}T00:00:00Z`) + DAY + 3_600_000);
  expect((await call(m, `/v1/claims/${claim.id}`)).body.status).toBe('expired');
  const ended = (await call(m, `/v1/subscriptions/${e.id}`)).body;
  expect(ended).toMatchObject({
    status: 'canceled',
    cancellation_details: { reason: 'payment_failed' },
    dunning: { claim: null, payment_failed_at: null },
  });
  expect(ended.canceled_at).toBe(unixOf(Date.parse(`${claim.cancellation_date}T00:00:00Z`) + DAY));
  const types = (await subscriptionEvents(m, e.id)).map((x) => x.type);
  expect(types.slice(-2)).toEqual(['subscription.updated', 'subscription.canceled']);
  const renewal = await stack.knex('renewals').where({ id: claim.metadata.renewal }).first();
  expect(renewal.status).toBe('failed');
});

test('a krafa the bank refuses at issuance is closed and the subscription ends as configured at once', async () => {
  const m = await claimsMerchant('Synjun ehf.', { claim_fallback: true });
  const price = await monthlyPrice(m);
  const clockId = await clock(m);
  // The simulated bank refuses every claim on its test payer 121212-1299 (not in the national register).
  const r = await failingSubscription(m, { clockId, price, kennitala: '1212121299' });
  await advance(m, clockId, RETRIES_EXHAUSTED + DAY);
  const [claim] = await claimsOfCustomer(m, r.customer);
  expect(claim).toBeDefined();
  const ended = await until(
    () => call(m, `/v1/subscriptions/${r.id}`),
    (x) => x.body.status !== 'past_due',
  );
  expect(ended.body).toMatchObject({
    status: 'canceled',
    cancellation_details: { reason: 'payment_failed' },
    dunning: { claim: null },
  });
  // Closed, so no later batch sends it and no amendment revives it: the renewal is failed again.
  const closed = (await call(m, `/v1/claims/${claim!.id}`)).body;
  expect(closed).toMatchObject({ status: 'cancelled', bank_error: { code: 'CLAIM_OTHERS' } });
  expect((await stack.knex('renewals').where({ id: closed.metadata.renewal }).first()).status).toBe('failed');
  const failed = await stack.knex('events').where({ merchant_id: m.id, type: 'claim.failed' });
  expect(failed.map((e) => e.data.id)).toEqual([claim!.id]);
  expect((await subscriptionEvents(m, r.id)).map((x) => x.type).slice(-2)).toEqual([
    'subscription.updated',
    'subscription.canceled',
  ]);
});

test('off by default: the subscription opts in with end state unpaid; the merchant cancels the krafa → unpaid', async () => {
  const m = await claimsMerchant('Afpöntun ehf.');
  expect((await call(m, '/v1/merchant')).body.dunning).toEqual({ claim_fallback: false });
  const price = await monthlyPrice(m);
  const clockId = await clock(m);
  const c = await failingSubscription(m, {
    clockId,
    price,
    body: { dunning: { claim_fallback: true, end_state: 'unpaid' } },
  });
  const plain = await failingSubscription(m, { clockId, price });
  await advance(m, clockId, RETRIES_EXHAUSTED + DAY);

  expect((await call(m, `/v1/subscriptions/${plain.id}`)).body.status).toBe('canceled');
  expect(await claimsOfCustomer(m, plain.customer)).toEqual([]);
  const waiting = (await call(m, `/v1/subscriptions/${c.id}`)).body;
  expect(waiting).toMatchObject({ status: 'past_due', dunning: { claim_fallback: true } });
  const claim = await issued(m, waiting.dunning.claim);

  const cancelled = await call(m, `/v1/claims/${claim.id}/cancel`, {});
  expect(cancelled.body.status).toBe('cancelled');
  const ended = await until(
    () => call(m, `/v1/subscriptions/${c.id}`),
    (r) => r.body.status !== 'past_due',
  );
  expect(ended.body).toMatchObject({ status: 'unpaid', dunning: { claim: null, payment_failed_at: null } });
  expect((await subscriptionEvents(m, c.id)).map((x) => x.type).slice(-2)).toEqual([
    'subscription.updated',
    'subscription.updated',
  ]);
});

test('claim-collected subscriptions: a krafa cancelled at the bank leads to the configured end state', async () => {
  const m = await claimsMerchant('Innheimta ehf.');
  const price = await monthlyPrice(m);
  const clockId = await clock(m);
  const customer = await call(m, '/v1/customers', { name: 'Sigga', kennitala: PAYER, test_clock: clockId });
  const created = await call(m, '/v1/subscriptions', {
    customer: customer.body.id,
    price,
    collection_method: 'claim',
    dunning: { end_state: 'past_due' },
  });
  expect(created.status).toBe(200);
  const id = created.body.id as string;
  await until(
    () => call(m, `/v1/subscriptions/${id}`),
    (r) => r.body.status === 'active',
  );
  const [first] = await until(
    () => claimsOfCustomer(m, customer.body.id),
    (c) => c.length === 1,
  );
  expect(await runBatch()).toMatchObject({ issued: 1 });

  // The bank cancels it (the payer disputed it, say); the sync finds it cancelled.
  const key = (await call(m, `/v1/claims/${first!.id}`)).body.claim_key;
  const bankClient = stack.bank!.client();
  try {
    await bankClient.cancelClaim(
      claimIdOf({ claimantId: key.claimant_id, account: key.account, dueDate: key.due_date }),
      { idempotencyIdentity: `bank-side-cancel-${first!.id}` },
    );
  } finally {
    bankClient.close();
  }
  expect(await runSync()).toMatchObject({ cancelled: 1 });
  const ended = await until(
    () => call(m, `/v1/subscriptions/${id}`),
    (r) => r.body.status !== 'active',
  );
  expect(ended.body.status).toBe('past_due');
  expect((await subscriptionEvents(m, id)).map((x) => x.type).at(-1)).toBe('subscription.updated');

  // No further periods are billed: a month on, no new krafa.
  await advance(m, clockId, T0 + 40 * DAY);
  expect(await claimsOfCustomer(m, customer.body.id)).toHaveLength(1);
  expect((await call(m, `/v1/subscriptions/${id}`)).body.status).toBe('past_due');
});
