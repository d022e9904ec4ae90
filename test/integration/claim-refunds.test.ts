import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { claimIdOf } from '../../adapters/banks/claims-api';
import { nextBankingDay } from '../../domain/banking-days';
import { randomBase62 } from '../../domain/ids';
import { createOperator } from '../helpers/accounts';
import { startTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { until } from '../helpers/until';
import { checkLedger, ledgerWith } from '../helpers/ledger-invariant';
import type { Knex } from '../../db/knex';

/**
 * Issue 15, item 3: the refund of a krafa paid at the bank. There is no card to refund to: the
 * money goes back to the payer's bank account, named by the bank's payment notification (camt.054
 * DbtrAcct), as a credit transfer in the merchant's next payout file, netted in that settlement run
 * (decision 0101). Driven end to end as a merchant and the bank would: krafa issued, paid on the
 * payer's online-bank page, the day's files synced, refund created through the API, settlement run
 * gathered and approved, pain.001 carrying the refund, the next statement booking it, the refund
 * `succeeded`.
 */

const CLAIMANT = '5510730339';
const PAYER = '1201603389';
const DAY = 86_400_000;
const plusDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);

let stack: TestStack;
let m: TestMerchant;
/** The last banking day a test closed: the bank closes days in order, so each test starts after it. */
let lastClosed = new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  stack = await startTestStack({ bankFiles: true });
  m = await stack.merchant('Kröfuhafi ehf.');
  const profile = await stack.api(m.testKey, '/v1/merchant', {
    method: 'PATCH',
    json: { kennitala: CLAIMANT, bank_account: '0111-26-123456' },
  });
  expect(profile.status).toBe(200);
});
afterAll(async () => {
  await stack?.stop();
});

const api = (p: string, json?: unknown) =>
  stack.api(m.testKey, p, json === undefined ? {} : { method: 'POST', json });

const runBankSync = () =>
  stack.client.workflow.execute('bankSync', {
    workflowId: `bank-sync/simulated-${randomBase62(6)}`,
    taskQueue: stack.taskQueue,
    args: [{ connection: 'simulated' }],
  });

/** The debtor account of the camt.054 notification that carried the payment of `claimId`. */
function notifiedPayerAccount(rootDir: string, claimId: string): string {
  const archive = path.join(rootDir, 'archive');
  for (const name of readdirSync(archive).filter((n) => n.startsWith('camt054_'))) {
    const xml = readFileSync(path.join(archive, name), 'utf8');
    for (const tx of xml.split('<TxDtls>').slice(1)) {
      if (!tx.includes(`<EndToEndId>${claimId}</EndToEndId>`)) continue;
      const account = /<DbtrAcct>\s*<Id>\s*<Othr>\s*<Id>(\d{12})<\/Id>/.exec(tx)?.[1];
      if (account) return account;
    }
  }
  throw new Error(`no camt.054 detail names a debtor account for ${claimId}`);
}

