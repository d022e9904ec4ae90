import { startTestStack, type TestStack } from '../helpers/stack';
import { createMerchantUser, createOperator, type TestUser } from '../helpers/accounts';
import { launchChromium, openPage } from '../helpers/browser';
import type { Browser, Page } from 'playwright-core';
import { until } from '../helpers/until';
import { assertLedgerInvariant, ledgerWith, type LedgerReport } from '../helpers/ledger-invariant';
import { settleDay } from '../helpers/settlement';
import { nextBankingDay } from '../../domain/banking-days';

/**
 * Issue 22, Done-means 3: a card dispute (chargeback) opened by the simulated acquirer reaches Skil
 * through the CardAcquirer's notifications, shows on the payment, is withdrawn in the next
 * settlement run as a line of its own, takes evidence through the API before its deadline (and
 * refuses it after), and, won at the acquirer, is paid back in a later run. The ledger invariant
 * (decision 0093, extended with disputes) holds after every step.
 *
 * The simulated acquirer's documented dispute cards (docs/guides/testing.md, "Test cards"): 4000000000000259 is
 * disputed as fraudulent on capture with 7 days to answer; 4000000000002685 likewise, its evidence
 * deadline already passed.
 */

jest.setTimeout(120_000);

let stack: TestStack;
let operator: { token: string };
const DAY = 86_400_000;

let browser: Browser | undefined;

