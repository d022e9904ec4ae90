import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { WebClient, createOperator } from '../helpers/accounts';
import { until } from '../helpers/until';
import { settleDay } from '../helpers/settlement';
import { nextBankingDay } from '../../domain/banking-days';
import { claimIdOf } from '../../adapters/banks/claims-api';
import { randomBase62 } from '../../domain/ids';
import { recordBankCostsOfFile } from '../../db/payment-costs';

/**
 * Spec §1: "acquirer fees and bank costs for claims are added on top" (decision 0113). Each is
 * recorded once, when the acquirer or the bank reports it, and settles as a line of its own in the
 * run that settles its payment, so the merchant's net is exact. Driven through the real paths: the
 * API and its simulated acquirer over HTTP, checkout, a renewal charged by the worker's acquirer on
 * a test clock, and the settlement day run by an operator.
 *
 * The simulated acquirer's documented test fee: 0.3 % of the captured amount, rounded half up, plus
 * 4 ISK per capture (docs/guides/testing.md, "The simulated card acquirer"). The simulated bank's documented charge: 120 ISK per
 * claim payment it collects, reported in the camt.054 detail's `Chrgs` (docs/guides/testing.md, "The simulated bank").
 */

jest.setTimeout(120_000);

let stack: TestStack;
let operator: { token: string; email: string; password: string };
const DAY = 86_400_000;
const plusDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);

beforeAll(async () => {
  stack = await startTestStack({ realBaseUrl: true, bankFiles: true });
  operator = await createOperator(stack.knex);
});
afterAll(async () => {
  await stack?.stop();
});

async function merchant(name: string, kennitala: string): Promise<TestMerchant> {
  const m = await stack.merchant(name);
  await stack.knex('merchants').where({ id: m.id }).update({ kennitala, bank_account: '0111-26-123456' });
  return m;
}

const card = { number: '4242424242424242', exp_month: 12, exp_year: 2034, cvc: '123' };
const form = { card_number: '4242424242424242', card_exp: '12/34', card_cvc: '123' };

async function submit(url: string, fields: Record<string, string>): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
  return res.status;
}

const shape = (l: Record<string, any>) => [l.kind, l.fee_kind, l.payment_intent, l.gross, l.fee, l.net];
const byShape = (a: unknown[], b: unknown[]) => JSON.stringify(a).localeCompare(JSON.stringify(b));

