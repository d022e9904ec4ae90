import { claimIdOf } from '../../adapters/banks/claims-api';
import { randomBase62 } from '../../domain/ids';
import { claimFee } from '../../domain/fees';
import { toCreateClaimDetails, type ClaimRow } from '../../db/claims';
import { nextBankingDay } from '../../domain/banking-days';
import { claimBatchWorkflowId } from '../../workflows/contract';
import { SHARED_STACK_OPTIONS, startTestStack, type TestMerchant, type TestStack } from '../helpers/stack';

// Claims end to end: the API, the claim-batch and claim-payments-sync workflows on a real Temporal
// worker, and the real IOBWS client against the simulated bank over HTTP (traffic validated
// against IOBWS-Claims3.1.yaml).

const CLAIMANT = '5510730339';
const PAYER = '1201603389';
/** Today plus `n` days: due dates may not be in the past (decision 0104). */
const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
/** The banking day on or after `day(n)`. */
const bankingDay = (n: number) => nextBankingDay(day(n));

let stack: TestStack;
let m: TestMerchant;

beforeAll(async () => {
  // A stack of its own (decision 0200): its claim batches take every pending krafa of the
  // database, and it counts what they issued.
  stack = await startTestStack(SHARED_STACK_OPTIONS);
  m = await stack.merchant('Claims merchant');
  await stack.knex('merchants').where({ id: m.id }).update({ kennitala: CLAIMANT });
});

afterAll(async () => {
  await stack?.stop();
});

const bank = () => stack.bank!;
const bankId = (c: { claim_key: { claimant_id: string; account: string; due_date: string } }) =>
  claimIdOf({
    claimantId: c.claim_key.claimant_id,
    account: c.claim_key.account,
    dueDate: c.claim_key.due_date,
  });
const runBatch = (batch: string) =>
  stack.client.workflow.execute('claimBatch', {
    workflowId: `claim-batch/test/${batch}`,
    taskQueue: stack.taskQueue,
    args: [{ livemode: false, batch, pollMs: 50 }],
  });
const runSync = () =>
  stack.client.workflow.execute('claimPaymentsSync', {
    workflowId: `claim-payments-sync/test/${randomBase62(6)}`,
    taskQueue: stack.taskQueue,
    args: [{}],
  });
type ClaimObject = { id: string; metadata: Record<string, string> };
const create = (json: Record<string, unknown>) =>
  stack.api(m.testKey, '/v1/claims', { method: 'POST', json });
/**
 * The buyer pays a checkout session with a krafa: the hosted checkout's form (the default fields,
 * name and email, and the payer's kennitala), posted as a browser does.
 */