beforeAll(async () => {
  stack = await startTestStack({ realBaseUrl: true });
  operator = await createOperator(stack.knex);
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const card = (number: string) => ({ number, exp_month: 12, exp_year: 2034, cvc: '123' });

/** The acquirer's own test helpers (its HTTP protocol, not Skil's API). */
async function acquirer(path: string, json?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(stack.acquirer.url + path, {
    method: json === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    ...(json !== undefined && { body: JSON.stringify(json) }),
  });
  return { status: res.status, body: await res.json() };
}

const shape = (l: Record<string, any>) => [l.kind, l.fee_kind, l.payment_intent, l.gross, l.fee, l.net];
const byShape = (a: unknown[], b: unknown[]) => JSON.stringify(a).localeCompare(JSON.stringify(b));

test('a dispute is netted in the next run, takes evidence before its deadline, and a won one is paid back', async () => {
  const m = await stack.merchant('Deilur ehf.');
  await stack
    .knex('merchants')
    .where({ id: m.id })
    .update({ kennitala: '4709063520', bank_account: '0111-26-123456' });
  const post = (path: string, json: unknown) => stack.api(m.testKey, path, { method: 'POST', json });
  const events = async (type: string) =>
    (await stack.api(m.testKey, `/v1/events?type=${type}&limit=100`)).body.data as Record<string, any>[];

  const plain = await post('/v1/payment-intents', {
    amount: 20_000,
    card: card('4242424242424242'),
    confirm: true,
  });
  expect(plain.body.status).toBe('succeeded');
  const paid = await post('/v1/payment-intents', {
    amount: 4_000,
    card: card('4000000000000259'),
    confirm: true,
  });
  expect(paid.body.status).toBe('succeeded');
  const pi = paid.body.id as string;

  // The acquirer's notification opens the dispute on the payment.
  const listed = await until(
    () => stack.api(m.testKey, `/v1/disputes?payment_intent=${pi}`),
    (r) => r.status === 200 && r.body.data.length === 1,
    20_000,
  );
  const dispute = listed.body.data[0];
  expect(dispute).toMatchObject({
    object: 'dispute',
    livemode: false,
    payment_intent: pi,
    amount: 4_000,
    currency: 'ISK',
    reason: 'fraudulent',
    status: 'needs_response',
  });
  expect(dispute.id).toMatch(/^dp_/);
  expect(dispute.evidence_details.due_by).toBeGreaterThan(Date.now() / 1000 + 6 * 86_400);
  expect(dispute.evidence_details.past_due).toBe(false);
  expect((await stack.api(m.testKey, `/v1/disputes/${dispute.id}`)).body).toEqual(dispute);
  const intent = (await stack.api(m.testKey, `/v1/payment-intents/${pi}`)).body;
  expect(intent).toMatchObject({ disputed: true, dispute: dispute.id });
  expect((await stack.api(m.testKey, `/v1/payment-intents/${plain.body.id}`)).body).toMatchObject({
    disputed: false,
    dispute: null,
  });
  const created = await events('dispute.created');
  expect(created.map((e) => e.data.id)).toEqual([dispute.id]);

  // The acquirer delivers the same notification again, several copies at once, three times over:
  // still one dispute and one event.
  const [atAcquirer] = (await acquirer('/v1/test_helpers/disputes')).body.data.filter(
    (d: any) => d.amount === 4_000,
  );
  expect(atAcquirer.status).toBe('needs_response');
  for (let i = 0; i < 3; i++) {
    const resent = await acquirer(`/v1/test_helpers/disputes/${atAcquirer.id}/notify`, { copies: 6 });
    expect(resent.status).toBe(200);
    expect(resent.body.delivered).toBe(6);
  }
  expect((await stack.api(m.testKey, `/v1/disputes?payment_intent=${pi}`)).body.data).toHaveLength(1);
  expect(await events('dispute.created')).toHaveLength(1);
  await assertLedgerInvariant(stack.knex);

  // The next settlement run withdraws the disputed amount as a line of its own; the fee on the
  // payment stays (1.5 %: 300 and 60), gross − fee = net holds.
  const day1 = nextBankingDay(new Date().toISOString().slice(0, 10));
  const first = await settleDay(stack, operator.token, m, day1);
  expect(first.lines.map(shape).sort(byShape)).toEqual(
    [
      ['payment', 'card_online', plain.body.id, 20_000, 300, 19_700],
      ['payment', 'card_online', pi, 4_000, 60, 3_940],
      ['acquirer_fee', 'card_online', plain.body.id, 0, 64, -64],
      ['acquirer_fee', 'card_online', pi, 0, 16, -16],
      ['dispute', 'card_online', pi, -4_000, 0, -4_000],
    ].sort(byShape),
  );
  expect(first.lines.find((l) => l.kind === 'dispute')!.source).toBe(dispute.id);
  expect(first.run.gross - first.run.fee).toBe(first.run.net);
  expect(first.run.net).toBe(19_700 + 3_940 - 64 - 16 - 4_000);
  await assertLedgerInvariant(stack.knex);

  // Evidence through the API before the deadline: the dispute goes under review.
  const evidence = {
    product_description: 'Ársáskrift að tímaritinu',
    customer_email_address: 'jon@example.is',
    uncategorized_text: 'The buyer signed in and read three issues after paying.',
  };
  const submitted = await post(`/v1/disputes/${dispute.id}`, { evidence });
  expect(submitted.status).toBe(200);
  expect(submitted.body).toMatchObject({ status: 'under_review', evidence });
  expect(submitted.body.evidence_details.submission_count).toBe(1);
  const updated = await events('dispute.updated');
  expect(updated.map((e) => [e.data.id, e.data.status])).toEqual([[dispute.id, 'under_review']]);
  expect((await acquirer(`/v1/disputes/${atAcquirer.id}`)).body.status).toBe('under_review');
  // Under review, the evidence is with the acquirer: a second submission is refused.
  const again = await post(`/v1/disputes/${dispute.id}`, { evidence });
  expect(again.status).toBe(400);
  expect(again.body.error.param).toBe('evidence');

  // A dispute whose evidence deadline has passed refuses evidence with a 400.
  const late = await post('/v1/payment-intents', {
    amount: 3_000,
    card: card('4000000000002685'),
    confirm: true,
  });
  expect(late.body.status).toBe('succeeded');
  const lateDispute = (
    await until(
      () => stack.api(m.testKey, `/v1/disputes?payment_intent=${late.body.id}`),
      (r) => r.status === 200 && r.body.data.length === 1,
      20_000,
    )
  ).body.data[0];
  expect(lateDispute.evidence_details.past_due).toBe(true);
  const refused = await post(`/v1/disputes/${lateDispute.id}`, { evidence });
  expect(refused.status).toBe(400);
  expect(refused.body.error).toMatchObject({ type: 'invalid_request_error', param: 'evidence' });
  expect((await stack.api(m.testKey, `/v1/disputes/${lateDispute.id}`)).body.status).toBe('needs_response');
  await assertLedgerInvariant(stack.knex);

  // The acquirer decides for the merchant: the dispute is won and closed.
  const decided = await acquirer(`/v1/test_helpers/disputes/${atAcquirer.id}/resolve`, { outcome: 'won' });
  expect(decided.status).toBe(200);
  const won = await until(
    () => stack.api(m.testKey, `/v1/disputes/${dispute.id}`),
    (r) => r.body.status === 'won',
    20_000,
  );
  expect(won.body.status).toBe('won');
  const closed = await events('dispute.closed');
  expect(closed.map((e) => [e.data.id, e.data.status])).toEqual([[dispute.id, 'won']]);
  await assertLedgerInvariant(stack.knex);

  // A later run pays the won amount back, once; the late dispute is withdrawn in it.
  const day2 = nextBankingDay(new Date(Date.parse(`${day1}T00:00:00Z`) + DAY).toISOString().slice(0, 10));
  const second = await settleDay(stack, operator.token, m, day2);
  expect(second.lines.map(shape).sort(byShape)).toEqual(
    [
      ['payment', 'card_online', late.body.id, 3_000, 45, 2_955],
      ['acquirer_fee', 'card_online', late.body.id, 0, 13, -13],
      ['dispute', 'card_online', late.body.id, -3_000, 0, -3_000],
      ['dispute_reversal', 'card_online', pi, 4_000, 0, 4_000],
    ].sort(byShape),
  );
  expect(second.run.gross - second.run.fee).toBe(second.run.net);
  expect(second.run.net).toBe(2_955 - 13 - 3_000 + 4_000);
  await assertLedgerInvariant(stack.knex);

  // Accepting the late dispute closes it as lost; the money stays withdrawn.
  const accepted = await post(`/v1/disputes/${lateDispute.id}/close`, {});
  expect(accepted.status).toBe(200);
  expect(accepted.body.status).toBe('lost');
  expect((await events('dispute.closed')).map((e) => e.data.status).sort()).toEqual(['lost', 'won']);
  await assertLedgerInvariant(stack.knex);

  // The invariant sees disputes from the disputes table and the runs: a deleted dispute line makes
  // the dispute look unsettled while its run still withdrew it; a won dispute turned lost after
  // its reversal settled, or a disputed amount changed after settling, moves only the left side.
  const ledger = (r: LedgerReport) => r.violations.filter((v) => v.startsWith(`ledger ${m.id}/test`));
  const deletedLine = await ledgerWith(stack.knex, (trx) =>
    trx('settlement_lines').where({ kind: 'dispute', source_id: dispute.id }).delete(),
  );
  expect(ledger(deletedLine)).toHaveLength(1);
  expect(deletedLine.violations).toEqual(
    expect.arrayContaining([expect.stringMatching(/^settlement run stl_\w+: gross\/fee\/net\/lines/)]),
  );
  const turnedLost = await ledgerWith(stack.knex, (trx) =>
    trx('disputes').where({ id: dispute.id }).update({ status: 'lost' }),
  );
  expect(ledger(turnedLost)).toHaveLength(1);
  expect(turnedLost.violations).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/^settlement line \d+ \(dispute_reversal dp_\w+\) matches no movement/),
    ]),
  );
  const changed = await ledgerWith(stack.knex, (trx) =>
    trx('disputes').where({ id: lateDispute.id }).increment('amount', 1),
  );
  expect(ledger(changed)).toHaveLength(1);
});