test('card payments: the acquirer fee of each capture is recorded once and settles as a line of its own', async () => {
  const m = await merchant('Kortagjöld ehf.', '4709063520');
  const post = (path: string, json: unknown) => stack.api(m.testKey, path, { method: 'POST', json });

  // A payment through the API, partly refunded.
  const pi1 = await post('/v1/payment-intents', { amount: 12_900, card, confirm: true });
  expect(pi1.body.status).toBe('succeeded');
  expect((await post('/v1/refunds', { payment_intent: pi1.body.id, amount: 2_900 })).status).toBe(200);

  // A manual capture asked for ten times at once: captured once, its fee recorded once.
  const pi2 = await post('/v1/payment-intents', {
    amount: 4_990,
    card,
    confirm: true,
    capture_method: 'manual',
  });
  expect(pi2.body.status).toBe('requires_capture');
  const captures = await Promise.all(
    Array.from({ length: 10 }, () => post(`/v1/payment-intents/${pi2.body.id}/capture`, {})),
  );
  expect(captures.filter((r) => r.status === 200)).toHaveLength(1);

  // A subscription bought at checkout on a test clock, and its renewal a month on, charged by the
  // worker's acquirer.
  const product = await post('/v1/products', {
    name: 'Áskrift',
    vat_rate: 24,
    default_price_data: { unit_amount: 2_990, recurring: { interval: 'month' } },
  });
  const t0 = Date.now() - 40 * DAY;
  const clock = await post('/v1/test_helpers/test_clocks', { frozen_time: Math.floor(t0 / 1000) });
  const customer = await post('/v1/customers', { name: 'Jón', test_clock: clock.body.id });
  const session = await post('/v1/checkout/sessions', {
    mode: 'subscription',
    items: [{ price: product.body.default_price }],
    customer: customer.body.id,
    form_fields: [],
  });
  expect(await submit(session.body.url, { action: 'pay', ...form })).toBeLessThan(400);
  const done = (await stack.api(m.testKey, `/v1/checkout/sessions/${session.body.id}`)).body;
  expect(done.payment_intent).toMatch(/^pi_/);
  await post(`/v1/test_helpers/test_clocks/${clock.body.id}/advance`, {
    frozen_time: Math.floor((t0 + 35 * DAY) / 1000),
  });
  await until(
    () => stack.api(m.testKey, `/v1/test_helpers/test_clocks/${clock.body.id}`),
    (r) => r.body.status === 'ready',
    55_000,
  );
  const [renewal] = await stack
    .knex('renewals')
    .where({ subscription_id: done.subscription, period_index: 1, status: 'paid' });
  expect(renewal).toBeDefined();
  const pi3 = done.payment_intent as string;
  const pi4 = renewal.payment_intent_id as string;

  const { run, lines } = await settleDay(
    stack,
    operator.token,
    m,
    nextBankingDay(new Date().toISOString().slice(0, 10)),
  );
  // Service fees (1.5 %): 193.5 → 194, 74.85 → 75, 44.85 → 45 twice. Acquirer fees (0.3 % + 4):
  // 38.7 → 39 + 4 = 43, 14.97 → 15 + 4 = 19, 8.97 → 9 + 4 = 13 twice. The refund keeps both.
  expect(lines.map(shape).sort(byShape)).toEqual(
    [
      ['payment', 'card_online', pi1.body.id, 12_900, 194, 12_706],
      ['refund', 'card_online', pi1.body.id, -2_900, 0, -2_900],
      ['acquirer_fee', 'card_online', pi1.body.id, 0, 43, -43],
      ['payment', 'card_online', pi2.body.id, 4_990, 75, 4_915],
      ['acquirer_fee', 'card_online', pi2.body.id, 0, 19, -19],
      ['payment', 'card_online', pi3, 2_990, 45, 2_945],
      ['acquirer_fee', 'card_online', pi3, 0, 13, -13],
      ['payment', 'card_online', pi4, 2_990, 45, 2_945],
      ['acquirer_fee', 'card_online', pi4, 0, 13, -13],
    ].sort(byShape),
  );
  const gross = 12_900 - 2_900 + 4_990 + 2_990 + 2_990;
  const serviceFees = 194 + 75 + 45 + 45;
  const acquirerFees = 43 + 19 + 13 + 13;
  expect(run).toMatchObject({
    gross,
    fee: serviceFees + acquirerFees,
    net: gross - serviceFees - acquirerFees,
    line_count: 9,
    fee_details: [
      { type: 'service_fee', amount: serviceFees },
      { type: 'acquirer_fee', amount: acquirerFees },
      { type: 'bank_cost', amount: 0 },
    ],
  });

  // Recorded once each, whatever was retried; a second settlement day adds nothing.
  const recorded = await stack.knex('payment_costs').where({ merchant_id: m.id }).orderBy('id');
  expect(recorded.map((c) => [c.kind, c.payment_intent_id, Number(c.amount)]).sort(byShape)).toEqual(
    [
      ['acquirer_fee', pi1.body.id, 43],
      ['acquirer_fee', pi2.body.id, 19],
      ['acquirer_fee', pi3, 13],
      ['acquirer_fee', pi4, 13],
    ].sort(byShape),
  );
  const later = await stack.api(operator.token, '/v1/operator/settlement-days', {
    method: 'POST',
    json: { date: nextBankingDay(plusDays(run.settlement_date, 1)), livemode: false },
  });
  expect(later.status).toBe(200);
  expect((later.body.runs as { merchant: string }[]).filter((r) => r.merchant === m.id)).toEqual([]);
});