async function payByClaim(sessionId: string) {
  const res = await fetch(`${stack.url}/checkout/${sessionId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      action: 'claim',
      f_name: 'Jón Jónsson',
      f_email: 'jon@example.is',
      claim_kennitala: PAYER,
    }).toString(),
    redirect: 'manual',
  });
  return { status: res.status, text: await res.text() };
}
const events = async (type: string) =>
  (await stack.api(m.testKey, `/v1/events?type=${type}&limit=100`)).body.data as { data: { id: string } }[];

test('claim fee: 0.8 %, at least 25 and at most 250 ISK', () => {
  expect(claimFee(10_000)).toBe(80);
  expect(claimFee(1_000)).toBe(25);
  expect(claimFee(1_000_000)).toBe(250);
  expect(claimFee(10_063)).toBe(81); // 80.504, half up
});

test('validation errors name the parameter; non-banking days move to the next banking day', async () => {
  const noPayer = await create({ amount: 1000, due_date: day(20) });
  expect(noPayer.status).toBe(400);
  expect(noPayer.body.error.param).toBe('payer_kennitala');
  const badKt = await create({ payer_kennitala: '1234567890', amount: 1000, due_date: day(20) });
  expect(badKt.body.error.param).toBe('payer_kennitala');
  const badAmount = await create({ payer_kennitala: PAYER, amount: 0, due_date: day(20) });
  expect(badAmount.body.error.param).toBe('amount');
  const badFinal = await create({
    payer_kennitala: PAYER,
    amount: 1000,
    due_date: day(30),
    final_due_date: day(20),
  });
  expect(badFinal.body.error.param).toBe('final_due_date');
  const badCancel = await create({
    payer_kennitala: PAYER,
    amount: 1000,
    due_date: day(20),
    cancellation_date: day(20 + 4 * 366 + 10),
  });
  expect(badCancel.body.error.param).toBe('cancellation_date');

  // A Saturday moves to the Monday after it; 31 December is closed (rule 912/2025), as is 1 January.
  let saturday = day(7);
  const plus = (d: string, n: number) =>
    new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
  while (
    new Date(`${saturday}T00:00:00Z`).getUTCDay() !== 6 ||
    nextBankingDay(saturday) !== plus(saturday, 2)
  )
    saturday = plus(saturday, 1);
  const dec31 = `${saturday.slice(0, 4)}-12-31`;
  const afterNewYear = nextBankingDay(dec31);
  expect(afterNewYear.slice(0, 8)).toBe(`${Number(saturday.slice(0, 4)) + 1}-01-`);
  const sat = await create({
    payer_kennitala: PAYER,
    amount: 1000,
    due_date: saturday,
    final_due_date: dec31,
  });
  expect(sat.status).toBe(200);
  expect(sat.body).toMatchObject({
    object: 'claim',
    status: 'pending',
    due_date: plus(saturday, 2),
    final_due_date: afterNewYear,
    claim_key: null,
  });
  const cancelled = await stack.api(m.testKey, `/v1/claims/${sat.body.id}/cancel`, { method: 'POST' });
  expect(cancelled.body.status).toBe('cancelled');
});

test('batch issuance, a retried batch, payments synced twice, amend and cancel at the bank', async () => {
  const made = [];
  for (const [amount, partial] of [
    [10_000, false],
    [20_000, true],
    [3_000, false],
  ] as const) {
    const res = await create({
      payer_kennitala: PAYER,
      amount,
      due_date: bankingDay(40),
      final_due_date: day(54),
      allow_partial_payment: partial,
      description: `claim ${amount}`,
      metadata: { order: String(amount) },
    });
    expect(res.status).toBe(200);
    made.push(res.body);
  }
  // Claim numbers come from the merchant's sequence: distinct.
  expect(new Set(made.map((c) => c.claim_number)).size).toBe(3);

  const batch = `b-${randomBase62(6)}`;
  const first = await runBatch(batch);
  expect(first).toMatchObject({ claims: 3, issued: 3, failed: 0 });
  const issued = await Promise.all(
    made.map(async (c) => (await stack.api(m.testKey, `/v1/claims/${c.id}`)).body),
  );
  for (const c of issued) {
    expect(c.status).toBe('issued');
    expect(c.claim_key).toMatchObject({ claimant_id: CLAIMANT, due_date: bankingDay(40) });
    expect(bank().bank.ledger.find(bankId(c))).toBeDefined();
  }
  const created = await events('claim.created');
  expect(created.map((e) => e.data.id).sort()).toEqual(made.map((c) => c.id).sort());
  const bankClaims = () => bank().bank.ledger.snapshot().claims.length;

  // Retry: the same batch again issues nothing.
  expect(await runBatch(batch)).toMatchObject({ claims: 0 });

  // A claim whose result was never recorded: its send reached the bank, which created it, and the
  // answer was lost in a crash. The lost send is made here with the bank's own client and the claim
  // details a batch sends; Skil's claim stays pending. The batch sends it again, the bank answers
  // CLAIM_EXISTS, and it is issued: once at the bank, with one claim.created.
  const lost = (
    await create({
      payer_kennitala: PAYER,
      amount: 3_000,
      due_date: bankingDay(45),
      final_due_date: day(59),
      description: 'claim whose answer was lost',
    })
  ).body;
  expect(lost).toMatchObject({ status: 'pending', claim_key: null });
  const lostRow = (await stack.knex<ClaimRow>('claims').where({ id: lost.id }).first())!;
  const lostSend = bank().client();
  try {
    await lostSend.createClaim(toCreateClaimDetails(lostRow), {
      idempotencyIdentity: `lost-send/${lost.id}`,
    });
  } finally {
    lostSend.close();
  }
  expect(bank().bank.ledger.find(lostRow.bank_claim_id)).toBeDefined();
  const atBank = bankClaims();
  expect(await runBatch(batch)).toMatchObject({ claims: 1, issued: 1 });
  expect(bankClaims()).toBe(atBank);
  expect((await stack.api(m.testKey, `/v1/claims/${lost.id}`)).body.status).toBe('issued');
  expect((await events('claim.created')).map((e) => e.data.id).sort()).toEqual(
    [...made.map((c) => c.id), lost.id].sort(),
  );
  // Cancelled (at the bank too), so the filters below see the batch's three claims alone.
  const lostCancelled = await stack.api(m.testKey, `/v1/claims/${lost.id}/cancel`, { method: 'POST' });
  expect(lostCancelled.body.status).toBe('cancelled');

  // Filters.
  const list = async (q: string) =>
    ((await stack.api(m.testKey, `/v1/claims?${q}`)).body.data as { id: string }[]).map((c) => c.id).sort();
  expect(await list('status=issued')).toEqual(made.map((c) => c.id).sort());
  const due = bankingDay(40);
  expect(await list(`payer_kennitala=${PAYER}&due_date[gte]=${due}&due_date[lte]=${due}`)).toEqual(
    made.map((c) => c.id).sort(),
  );
  expect(await list(`due_date[lte]=${day(39)}`)).toHaveLength(1);

  // Amend an issued claim: the bank takes the new amount.
  const amended = await stack.api(m.testKey, `/v1/claims/${made[2].id}`, {
    method: 'POST',
    json: { amount: 3_500, metadata: { order: 'changed' } },
  });
  expect(amended.body).toMatchObject({ amount: 3_500, metadata: { order: 'changed' } });
  expect(bank().bank.ledger.find(bankId(issued[2]))!.claim.amount).toBe(3_500);

  // Pay one fully and one partly at the bank; the sync runs twice.
  bank().bank.ledger.pay(bankId(issued[0]));
  bank().bank.ledger.pay(bankId(issued[1]), { amount: 4_000 });
  const firstSync = await runSync();
  expect(firstSync.applied).toBe(2);
  const secondSync = await runSync();
  expect(secondSync.applied).toBe(0);
  const paid = (await stack.api(m.testKey, `/v1/claims/${made[0].id}`)).body;
  expect(paid).toMatchObject({ status: 'paid', amount_paid: 10_000 });
  const partly = (await stack.api(m.testKey, `/v1/claims/${made[1].id}`)).body;
  expect(partly).toMatchObject({ status: 'partially_paid', amount_paid: 4_000, payment_intent: null });
  const intent = (await stack.api(m.testKey, `/v1/payment-intents/${paid.payment_intent}`)).body;
  expect(intent).toMatchObject({
    status: 'succeeded',
    amount: 10_000,
    amount_received: 10_000,
    fee_amount: 80,
  });
  expect((await events('claim.paid')).map((e) => e.data.id)).toEqual([made[0].id]);
  expect((await events('payment_intent.captured')).map((e) => e.data.id)).toEqual([paid.payment_intent]);

  // A paid claim cannot be cancelled; an issued one is cancelled at the bank too.
  const refused = await stack.api(m.testKey, `/v1/claims/${made[0].id}/cancel`, { method: 'POST' });
  expect(refused.status).toBe(409);
  const cancel = await stack.api(m.testKey, `/v1/claims/${made[2].id}/cancel`, { method: 'POST' });
  expect(cancel.body.status).toBe('cancelled');
  expect(bank().bank.ledger.find(bankId(issued[2]))!.claimStatus).toBe('Cancelled');
  const again = await stack.api(m.testKey, `/v1/claims/${made[2].id}/cancel`, { method: 'POST' });
  expect(again.body.status).toBe('cancelled');

  expect(bank().problems()).toEqual([]);
});

test('a claim cancelled at the bank and a reversed payment: each synced once', async () => {
  const made = await create({
    payer_kennitala: PAYER,
    amount: 5_000,
    due_date: day(41),
    final_due_date: day(55),
    description: 'claim 5000',
  });
  expect(made.status).toBe(200);
  // The second claim pays a checkout session: the buyer chooses "pay with a krafa" on the hosted
  // checkout, which links the claim to the session and starts a claim batch (decision 0063). That
  // batch takes every pending claim of the environment, so it issues both.
  const session = await stack.api(m.testKey, '/v1/checkout/sessions', {
    method: 'POST',
    json: { amount: 6_000 },
  });
  expect(session.status).toBe(200);
  const chosen = await payByClaim(session.body.id);
  expect(chosen.status).toBe(200);
  expect(chosen.text).toContain('data-payment-status="awaiting_claim"');
  const checkoutBatch = stack.client.workflow.getHandle(
    claimBatchWorkflowId(false, `checkout-${session.body.id}`),
  );
  expect(await checkoutBatch.result()).toMatchObject({ claims: 2, issued: 2 });
  const linked = ((await stack.api(m.testKey, '/v1/claims?limit=100')).body.data as ClaimObject[]).find(
    (c) => c.metadata.checkout_session === session.body.id,
  )!;
  const [toCancel, toReverse] = await Promise.all(
    [made.body.id as string, linked.id].map(
      async (id) => (await stack.api(m.testKey, `/v1/claims/${id}`)).body,
    ),
  );
  expect(toReverse).toMatchObject({ amount: 6_000, payer_kennitala: PAYER, status: 'issued' });
  const sessionStatus = async () =>
    (await stack.knex('checkout_sessions').where({ id: session.body.id }).first()).payment_status as string;
  const claim = async (id: string) => (await stack.api(m.testKey, `/v1/claims/${id}`)).body;
  const claimPaid = async () => (await events('claim.paid')).filter((e) => e.data.id === toReverse.id);
  expect(await sessionStatus()).toBe('awaiting_claim');

  // The bank cancels one claim; the other is paid.
  bank().bank.ledger.cancelByBank(bankId(toCancel));
  expect(bank().bank.ledger.find(bankId(toCancel))!.claimStatus).toBe('Cancelled');
  bank().bank.ledger.pay(bankId(toReverse));
  expect(await runSync()).toMatchObject({ applied: 1, cancelled: 1 });
  expect(await runSync()).toMatchObject({ applied: 0, cancelled: 0 });
  expect(await claim(toCancel.id)).toMatchObject({ status: 'cancelled' });
  expect(await claim(toReverse.id)).toMatchObject({ status: 'paid', amount_paid: 6_000 });
  expect(await sessionStatus()).toBe('paid');
  expect(await claimPaid()).toHaveLength(1);

  // The bank reverses the payment: the feed carries a Refund; the claim and its session are unpaid.
  const reversal = bank().bank.ledger.reverse(bankId(toReverse));
  expect(reversal).toMatchObject({ paymentType: 'Refund', totalAmountPaid: 6_000 });
  expect(bank().bank.ledger.find(bankId(toReverse))!.claimStatus).toBe('Unpaid');
  expect(await runSync()).toMatchObject({ applied: 1, cancelled: 0 });
  expect(await runSync()).toMatchObject({ applied: 0, cancelled: 0 });
  expect(await claim(toReverse.id)).toMatchObject({ status: 'issued', amount_paid: 0 });
  expect(await sessionStatus()).toBe('unpaid');
  expect(await claim(toCancel.id)).toMatchObject({ status: 'cancelled' });
  const txs = await stack.knex('claim_transactions').where({ claim_id: toReverse.id }).orderBy('id');
  expect(txs.map((t) => [t.payment_type, Number(t.amount)])).toEqual([
    ['Complete', 6_000],
    ['Refund', -6_000],
  ]);
  // No events for a cancellation or a reversal (spec §6.1).
  expect(await claimPaid()).toHaveLength(1);

  expect(bank().problems()).toEqual([]);
});

test("a claim's webhook data is its API object: claim.created equals a GET, key for key and in order", async () => {
  const res = await create({
    payer_kennitala: PAYER,
    amount: 12_000,
    due_date: day(60),
    final_due_date: day(74),
    default_charges: { reference_date: 'due_date', first: { type: 'amount', days: 5, value: 500 } },
    default_interest: { base: 'amount', day_count: '360', percentage: 12.5 },
    discount: { first: { type: 'percentage', days: 0, value: 2 } },
    metadata: { order: 'webhook-shape' },
  });
  expect(res.status).toBe(200);
  expect(await runBatch(`b-${randomBase62(6)}`)).toMatchObject({ issued: 1 });
  const event = (await events('claim.created')).find((e) => e.data.id === res.body.id);
  const got = await stack.api(m.testKey, `/v1/claims/${res.body.id}`);
  expect(got.status).toBe(200);
  expect(Object.keys(got.body)[0]).toBe('id');
  expect(JSON.stringify(event?.data)).toBe(JSON.stringify(got.body));
});

test('two merchant accounts of one company, same bank branch and due date, at once: every krafa stored, each bank key once', async () => {
  // One kennitala, one branch: the bank tells their claims apart only by claim number and due date.
  const company = '4710080280';
  const accounts = await Promise.all(
    ['Verslun', 'Vefverslun'].map(async (name) => {
      const account = await stack.merchant(`${name} ehf.`);
      const profile = await stack.api(account.testKey, '/v1/merchant', {
        method: 'PATCH',
        json: { kennitala: company, bank_account: '0133-26-012345' },
      });
      expect(profile.status).toBe(200);
      return account;
    }),
  );
  const due = day(40);
  const created = await Promise.all(
    Array.from({ length: 24 }, (_, i) =>
      stack.api(accounts[i % 2]!.testKey, '/v1/claims', {
        method: 'POST',
        json: { payer_kennitala: PAYER, amount: 1_000 + i, due_date: due },
      }),
    ),
  );
  expect(created.map((r) => r.status)).toEqual(created.map(() => 200));
  // The key the claim batch will send the bank (claimant, account, due date), as stored.
  const keys = await stack
    .knex('claims')
    .whereIn(
      'id',
      created.map((r) => r.body.id as string),
    )
    .pluck('bank_claim_id');
  expect(new Set(keys).size).toBe(24);
  // Each account sees its own twelve, under numbers of its own.
  for (const [n, account] of accounts.entries()) {
    const listed = await stack.api(
      account.testKey,
      `/v1/claims?due_date[gte]=${due}&due_date[lte]=${due}&limit=100`,
    );
    const amounts = (listed.body.data as { amount: number }[]).map((c) => c.amount).sort((a, b) => a - b);
    expect(amounts).toEqual(Array.from({ length: 12 }, (_, i) => 1_000 + 2 * i + n));
    const numbers = (listed.body.data as { claim_number: number }[]).map((c) => c.claim_number);
    expect(new Set(numbers).size).toBe(12);
  }
  // Cancelled before any batch: the other tests' batches count only their own kröfur.
  const cancelled = await Promise.all(
    created.map((r, i) =>
      stack.api(accounts[i % 2]!.testKey, `/v1/claims/${r.body.id}/cancel`, { method: 'POST' }),
    ),
  );
  expect(cancelled.map((r) => r.body.status)).toEqual(created.map(() => 'cancelled'));
});