test('a dispute of another merchant or the other mode is not found', async () => {
  const a = await stack.merchant('A');
  const b = await stack.merchant('B');
  const paid = await stack.api(a.testKey, '/v1/payment-intents', {
    method: 'POST',
    json: { amount: 1_500, card: card('4000000000000259'), confirm: true },
  });
  const got = await until(
    () => stack.api(a.testKey, `/v1/disputes?payment_intent=${paid.body.id}`),
    (r) => r.status === 200 && r.body.data.length === 1,
    20_000,
  );
  const id = got.body.data[0].id as string;
  expect((await stack.api(b.testKey, `/v1/disputes/${id}`)).status).toBe(404);
  expect((await stack.api(b.testKey, '/v1/disputes')).body.data).toEqual([]);
  const live = await stack.api(a.liveKey, `/v1/disputes/${id}`);
  expect(live.status).toBe(404);
  expect(live.body.error.message).toMatch(/test mode/);
  expect((await stack.api(b.testKey, `/v1/disputes/${id}/close`, { method: 'POST', json: {} })).status).toBe(
    404,
  );
});

test('evidence sent five times at once is submitted once; the others are refused', async () => {
  const m = await stack.merchant('Samtímis ehf.');
  const paid = await stack.api(m.testKey, '/v1/payment-intents', {
    method: 'POST',
    json: { amount: 1_800, card: card('4000000000000259'), confirm: true },
  });
  const id = (
    await until(
      () => stack.api(m.testKey, `/v1/disputes?payment_intent=${paid.body.id}`),
      (r) => r.status === 200 && r.body.data.length === 1,
      20_000,
    )
  ).body.data[0].id as string;
  const answers = await Promise.all(
    Array.from({ length: 5 }, (_, i) =>
      stack.api(m.testKey, `/v1/disputes/${id}`, {
        method: 'POST',
        json: { evidence: { uncategorized_text: `Submission ${i}` } },
      }),
    ),
  );
  expect(answers.map((a) => a.status).sort()).toEqual([200, 400, 400, 400, 400]);
  const after = (await stack.api(m.testKey, `/v1/disputes/${id}`)).body;
  expect(after.evidence_details.submission_count).toBe(1);
  const updated = (await stack.api(m.testKey, '/v1/events?type=dispute.updated&limit=100')).body.data;
  expect(updated).toHaveLength(1);
});