test('kröfur: the bank charge of each claim payment is recorded once from the camt.054, even fed twice, and settles as a line of its own', async () => {
  const claimant = '5510730339';
  const m = await merchant('Kröfukostnaður ehf.', claimant);
  const post = (p: string, json: unknown) => stack.api(m.testKey, p, { method: 'POST', json });
  const files = stack.bankFiles!;
  const today = new Date().toISOString().slice(0, 10);
  // Claim payments are booked on the next banking day after payment (decision 0091); a day after
  // the first test's settlement day.
  const d1 = nextBankingDay(plusDays(nextBankingDay(today), 1));

  const claims: string[] = [];
  for (const amount of [25_000, 1_500]) {
    const r = await post('/v1/claims', {
      payer_kennitala: '1201603389',
      amount,
      due_date: plusDays(today, 14),
    });
    expect(r.status).toBe(200);
    claims.push(r.body.id);
  }
  const batch = `b-${randomBase62(6)}`;
  await stack.client.workflow.execute('claimBatch', {
    workflowId: `claim-batch/test/${batch}`,
    taskQueue: stack.taskQueue,
    args: [{ livemode: false, batch, pollMs: 50 }],
  });
  for (const id of claims) {
    const c = (await stack.api(m.testKey, `/v1/claims/${id}`)).body;
    expect(c.status).toBe('issued');
    stack.bank!.bank.ledger.pay(
      claimIdOf({
        claimantId: c.claim_key.claimant_id,
        account: c.claim_key.account,
        dueDate: c.claim_key.due_date,
      }),
    );
  }
  const closed = await files.sim.closeDay(d1);
  expect(closed.claimTransactions).toBe(2);

  const runBankSync = () =>
    stack.client.workflow.execute('bankSync', {
      workflowId: `bank-sync/simulated-${randomBase62(6)}`,
      taskQueue: stack.taskQueue,
      args: [{ connection: 'simulated' }],
    });
  await runBankSync();
  for (const id of claims) expect((await stack.api(m.testKey, `/v1/claims/${id}`)).body.status).toBe('paid');

  // The same notification again: its bytes under another name, and the same statement in a file
  // of other bytes (another message id). Nothing is recorded twice.
  const archive = path.join(files.sim.rootDir, 'archive');
  const notification = readdirSync(archive).find((n) => n.startsWith(`camt054_${d1.replaceAll('-', '')}`))!;
  expect(notification).toBeDefined();
  const inbox = path.join(files.sim.rootDir, 'inbox');
  copyFileSync(path.join(archive, notification), path.join(inbox, `again-${notification}`));
  const xml = readFileSync(path.join(archive, notification), 'utf8');
  writeFileSync(
    path.join(inbox, `other-${notification}`),
    xml.replace(/<MsgId>([^<]+)<\/MsgId>/, '<MsgId>$1-B</MsgId>'),
  );
  await runBankSync();

  const costs = await stack.knex('payment_costs').where({ merchant_id: m.id, kind: 'bank_cost' });
  expect(costs.map((c) => Number(c.amount)).sort()).toEqual([120, 120]);
  // Recording the processed file's costs again (a retried activity) adds nothing either.
  for (const f of await stack.knex('bank_files').where({ livemode: false, status: 'processed' }))
    expect(await recordBankCostsOfFile(stack.knex, { fileId: f.id, livemode: false })).toBe(0);
  expect(await stack.knex('payment_costs').where({ merchant_id: m.id, kind: 'bank_cost' })).toHaveLength(2);

  const { run, lines } = await settleDay(stack, operator.token, m, d1);
  const [big, small] = await Promise.all(
    claims.map(async (id) => (await stack.api(m.testKey, `/v1/claims/${id}`)).body.payment_intent as string),
  );
  // Service fees: 25,000 × 0.8 % = 200; 1,500 × 0.8 % = 12 → the minimum 25. The bank: 120 each.
  expect(lines.map(shape).sort(byShape)).toEqual(
    [
      ['payment', 'claim', big, 25_000, 200, 24_800],
      ['bank_cost', 'claim', big, 0, 120, -120],
      ['payment', 'claim', small, 1_500, 25, 1_475],
      ['bank_cost', 'claim', small, 0, 120, -120],
    ].sort(byShape),
  );
  const gross = 25_000 + 1_500;
  const fee = 200 + 25 + 120 + 120;
  expect(run).toMatchObject({
    gross,
    fee,
    net: gross - fee,
    line_count: 4,
    fee_details: [
      { type: 'service_fee', amount: 225 },
      { type: 'acquirer_fee', amount: 0 },
      { type: 'bank_cost', amount: 240 },
    ],
  });

  // The finance dashboard shows the parts of the fee.
  const web = new WebClient(stack.url);
  expect((await web.signIn(operator.email, operator.password)).status).toBe(303);
  const page = await web.get(`/dashboard/finance/runs/${run.id}?env=test&lang=en`);
  expect(page.status).toBe(200);
  expect(page.text).toMatch(/data-testid="run-bank_cost">\s*ISK 240\s*</);
  expect(page.text).toMatch(/data-testid="run-service_fee">\s*ISK 225\s*</);

  // Approved, the payout is exactly the net.
  const approved = await stack.api(operator.token, `/v1/operator/settlement-runs/${run.id}/approve`, {
    method: 'POST',
    json: {},
  });
  expect(approved.status).toBe(200);
  const submitted = await until(
    () => stack.api(m.testKey, `/v1/settlement-runs/${run.id}`),
    (r) => r.body.status === 'submitted',
  );
  expect(submitted.body.payout.amount).toBe(gross - fee);

  // Every cost recorded is on a line or still waiting: here all are settled.
  const settledCosts = await stack
    .knex('settlement_lines')
    .where({ merchant_id: m.id })
    .whereIn('kind', ['acquirer_fee', 'bank_cost'])
    .sum({ n: 'fee' });
  expect(Number(settledCosts[0]!.n)).toBe(240);
});
