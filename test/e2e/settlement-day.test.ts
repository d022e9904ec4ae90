import { readdirSync, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { claimIdOf } from '../../adapters/banks/claims-api';
import { nextBankingDay } from '../../domain/banking-days';
import { randomBase62 } from '../../domain/ids';
import { launchChromium, openPage, signInWithKeyboard } from '../helpers/browser';
import { createOperator } from '../helpers/accounts';
import { startTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { until } from '../helpers/until';

/**
 * Issue 8, done-means 1 and 2: a whole day of money, end to end. Card payments (and a refund) go
 * through the simulated acquirer, which deposits them at the simulated bank; kröfur are issued,
 * paid at the bank and synced. The bank closes the day and publishes camt.054 and camt.053 over
 * SFTP; bank sync stores, parses and matches them; the settlement day opens the merchant's run; an
 * operator approves it in headless Chromium; the pain.001 lands in the bank's outbox; the bank
 * books it in the next statement; bank sync matches the debit and the run is `paid`. Then the
 * ledger invariant, and feeding every file again changes nothing.
 */

const CLAIMANT = '5510730339';
const PAYER = '1201603389';
const DAY = 86_400_000;
const plusDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);

let stack: TestStack;
let browser: Browser;
let m: TestMerchant;

beforeAll(async () => {
  [stack, browser] = await Promise.all([
    startTestStack({ realBaseUrl: true, bankFiles: true }),
    launchChromium(),
  ]);
  m = await stack.merchant('Dagsuppgjör ehf.');
  await stack
    .knex('merchants')
    .where({ id: m.id })
    .update({ kennitala: CLAIMANT, bank_account: '0111-26-123456' });
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const api = (p: string, json?: unknown) =>
  stack.api(m.testKey, p, json === undefined ? {} : { method: 'POST', json });
const card = { number: '4242424242424242', exp_month: 12, exp_year: 2034, cvc: '123' };

const runBankSync = () =>
  stack.client.workflow.execute('bankSync', {
    workflowId: `bank-sync/simulated-${randomBase62(6)}`,
    taskQueue: stack.taskQueue,
    args: [{ connection: 'simulated' }],
  });

const sum = async (sql: string, bindings: string[]) =>
  Number((await stack.knex.raw<{ rows: { n: string | null }[] }>(sql, bindings)).rows[0]!.n ?? 0);

async function counts() {
  const tables = ['bank_files', 'bank_statements', 'bank_entries', 'bank_matches', 'bank_exceptions'];
  const out: Record<string, number> = {};
  for (const t of [...tables, 'settlement_lines', 'payouts'])
    out[t] = await sum(`select count(*) as n from ${t}`, []);
  out.lines_gross = await sum('select sum(gross) as n from settlement_lines', []);
  return out;
}

test('a day: card payments and paid claims → bank files → bank sync → settlement run approved in Chromium → pain.001 → next statement → paid', async () => {
  const files = stack.bankFiles!;
  const today = new Date().toISOString().slice(0, 10);
  // Claim payments are booked on the next banking day after payment (decision 0091); close that
  // day, and settle it, then the payout is booked in the statement of the banking day after.
  const d1 = nextBankingDay(plusDays(today, 1));
  const d2 = nextBankingDay(plusDays(d1, 1));

  // Card payments through the simulated acquirer (over HTTP), one partly refunded.
  const cardAmounts = [12_900, 4_990];
  const intents: string[] = [];
  for (const amount of cardAmounts) {
    const r = await api('/v1/payment-intents', { amount, card, confirm: true });
    expect(r.body).toMatchObject({ status: 'succeeded', amount_received: amount });
    intents.push(r.body.id);
  }
  const refund = await api('/v1/refunds', { payment_intent: intents[0], amount: 2_900 });
  expect(refund.status).toBe(200);

  // Two kröfur, issued by a claim batch and paid at the bank.
  const claims: string[] = [];
  for (const amount of [25_000, 1_500]) {
    const r = await api('/v1/claims', { payer_kennitala: PAYER, amount, due_date: plusDays(today, 14) });
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
    const c = (await api(`/v1/claims/${id}`)).body;
    expect(c.status).toBe('issued');
    stack.bank!.bank.ledger.pay(
      claimIdOf({
        claimantId: c.claim_key.claimant_id,
        account: c.claim_key.account,
        dueDate: c.claim_key.due_date,
      }),
    );
  }

  // The acquirer's reports reach the bank asynchronously; the bank has all three before it closes.
  await until(
    () => Promise.resolve(stack.bank!.bank.account.unsettledAcquirerItems(d1).length),
    (n) => n === 3,
  );
  const closed = await files.sim.closeDay(d1);
  expect(closed.files).toHaveLength(2);
  expect(closed).toMatchObject({ claimTransactions: 2, acquirerItems: 3 });

  // Bank sync: the claim payments sync first, then both files stored, parsed and matched.
  const first = await runBankSync();
  expect(first.files).toHaveLength(2);
  for (const id of claims) expect((await api(`/v1/claims/${id}`)).body.status).toBe('paid');
  const bankFiles = await stack.knex('bank_files').orderBy('name');
  expect(bankFiles.map((f) => f.status)).toEqual(['processed', 'processed']);
  const kinds = await stack
    .knex('bank_matches')
    .select('kind')
    .count<{ kind: string; count: string }[]>('* as count')
    .groupBy('kind')
    .orderBy('kind');
  expect(kinds.map((k) => [k.kind, Number(k.count)])).toEqual([
    ['acquirer_deposit', 1],
    ['claim_lump_sum', 1],
    ['claim_payment', 2],
  ]);
  expect(await stack.knex('bank_exceptions').where({ status: 'open' })).toEqual([]);

  // The settlement day opens the merchant's run: 2 card payments, a refund and 2 claim payments.
  const operator = await createOperator(stack.knex);
  const day = await stack.api(operator.token, '/v1/operator/settlement-days', {
    method: 'POST',
    json: { date: d1, livemode: false },
  });
  expect(day.status).toBe(200);
  const run = (day.body.runs as { id: string; merchant: string }[]).find((r) => r.merchant === m.id)!;
  // Fees: 12,900 × 1.5 % = 193.5 → 194; 4,990 × 1.5 % = 74.85 → 75; the refund keeps its fee;
  // claims 25,000 × 0.8 % = 200; 1,500 × 0.8 % = 12 → the minimum 25. On top (decision 0113), each
  // capture's acquirer fee (0.3 % + 4 ISK): 38.7 → 39 + 4 = 43; 14.97 → 15 + 4 = 19; and the bank's
  // charge of 120 ISK per claim payment.
  const gross = 12_900 + 4_990 - 2_900 + 25_000 + 1_500;
  const fee = 194 + 75 + 200 + 25 + 43 + 19 + 120 + 120;
  const pending = (await api(`/v1/settlement-runs/${run.id}`)).body;
  expect(pending).toMatchObject({ status: 'pending_review', gross, fee, net: gross - fee, line_count: 9 });

  // An operator approves it in the finance dashboard.
  const { context, page } = await openPage(browser, stack.url);
  try {
    await page.goto(`${stack.url}/dashboard/finance/runs/${run.id}?env=test&lang=en`);
    await signInWithKeyboard(page, operator.email, operator.password);
    await page.goto(`${stack.url}/dashboard/finance/runs/${run.id}?env=test&lang=en`);
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Approve run' }).click()]);
    await expect(page.getByTestId('run-status').innerText()).resolves.toBe('approved');
  } finally {
    await context.close();
  }

  // The payout goes to the bank's outbox as a pain.001 credit transfer.
  const submitted = await until(
    () => api(`/v1/settlement-runs/${run.id}`),
    (r) => r.body.status === 'submitted',
  );
  const payout = submitted.body.payout as { id: string; amount: number; status: string };
  expect(payout).toMatchObject({ amount: gross - fee, status: 'submitted' });
  const outbox = path.join(files.sim.rootDir, 'outbox');
  expect(readdirSync(outbox)).toContain(`pain001_${payout.id}.xml`);
  const pain = readFileSync(path.join(outbox, `pain001_${payout.id}.xml`), 'utf8');
  expect(pain).toContain(`<EndToEndId>${payout.id}</EndToEndId>`);
  expect(pain).toContain(`<InstdAmt Ccy="ISK">${gross - fee}</InstdAmt>`);
  expect(pain).toContain('<Id>011126123456</Id>');

  // The next statement books the debit; bank sync matches it and the run is paid.
  const next = await files.sim.closeDay(d2);
  expect(next.payouts).toEqual([payout.id]);
  // The camt.053 line as the bank wrote it, read from the file itself (not from Skil's parsing):
  // the entry whose transaction's EndToEndId is the payout.
  const camt053 = next.files.find((f) => /053/.test(f))!;
  const statement = readFileSync(path.join(files.sim.rootDir, 'inbox', camt053), 'utf8');
  const ntry = statement.split('<Ntry>').find((n) => n.includes(`<EndToEndId>${payout.id}</EndToEndId>`))!;
  const statementLine = {
    amount: Number(/<Amt Ccy="ISK">(\d+)<\/Amt>/.exec(ntry)![1]),
    debit: /<CdtDbtInd>DBIT<\/CdtDbtInd>/.test(ntry),
  };
  await runBankSync();
  const paid = await until(
    () => api(`/v1/settlement-runs/${run.id}`),
    (r) => r.body.status === 'paid',
  );
  expect(paid.body.payout).toMatchObject({ id: payout.id, status: 'paid' });
  expect(await stack.knex('bank_exceptions').where({ status: 'open' })).toEqual([]);

  // Payout reconciliation (decision 0241): the payout carries the camt.053 entry that booked it; its lines add up to both, each
  // linked to what it settles; the period's download says the same; the journal books the payout.
  const entry = paid.body.payout.bank_entry as { amount: number; acct_svcr_ref: string; file: string };
  expect(entry).toMatchObject({ amount: payout.amount, end_to_end_id: payout.id });
  expect(entry.acct_svcr_ref).toBeTruthy();
  expect(entry.file).toMatch(/053/);
  const runLines = (await api(`/v1/settlement-runs/${run.id}/lines?limit=100`)).body.data as {
    kind: string;
    net: number;
    refund: string | null;
    dispute: string | null;
    cost: { type: string; source: string } | null;
  }[];
  expect(runLines.reduce((s, l) => s + l.net, 0)).toBe(payout.amount);
  expect(statementLine).toEqual({ amount: payout.amount, debit: true });
  expect(runLines.filter((l) => l.kind === 'refund').map((l) => l.refund)).toEqual([refund.body.id]);
  expect(
    runLines
      .filter((l) => l.cost)
      .map((l) => l.cost!.type)
      .sort(),
  ).toEqual(['acquirer_fee', 'acquirer_fee', 'bank_cost', 'bank_cost']);
  const firstMonth = Number(d1.slice(5, 7)) - ((Number(d1.slice(5, 7)) + 1) % 2);
  const period = `${d1.slice(0, 4)}-${String(firstMonth).padStart(2, '0')}`;
  const download = await fetch(`${stack.url}/v1/reports/settlement.csv?period=${period}`, {
    headers: { authorization: `Bearer ${m.testKey}` },
  });
  expect(download.status).toBe(200);
  const [head, ...csvRows] = (await download.text())
    .trim()
    .split('\r\n')
    .map((r) => r.split(','));
  const col = (name: string) => head!.indexOf(name);
  const ofRun = csvRows.filter((r) => r[col('settlement_run')] === run.id);
  expect(ofRun).toHaveLength(9);
  expect(ofRun.reduce((s, r) => s + Number(r[col('net')]), 0)).toBe(payout.amount);
  for (const r of ofRun) {
    expect(Number(r[col('payout_amount')])).toBe(payout.amount);
    expect(Number(r[col('statement_amount')])).toBe(payout.amount);
    expect(r[col('statement_ref')]).toBe(entry.acct_svcr_ref);
  }
  const paidDay = new Date(paid.body.payout.paid_at * 1000).toISOString().slice(0, 7);
  const paidPeriod = `${paidDay.slice(0, 4)}-${String(Number(paidDay.slice(5)) - ((Number(paidDay.slice(5)) + 1) % 2)).padStart(2, '0')}`;
  const journal = await api(`/v1/reports/journal?period=${paidPeriod}&limit=100`);
  const payoutEntry = (
    journal.body.data as {
      source: { type: string; id: string };
      lines: { account: string; debit: number }[];
    }[]
  ).find((e) => e.source.type === 'payout');
  expect(payoutEntry).toMatchObject({ source: { id: payout.id } });
  expect(payoutEntry!.lines.find((l) => l.account === 'bank')!.debit).toBe(payout.amount);

  // Ledger invariant: captured = settled gross + unsettled; gross − fees = net = paid out.
  const captured =
    (await sum('select sum(amount_captured) as n from payment_intents where merchant_id = ?', [m.id])) -
    (await sum('select sum(amount) as n from refunds where merchant_id = ? and status = ?', [
      m.id,
      'succeeded',
    ]));
  const settled = await sum('select sum(gross) as n from settlement_lines where merchant_id = ?', [m.id]);
  expect(captured).toBe(gross);
  expect(settled).toBe(gross);
  const lines = await stack.knex('settlement_lines').where({ settlement_run_id: run.id });
  for (const l of lines) expect(Number(l.gross) - Number(l.fee)).toBe(Number(l.net));
  const paidOut = await sum('select sum(amount) as n from payouts where merchant_id = ? and status = ?', [
    m.id,
    'paid',
  ]);
  expect(paidOut).toBe(gross - fee);

  // Feeding the same files again (moved back into the inbox) changes nothing.
  const before = await counts();
  const archive = path.join(files.sim.rootDir, 'archive');
  for (const name of readdirSync(archive))
    renameSync(path.join(archive, name), path.join(files.sim.rootDir, 'inbox', name));
  await runBankSync();
  expect(await counts()).toEqual(before);
  const again = await stack.api(operator.token, '/v1/operator/settlement-days', {
    method: 'POST',
    json: { date: d1, livemode: false },
  });
  expect(again.status).toBe(200);
  expect(await counts()).toEqual(before);
});