test('a krafa paid at the bank is refunded to the payer’s account as a credit transfer in the next payout', async () => {
  const files = stack.bankFiles!;
  const today = new Date().toISOString().slice(0, 10);
  const d1 = nextBankingDay(plusDays(today, 1));
  const d2 = nextBankingDay(plusDays(d1, 1));

  // The krafa: created through the API, issued by a claim batch, paid on the payer's bank page.
  const created = await api('/v1/claims', {
    payer_kennitala: PAYER,
    amount: 25_000,
    due_date: plusDays(today, 14),
  });
  expect(created.status).toBe(200);
  const batch = `b-${randomBase62(6)}`;
  await stack.client.workflow.execute('claimBatch', {
    workflowId: `claim-batch/test/${batch}`,
    taskQueue: stack.taskQueue,
    args: [{ livemode: false, batch, pollMs: 50 }],
  });
  const issued = (await api(`/v1/claims/${created.body.id}`)).body;
  expect(issued.status).toBe('issued');
  const bankClaimId = claimIdOf({
    claimantId: issued.claim_key.claimant_id,
    account: issued.claim_key.account,
    dueDate: issued.claim_key.due_date,
  });
  const paid = await fetch(`${stack.bank!.bank.payerUrl}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ kt: PAYER, claimId: bankClaimId, lang: 'en' }).toString(),
    redirect: 'manual',
  });
  expect(paid.status).toBe(303);
  expect(paid.headers.get('location')).toContain('paid=1');

  // The day closes; bank sync records the payment, captures the intent and stores the notification.
  await files.sim.closeDay(d1);
  await runBankSync();
  const claim = (await api(`/v1/claims/${created.body.id}`)).body;
  expect(claim.status).toBe('paid');
  const intentId = claim.payment_intent as string;
  expect((await api(`/v1/payment-intents/${intentId}`)).body).toMatchObject({
    status: 'succeeded',
    amount_received: 25_000,
  });
  const payerAccount = notifiedPayerAccount(files.sim.rootDir, bankClaimId);

  // The refund: accepted at once, pending until the money has left the collection account.
  const refund = await api('/v1/refunds', {
    payment_intent: intentId,
    amount: 5_000,
    reason: 'requested_by_customer',
  });
  expect(refund.status).toBe(200);
  expect(refund.body).toMatchObject({
    object: 'refund',
    payment_intent: intentId,
    amount: 5_000,
    status: 'pending',
    destination_details: { type: 'bank_transfer', bank_transfer: { account_last4: payerAccount.slice(-4) } },
  });
  expect((await api(`/v1/payment-intents/${intentId}`)).body).toMatchObject({ amount_refunded: 5_000 });
  const tooMuch = await api('/v1/refunds', { payment_intent: intentId, amount: 20_001 });
  expect(tooMuch.status).toBe(400);
  expect(tooMuch.body.error).toMatchObject({ code: 'amount_too_large', param: 'amount' });

  // The settlement run nets it: the payment (fee 0.8 % = 200) less the refund, and the bank's
  // 120 ISK charge for collecting the payment as a line of its own (decision 0113).
  const operator = await createOperator(stack.knex);
  const day = await stack.api(operator.token, '/v1/operator/settlement-days', {
    method: 'POST',
    json: { date: d1, livemode: false },
  });
  expect(day.status).toBe(200);
  const run = (day.body.runs as { id: string; merchant: string }[]).find((r) => r.merchant === m.id)!;
  expect((await api(`/v1/settlement-runs/${run.id}`)).body).toMatchObject({
    status: 'pending_review',
    gross: 20_000,
    fee: 320,
    net: 19_680,
    line_count: 3,
  });
  const lines = (await api(`/v1/settlement-runs/${run.id}/lines`)).body.data as {
    kind: string;
    source: string;
  }[];
  expect(lines.map((l) => l.kind).sort()).toEqual(['bank_cost', 'payment', 'refund']);
  const approved = await stack.api(operator.token, `/v1/operator/settlement-runs/${run.id}/approve`, {
    method: 'POST',
    json: {},
  });
  expect(approved.status).toBe(200);

  // The payout file pays the merchant its net and the payer the refund, each its own transfer.
  const submitted = await until(
    () => api(`/v1/settlement-runs/${run.id}`),
    (r) => r.body.status === 'submitted',
  );
  const payout = submitted.body.payout as { id: string; amount: number };
  expect(payout.amount).toBe(19_680);
  const pain = readFileSync(path.join(files.sim.rootDir, 'outbox', `pain001_${payout.id}.xml`), 'utf8');
  expect(pain).toContain('<NbOfTxs>2</NbOfTxs>');
  expect(pain).toContain('<CtrlSum>24680</CtrlSum>');
  const transfers = pain.split('<CdtTrfTxInf>').slice(1);
  expect(transfers).toHaveLength(2);
  const toPayer = transfers.find((t) => t.includes(`<EndToEndId>${refund.body.id}</EndToEndId>`))!;
  expect(toPayer).toContain('<InstdAmt Ccy="ISK">5000</InstdAmt>');
  expect(toPayer).toContain(`<Id>${payerAccount}</Id>`);
  expect(toPayer).toContain(`<Id>${PAYER}</Id>`);
  expect((await api(`/v1/refunds/${refund.body.id}`)).body.status).toBe('pending');

  // The next statement books both debits; bank sync matches them: the run is paid, the refund succeeded.
  const next = await files.sim.closeDay(d2);
  lastClosed = d2;
  expect([...next.payouts].sort()).toEqual([payout.id, refund.body.id].sort());
  await runBankSync();
  await until(
    () => api(`/v1/settlement-runs/${run.id}`),
    (r) => r.body.status === 'paid',
  );
  expect((await api(`/v1/refunds/${refund.body.id}`)).body).toMatchObject({
    status: 'succeeded',
    amount: 5_000,
  });
  expect(await stack.knex('bank_exceptions').where({ status: 'open' })).toEqual([]);
  const updated = await stack.knex('events').where({ merchant_id: m.id, type: 'refund.updated' });
  expect(updated.map((e) => [e.data.id, e.data.status])).toEqual([[refund.body.id, 'succeeded']]);

  // Running the settlement day again settles nothing twice.
  const again = await stack.api(operator.token, '/v1/operator/settlement-days', {
    method: 'POST',
    json: { date: d2, livemode: false },
  });
  expect(again.status).toBe(200);
  expect((again.body.runs as { merchant: string }[]).filter((r) => r.merchant === m.id)).toEqual([]);
});

test('a refund made before the bank names the payer’s account learns it when gathered; a full refund nets in the same run', async () => {
  const files = stack.bankFiles!;
  const today = new Date().toISOString().slice(0, 10);
  const d1 = nextBankingDay(plusDays(lastClosed, 1));
  const d2 = nextBankingDay(plusDays(d1, 1));
  const claims: { id: string; intent: string }[] = [];
  for (const amount of [8_000, 3_000]) {
    const created = await api('/v1/claims', {
      payer_kennitala: PAYER,
      amount,
      due_date: plusDays(today, 20),
    });
    expect(created.status).toBe(200);
    claims.push({ id: created.body.id, intent: '' });
  }
  const batch = `b-${randomBase62(6)}`;
  await stack.client.workflow.execute('claimBatch', {
    workflowId: `claim-batch/test/${batch}`,
    taskQueue: stack.taskQueue,
    args: [{ livemode: false, batch, pollMs: 50 }],
  });
  // The payer pays both ("Pay all"); bank sync's claim payments sync captures them before any file.
  const paid = await fetch(`${stack.bank!.bank.payerUrl}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ kt: PAYER, claimId: 'all', lang: 'en' }).toString(),
    redirect: 'manual',
  });
  expect(paid.headers.get('location')).toContain('paid=2');
  await runBankSync();
  for (const c of claims) {
    const claim = (await api(`/v1/claims/${c.id}`)).body;
    expect(claim.status).toBe('paid');
    c.intent = claim.payment_intent;
  }

  // Refunded before the notification: pending, its account not known yet.
  const early = await api('/v1/refunds', { payment_intent: claims[0]!.intent, amount: 2_000 });
  expect(early.body).toMatchObject({
    status: 'pending',
    destination_details: { type: 'bank_transfer', bank_transfer: { account_last4: null } },
  });
  // The whole of the second krafa: with the first's payment that day still nets positive.
  const full = await api(`/v1/payment-intents/${claims[1]!.intent}/refund`, {});
  expect(full.body).toMatchObject({ amount: 3_000, status: 'pending' });

  await files.sim.closeDay(d1);
  await runBankSync();
  const operator = await createOperator(stack.knex);
  const day = await stack.api(operator.token, '/v1/operator/settlement-days', {
    method: 'POST',
    json: { date: d1, livemode: false },
  });
  const run = (day.body.runs as { id: string; merchant: string }[]).find((r) => r.merchant === m.id)!;
  // 8,000 + 3,000 paid (fees 64 and 25: the claim minimum; the bank's 120 on each), 2,000 + 3,000 refunded.
  expect((await api(`/v1/settlement-runs/${run.id}`)).body).toMatchObject({
    gross: 6_000,
    fee: 329,
    net: 5_671,
    line_count: 6,
  });
  const last4 = (await api(`/v1/refunds/${early.body.id}`)).body.destination_details.bank_transfer
    .account_last4;
  expect(last4).toMatch(/^\d{4}$/);
  await stack.api(operator.token, `/v1/operator/settlement-runs/${run.id}/approve`, {
    method: 'POST',
    json: {},
  });
  const submitted = await until(
    () => api(`/v1/settlement-runs/${run.id}`),
    (r) => r.body.status === 'submitted',
  );
  const pain = readFileSync(
    path.join(files.sim.rootDir, 'outbox', `pain001_${submitted.body.payout.id}.xml`),
    'utf8',
  );
  expect(pain).toContain('<NbOfTxs>3</NbOfTxs>');
  expect(pain).toContain(`<CtrlSum>${5_671 + 2_000 + 3_000}</CtrlSum>`);
  await files.sim.closeDay(d2);
  lastClosed = d2;
  await runBankSync();
  for (const r of [early.body.id, full.body.id])
    expect((await api(`/v1/refunds/${r}`)).body.status).toBe('succeeded');
  expect(await stack.knex('bank_exceptions').where({ status: 'open' })).toEqual([]);
});