async function signIn(page: Page, u: TestUser): Promise<void> {
  await page.goto(`${stack.url}/dashboard/sign-in`);
  await page.getByLabel('Email').fill(u.email);
  await page.getByLabel('Password').fill(u.password);
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign in' }).click()]);
}

test('dashboard: the payment page shows its dispute, and a finance member submits evidence there', async () => {
  const m = await stack.merchant('Síðudeila ehf.');
  const paid = await stack.api(m.testKey, '/v1/payment-intents', {
    method: 'POST',
    json: { amount: 2_500, card: card('4000000000000259'), confirm: true },
  });
  const dispute = (
    await until(
      () => stack.api(m.testKey, `/v1/disputes?payment_intent=${paid.body.id}`),
      (r) => r.status === 200 && r.body.data.length === 1,
      20_000,
    )
  ).body.data[0];
  browser = await launchChromium();

  // A read-only member sees the dispute but no form.
  const reader = await openPage(browser, stack.url);
  await signIn(reader.page, await createMerchantUser(stack.knex, m.id, 'read_only'));
  await reader.page.goto(`${stack.url}/dashboard/payments/${paid.body.id}`);
  await expect(reader.page.getByTestId('dispute-status').getAttribute('data-status')).resolves.toBe(
    'needs_response',
  );
  expect(await reader.page.getByRole('button', { name: 'Submit evidence' }).count()).toBe(0);
  await reader.context.close();

  const finance = await openPage(browser, stack.url);
  await signIn(finance.page, await createMerchantUser(stack.knex, m.id, 'finance'));
  await finance.page.goto(`${stack.url}/dashboard/payments/${paid.body.id}`);
  await finance.page
    .getByLabel('Other evidence (what happened, why the payment stands)')
    .fill('The buyer collected the order in person and signed for it.');
  await Promise.all([
    finance.page.waitForNavigation(),
    finance.page.getByRole('button', { name: 'Submit evidence' }).click(),
  ]);
  await expect(finance.page.getByTestId('dispute-status').getAttribute('data-status')).resolves.toBe(
    'under_review',
  );
  await expect(finance.page.locator('.notice.ok').textContent()).resolves.toMatch(/under review/);
  expect(await finance.page.getByRole('button', { name: 'Submit evidence' }).count()).toBe(0);
  expect(finance.errors).toEqual([]);
  await finance.context.close();

  // The API tells the same.
  const after = (await stack.api(m.testKey, `/v1/disputes/${dispute.id}`)).body;
  expect(after.status).toBe('under_review');
  expect(after.evidence.uncategorized_text).toBe(
    'The buyer collected the order in person and signed for it.',
  );
});