test('a refund the merchant’s balance cannot carry stays pending and on no line: no run opens for a negative net', async () => {
  const created = await api('/v1/claims', {
    payer_kennitala: PAYER,
    amount: 1_500,
    due_date: plusDays(new Date().toISOString().slice(0, 10), 30),
  });
  const batch = `b-${randomBase62(6)}`;
  await stack.client.workflow.execute('claimBatch', {
    workflowId: `claim-batch/test/${batch}`,
    taskQueue: stack.taskQueue,
    args: [{ livemode: false, batch, pollMs: 50 }],
  });
  await fetch(`${stack.bank!.bank.payerUrl}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ kt: PAYER, claimId: 'all', lang: 'en' }).toString(),
    redirect: 'manual',
  });
  const d1 = nextBankingDay(plusDays(lastClosed, 1));
  await stack.bankFiles!.sim.closeDay(d1);
  lastClosed = d1;
  await runBankSync();
  const intent = (await api(`/v1/claims/${created.body.id}`)).body.payment_intent as string;
  const refund = await api('/v1/refunds', { payment_intent: intent });
  expect(refund.body).toMatchObject({
    amount: 1_500,
    status: 'pending',
    destination_details: { bank_transfer: { account_last4: expect.stringMatching(/^\d{4}$/) } },
  });
  // 1,500 paid less its 25 fee and the bank's 120, less 1,500 refunded: negative, so no run; the
  // refund waits.
  const operator = await createOperator(stack.knex);
  const day = await stack.api(operator.token, '/v1/operator/settlement-days', {
    method: 'POST',
    json: { date: d1, livemode: false },
  });
  expect(day.status).toBe(200);
  expect((day.body.runs as { merchant: string }[]).filter((r) => r.merchant === m.id)).toEqual([]);
  expect(await stack.knex('settlement_lines').where({ source_id: refund.body.id })).toEqual([]);
  expect((await api(`/v1/refunds/${refund.body.id}`)).body.status).toBe('pending');
});

test('the ledger invariant follows krafa refunds: left pending after its payout was paid, succeeded with no run, or a pending one deleted, it breaks', async () => {
  const brokenBy = async (f: (trx: Knex.Transaction) => Promise<unknown>): Promise<string[]> =>
    (await ledgerWith(stack.knex, f)).violations;

  expect((await checkLedger(stack.knex)).violations).toEqual([]);
  const krafa = stack.knex('refunds').where({ merchant_id: m.id }).whereNull('acquirer_reference');
  const paidBack = await krafa.clone().where({ status: 'succeeded' }).first<{ id: string }>();
  const waiting = await krafa.clone().where({ status: 'pending' }).first<{ id: string }>();

  expect(
    await brokenBy((trx) => trx('refunds').where({ id: paidBack.id }).update({ status: 'pending' })),
  ).toEqual([
    expect.stringMatching(
      new RegExp(`^refund ${paidBack.id}: pending, but the payout of its run stl_\\w+ is paid$`),
    ),
  ]);
  const unsettled = await brokenBy(async (trx) => {
    await trx('settlement_lines').where({ kind: 'refund', source_id: paidBack.id }).delete();
  });
  expect(unsettled).toEqual(
    expect.arrayContaining([`refund ${paidBack.id}: succeeded, but no run settled it`]),
  );
  // A pending refund gone while its intent still counts it refunded.
  expect(await brokenBy((trx) => trx('refunds').where({ id: waiting.id }).delete())).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/amount_refunded 1500 ≠ its succeeded and pending refunds 0$/),
    ]),
  );
});
