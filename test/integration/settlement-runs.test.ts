/**
 * Settlement runs end to end on the real parts: PostgreSQL, the Temporal dev server with this
 * file's worker, the operator and merchant APIs, the payout file uploaded over real SFTP to the
 * simulated bank, whose day close books it in a camt.053 that bank sync reads back and matches.
 * Payments, refunds and claim reversals are written as the checkout and claims parts write them
 * (captured intents with the fee stored at capture).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { createOperator } from '../helpers/accounts';
import { until } from '../helpers/until';
import { newId, randomBase62 } from '../../domain/ids';
import { cardFee, claimFee } from '../../domain/fees';
import { ledgerDifference } from '../../domain/settlement-lines';
import { checkLedger } from '../helpers/ledger-invariant';
import { settlementRunWorkflowId } from '../../workflows/contract';
import { nextBankingDay } from '../../domain/banking-days';
import { LINES_CSV_HEADER } from '../../services/settlement/settlement-line-object';
import { AUTO_APPROVER, createSettlementRunRepository } from '../../db/settlement-runs';

let stack: TestStack;
/** The simulated bank's SFTP root: `outbox/` holds Skil's payment files, `inbox/` its statements. */
let root: string;
let operator: { token: string; id: string };
let a: TestMerchant;
let b: TestMerchant;
let c: TestMerchant;

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);
let claimNumber = 1;

async function payment(
  m: TestMerchant,
  opts: { amount: number; channel?: 'online' | 'pos'; fee?: number; at: Date; livemode?: boolean },
): Promise<string> {
  const id = newId('pi');
  const channel = opts.channel ?? 'online';
  await stack.knex('payment_intents').insert({
    id,
    merchant_id: m.id,
    livemode: opts.livemode ?? false,
    amount: opts.amount,
    status: 'succeeded',
    channel,
    amount_captured: opts.amount,
    fee_amount: opts.fee ?? cardFee(opts.amount, channel),
    captured_at: opts.at,
    acquirer_authorization: `auth_${id}`,
  });
  return id;
}

async function refund(m: TestMerchant, pi: string, amount: number, at: Date): Promise<string> {
  const id = newId('re');
  await stack.knex('refunds').insert({
    id,
    merchant_id: m.id,
    livemode: false,
    payment_intent_id: pi,
    amount,
    status: 'succeeded',
    idempotency_key: id,
    acquirer_reference: `ref_${id}`,
    created_at: at,
  });
  await stack.knex('payment_intents').where({ id: pi }).increment('amount_refunded', amount);
  return id;
}

/** A claim paid in full: its intent carries the claim fee, as the claim payments sync stores it. */
async function paidClaim(
  m: TestMerchant,
  amount: number,
  at: Date,
): Promise<{ claimId: string; pi: string }> {
  const pi = await payment(m, { amount, fee: claimFee(amount), at });
  const claimId = newId('clm');
  const n = claimNumber++;
  await stack.knex('claims').insert({
    id: claimId,
    merchant_id: m.id,
    livemode: false,
    status: 'paid',
    payer_kennitala: '0101302989',
    claimant_kennitala: '5012131870',
    bank: '0133',
    claim_number: n,
    bank_claim_id: `5012131870-0133-66-${String(n).padStart(6, '0')}-${m.id}`,
    amount,
    amount_paid: amount,
    due_date: '2026-11-10',
    final_due_date: '2026-11-10',
    cancellation_date: '2030-11-10',
    payment_intent_id: pi,
    paid_at: at,
  });
  return { claimId, pi };
}

async function reversal(claimId: string, amount: number, at: Date): Promise<string> {
  const key = `${claimId}|batch-rev|${at.toISOString()}|Refund|${amount}`;
  await stack.knex('claim_transactions').insert({
    claim_id: claimId,
    bank_transaction_key: key,
    payment_type: 'Refund',
    amount: -amount,
    data: JSON.stringify({ paymentType: 'Refund' }),
    created_at: at,
  });
  return key;
}

async function waitFor<T>(what: string, read: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const runStatus = (id: string) =>
  stack
    .knex('settlement_runs')
    .where({ id })
    .first('status')
    .then((r: { status: string } | undefined) => r?.status);

/** Done-means 2 for one merchant and mode, from the tables alone (test/helpers/ledger-invariant.ts). */
async function ledger(m: TestMerchant, livemode: boolean) {
  const report = await checkLedger(stack.knex);
  expect(report.violations).toEqual([]);
  const f = report.figures.find((x) => x.merchantId === m.id && x.livemode === livemode)!;
  return {
    captured: f.movements.captured!,
    refunded: -f.movements.refunded!,
    reversed: -f.movements.reversed!,
    settledGross: f.settledGross,
    unsettled: f.unsettled,
  };
}

const ids: Record<string, string> = {};
let settlementDate: string;

beforeAll(async () => {
  // The simulated bank with its file exchange; the stack's worker holds its connection. No run is
  // approved by policy here: every approval is an operator's.
  stack = await startTestStack({ bankFiles: true, settlementAutoApproveMaxNet: 0 });
  root = stack.bankFiles!.sim.rootDir;
  operator = await createOperator(stack.knex);

  a = await stack.merchant('Kaffi & Kökur ehf.');
  b = await stack.merchant('No account ehf.');
  c = await stack.merchant('Refunded ehf.');
  await stack
    .knex('merchants')
    .where({ id: a.id })
    .update({ kennitala: '4709063520', bank_account: '0101-26-123456' });
  await stack.knex('merchants').where({ id: b.id }).update({ kennitala: '6501120120' });

  // Merchant A: card payments online and at the POS, a refund, claims at the fee minimum, the
  // maximum and in between, and a reversal of the last claim.
  ids.pi1 = await payment(a, { amount: 10_000, channel: 'online', at: minutesAgo(60) }); // fee 150
  ids.pi2 = await payment(a, { amount: 5_000, channel: 'pos', at: minutesAgo(59) }); // fee 40
  ids.pi3 = await payment(a, { amount: 3_333, channel: 'online', at: minutesAgo(58) }); // 49.995 → 50
  ids.re1 = await refund(a, ids.pi1, 2_500, minutesAgo(57));
  const c1 = await paidClaim(a, 1_000, minutesAgo(56)); // 8 → min 25
  const c2 = await paidClaim(a, 50_000, minutesAgo(55)); // 400 → max 250
  const c3 = await paidClaim(a, 10_000, minutesAgo(54)); // 80
  ids.pi4 = c1.pi;
  ids.pi5 = c2.pi;
  ids.pi6 = c3.pi;
  ids.rev = await reversal(c3.claimId, 10_000, minutesAgo(53));
  // Live money of A is another environment: a test settlement day leaves it unsettled.
  ids.live = await payment(a, { amount: 7_000, at: minutesAgo(50), livemode: true });

  // Merchant B has money but no bank account; merchant C's refund cancels its payment (net −15).
  ids.b1 = await payment(b, { amount: 2_000, at: minutesAgo(52) }); // fee 30
  ids.c1 = await payment(c, { amount: 1_000, at: minutesAgo(51) }); // fee 15
  ids.cr = await refund(c, ids.c1, 1_000, minutesAgo(50));
  settlementDate = nextBankingDay(new Date().toISOString().slice(0, 10));
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

/** One bank sync of the simulated bank's connection: reads its inbox, stores, parses and matches. */
const runBankSync = () =>
  stack.client.workflow.execute('bankSync', {
    workflowId: `bank-sync/simulated-${randomBase62(6)}`,
    taskQueue: stack.taskQueue,
    args: [{ connection: 'simulated' }],
  });

const EXPECTED_LINES = () => [
  ['payment', 'card_online', ids.pi1, ids.pi1, 10_000, 150, 9_850],
  ['payment', 'card_pos', ids.pi2, ids.pi2, 5_000, 40, 4_960],
  ['payment', 'card_online', ids.pi3, ids.pi3, 3_333, 50, 3_283],
  ['refund', 'card_online', ids.re1, ids.pi1, -2_500, 0, -2_500],
  ['payment', 'claim', ids.pi4, ids.pi4, 1_000, 25, 975],
  ['payment', 'claim', ids.pi5, ids.pi5, 50_000, 250, 49_750],
  ['payment', 'claim', ids.pi6, ids.pi6, 10_000, 80, 9_920],
  ['reversal', 'claim', ids.rev, ids.pi6, -10_000, 0, -10_000],
];

let runA: string;
let runB: string;

test('a settlement day opens runs with exact lines and totals, and none for a negative balance', async () => {
  const res = await stack.api(operator.token, '/v1/operator/settlement-days', { method: 'POST', json: {} });
  expect(res.status).toBe(200);
  expect(res.body.settlement_date).toBe(settlementDate);
  const byMerchant = new Map<string, { id: string; status: string; gross: number; fee: number; net: number }>(
    res.body.runs.map((r: { merchant: string }) => [r.merchant, r]),
  );
  expect([...byMerchant.keys()].sort()).toEqual([a.id, b.id].sort());
  const ra = byMerchant.get(a.id)!;
  runA = ra.id;
  runB = byMerchant.get(b.id)!.id;
  expect(ra).toMatchObject({
    object: 'settlement_run',
    status: 'pending_review',
    settlement_date: settlementDate,
    gross: 66_833,
    fee: 595,
    net: 66_238,
    line_count: 8,
    currency: 'ISK',
    payout: null,
    livemode: false,
  });
  expect(byMerchant.get(b.id)).toMatchObject({ gross: 2_000, fee: 30, net: 1_970, line_count: 1 });

  const lines = await stack.api(a.testKey, `/v1/settlement-runs/${runA}/lines?limit=100`);
  expect(lines.status).toBe(200);
  expect(
    lines.body.data.map((l: Record<string, unknown>) => [
      l.kind,
      l.fee_kind,
      l.source,
      l.payment_intent,
      l.gross,
      l.fee,
      l.net,
    ]),
  ).toEqual(EXPECTED_LINES());
  for (const l of lines.body.data) expect(l.gross - l.fee).toBe(l.net);

  // Paging by line id.
  const first = await stack.api(a.testKey, `/v1/settlement-runs/${runA}/lines?limit=3`);
  expect(first.body.has_more).toBe(true);
  const next = await stack.api(
    a.testKey,
    `/v1/settlement-runs/${runA}/lines?limit=10&starting_after=${first.body.data[2].id}`,
  );
  expect(next.body.data.map((l: { source: string }) => l.source)).toEqual(
    EXPECTED_LINES()
      .slice(3)
      .map((l) => l[2]),
  );

  // C's refund cancels its payment: no run, no lines; the money waits.
  expect(await stack.knex('settlement_runs').where({ merchant_id: c.id })).toHaveLength(0);
  expect(await stack.knex('settlement_lines').where({ merchant_id: c.id })).toHaveLength(0);
}, 60_000);

test('CSV export: header row and exact integers', async () => {
  const lines = await stack.knex('settlement_lines').where({ settlement_run_id: runA }).orderBy('id');
  const res = await fetch(`${stack.url}/v1/settlement-runs/${runA}/lines.csv`, {
    headers: { authorization: `Bearer ${a.testKey}` },
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  const expected =
    [
      LINES_CSV_HEADER,
      ...EXPECTED_LINES().map((l, i) =>
        [
          String(lines[i].id),
          l[0],
          l[1],
          l[2],
          l[3],
          l[4],
          l[5],
          l[6],
          'ISK',
          (lines[i].occurred_at as Date).toISOString(),
        ].join(','),
      ),
    ].join('\n') + '\n';
  expect(await res.text()).toBe(expected);
  expect(LINES_CSV_HEADER).toBe('id,kind,fee_kind,source,payment_intent,gross,fee,net,currency,occurred_at');
});

test('tenancy: another merchant, or the other mode, never sees the run', async () => {
  expect((await stack.api(b.testKey, `/v1/settlement-runs/${runA}`)).status).toBe(404);
  expect((await stack.api(b.testKey, `/v1/settlement-runs/${runA}/lines`)).status).toBe(404);
  const csv = await fetch(`${stack.url}/v1/settlement-runs/${runA}/lines.csv`, {
    headers: { authorization: `Bearer ${b.testKey}` },
  });
  expect(csv.status).toBe(404);
  const listB = await stack.api(b.testKey, '/v1/settlement-runs');
  expect(listB.body.data.map((r: { id: string }) => r.id)).toEqual([runB]);
  expect((await stack.api(a.liveKey, `/v1/settlement-runs/${runA}`)).status).toBe(404);
  expect((await stack.api(a.liveKey, '/v1/settlement-runs')).body.data).toEqual([]);
  const filtered = await stack.api(
    a.testKey,
    `/v1/settlement-runs?status=pending_review&settlement_date[gte]=${settlementDate}&settlement_date[lte]=${settlementDate}`,
  );
  expect(filtered.body).toMatchObject({ object: 'list', has_more: false, url: '/v1/settlement-runs' });
  expect(filtered.body.data.map((r: { id: string }) => r.id)).toEqual([runA]);
  // Merchant keys cannot approve; the operator API needs an operator token.
  expect(
    (await stack.api(a.testKey, `/v1/operator/settlement-runs/${runA}/approve`, { method: 'POST' })).status,
  ).toBe(401);
});

test('approval writes the payout and the pain.001 file; the confirmed debit makes the run paid', async () => {
  const approved = await stack.api(operator.token, `/v1/operator/settlement-runs/${runA}/approve`, {
    method: 'POST',
    json: {},
  });
  expect(approved.status).toBe(200);
  expect(approved.body).toMatchObject({ id: runA, status: 'approved', merchant: a.id });
  const audit = await stack.knex('audit_log').where({ object_id: runA });
  expect(audit).toHaveLength(1);
  expect(audit[0]).toMatchObject({
    actor_kind: 'operator',
    actor_id: operator.id,
    action: 'settlement_run.approved',
    merchant_id: a.id,
    livemode: false,
  });

  // Approving twice is refused in the envelope.
  const again = await stack.api(operator.token, `/v1/operator/settlement-runs/${runA}/approve`, {
    method: 'POST',
    json: {},
  });
  expect(again.status).toBe(409);
  expect(again.body.error).toMatchObject({
    type: 'invalid_request_error',
    code: 'settlement_run_not_pending_review',
    param: 'id',
  });

  await waitFor('run submitted', async () => ((await runStatus(runA)) === 'submitted' ? true : undefined));
  const payout = await stack.knex('payouts').where({ settlement_run_id: runA }).first();
  expect(payout).toMatchObject({
    merchant_id: a.id,
    livemode: false,
    amount: 66_238,
    destination_account: '0101-26-123456',
    destination_kennitala: '4709063520',
    idempotency_key: `${runA}:payout`,
    end_to_end_id: payout.id,
    channel: 'pain001_sftp',
    status: 'submitted',
    file_name: `pain001_${payout.id}.xml`,
  });
  expect(readdirSync(join(root, 'outbox')).filter((n) => n.endsWith('.xml'))).toEqual([
    `pain001_${payout.id}.xml`,
  ]);
  const xml = readFileSync(join(root, 'outbox', `pain001_${payout.id}.xml`), 'utf8');
  const created = (payout.created_at as Date).toISOString().replace(/\.\d{3}Z$/, '+00:00');
  expect(xml).toBe(`<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09">
  <CstmrCdtTrfInitn>
    <GrpHdr>
      <MsgId>${payout.id}</MsgId>
      <CreDtTm>${created}</CreDtTm>
      <NbOfTxs>1</NbOfTxs>
      <CtrlSum>66238</CtrlSum>
      <InitgPty>
        <Nm>Skil</Nm>
      </InitgPty>
    </GrpHdr>
    <PmtInf>
      <PmtInfId>${runA}</PmtInfId>
      <PmtMtd>TRF</PmtMtd>
      <NbOfTxs>1</NbOfTxs>
      <CtrlSum>66238</CtrlSum>
      <ReqdExctnDt>
        <Dt>${settlementDate}</Dt>
      </ReqdExctnDt>
      <Dbtr>
        <Nm>Skil</Nm>
      </Dbtr>
      <DbtrAcct>
        <Id>
          <Othr>
            <Id>013326000133</Id>
          </Othr>
        </Id>
      </DbtrAcct>
      <DbtrAgt>
        <FinInstnId>
          <Othr>
            <Id>NOTPROVIDED</Id>
          </Othr>
        </FinInstnId>
      </DbtrAgt>
      <CdtTrfTxInf>
        <PmtId>
          <EndToEndId>${payout.id}</EndToEndId>
        </PmtId>
        <Amt>
          <InstdAmt Ccy="ISK">66238</InstdAmt>
        </Amt>
        <Cdtr>
          <Nm>Kaffi &amp; Kökur ehf.</Nm>
          <Id>
            <OrgId>
              <Othr>
                <Id>4709063520</Id>
              </Othr>
            </OrgId>
          </Id>
        </Cdtr>
        <CdtrAcct>
          <Id>
            <Othr>
              <Id>010126123456</Id>
            </Othr>
          </Id>
        </CdtrAcct>
        <RmtInf>
          <Ustrd>${runA}</Ustrd>
        </RmtInf>
      </CdtTrfTxInf>
    </PmtInf>
  </CstmrCdtTrfInitn>
</Document>
`);
  const retrieved = await stack.api(a.testKey, `/v1/settlement-runs/${runA}`);
  expect(retrieved.body).toMatchObject({
    status: 'submitted',
    payout: {
      id: payout.id,
      object: 'payout',
      status: 'submitted',
      amount: 66_238,
      end_to_end_id: payout.id,
    },
  });

  // The bank closes the execution date: the pain.001 leaves the outbox, booked as a debit in that
  // day's camt.053. Bank sync reads it, matches the EndToEndId to the payout, marks payout and run
  // paid and tells the run's workflow, which ends.
  const closed = await stack.bankFiles!.sim.closeDay(settlementDate);
  expect(closed.payouts).toEqual([payout.id]);
  await runBankSync();
  const handle = stack.client.workflow.getHandle(settlementRunWorkflowId(false, a.id, settlementDate));
  expect(await handle.result()).toEqual({ runId: runA, status: 'paid' });
  expect((await stack.api(a.testKey, `/v1/settlement-runs/${runA}`)).body).toMatchObject({
    status: 'paid',
    payout: { id: payout.id, status: 'paid' },
  });
  expect(await stack.knex('bank_exceptions').where({ status: 'open' })).toEqual([]);
}, 60_000);

test('a merchant without a bank account: approval is refused; a run that fails anyway is retried once mended', async () => {
  const approve = () =>
    stack.api(operator.token, `/v1/operator/settlement-runs/${runB}/approve`, { method: 'POST', json: {} });
  const retry = () =>
    stack.api(operator.token, `/v1/operator/settlement-runs/${runB}/retry`, { method: 'POST', json: {} });
  const refused = await approve();
  expect(refused.status).toBe(409);
  expect(refused.body.error).toMatchObject({ code: 'merchant_payout_destination_missing', param: 'id' });
  expect(await stack.knex('settlement_runs').where({ id: runB }).first()).toMatchObject({
    status: 'pending_review',
    approved_by: null,
  });
  expect(await stack.knex('audit_log').where({ object_id: runB })).toHaveLength(0);

  // Approved while the account was there, removed before the payout was written (a race the guard
  // cannot close): the run fails with the reason. The worker is stopped meanwhile, so the order is
  // certain: the merchant adds its account, the operator approves, the merchant removes the account,
  // and only then does the run's workflow take the approval.
  const profile = (bank_account: string | null) =>
    stack.api(b.testKey, '/v1/merchant', { method: 'PATCH', json: { bank_account } });
  await stack.stopWorker();
  try {
    expect((await profile('0133-26-000777')).status).toBe(200);
    expect(await approve()).toMatchObject({ status: 200, body: { id: runB, status: 'approved' } });
    expect((await profile(null)).status).toBe(200);
  } finally {
    await stack.startWorker();
  }
  const handle = stack.client.workflow.getHandle(settlementRunWorkflowId(false, b.id, settlementDate));
  expect(await handle.result()).toEqual({ runId: runB, status: 'failed' });
  const failed = await stack.knex('settlement_runs').where({ id: runB }).first();
  expect(failed.failure_reason).toBe('The merchant has no bank account and kennitala to pay out to');
  expect(await stack.knex('payouts').where({ settlement_run_id: runB })).toHaveLength(0);
  const listed = await stack.api(operator.token, `/v1/operator/settlement-runs?status=failed`);
  expect(listed.body.data.map((r: { id: string }) => r.id)).toEqual([runB]);

  // Retrying before the account is back is refused and changes nothing.
  const early = await retry();
  expect(early.status).toBe(409);
  expect(early.body.error.code).toBe('merchant_payout_destination_missing');
  expect((await stack.knex('settlement_runs').where({ id: runB }).first()).status).toBe('failed');

  // Mended: the retry approves it again and its payout goes to the account as it is now.
  await stack.knex('merchants').where({ id: b.id }).update({ bank_account: '0133-26-000888' });
  const retried = await retry();
  expect(retried.status).toBe(200);
  expect(retried.body).toMatchObject({ id: runB, status: 'approved', failure_reason: null });
  await until(
    () => stack.knex('settlement_runs').where({ id: runB }).first(),
    (r) => r.status === 'submitted',
  );
  const payout = await stack.knex('payouts').where({ settlement_run_id: runB }).first();
  expect(payout).toMatchObject({
    status: 'submitted',
    amount: 1_970, // 2,000 − fee 30
    destination_account: '0133-26-000888',
    destination_kennitala: '6501120120',
  });
  expect(
    (await stack.knex('audit_log').where({ object_id: runB }).orderBy('id')).map((r) => r.action),
  ).toEqual(['settlement_run.approved', 'settlement_run.failed', 'settlement_run.retried']);
  // Only a failed run can be retried.
  const again = await retry();
  expect(again.status).toBe(409);
  expect(again.body.error.code).toBe('settlement_run_not_failed');
}, 60_000);

test('a second settlement day changes nothing; the ledger invariant holds for every merchant', async () => {
  const linesBefore = await stack.knex('settlement_lines').count<{ count: string }[]>('* as count');
  const res = await stack.api(operator.token, '/v1/operator/settlement-days', { method: 'POST', json: {} });
  expect(res.status).toBe(200);
  expect(res.body.runs.map((r: { id: string }) => r.id).sort()).toEqual([runA, runB].sort());
  expect(await stack.knex('settlement_lines').count<{ count: string }[]>('* as count')).toEqual(linesBefore);
  expect(await stack.knex('settlement_runs')).toHaveLength(2);
  expect(await stack.knex('payouts')).toHaveLength(2);

  // Done 2: captured − refunds − reversals = settled gross + unsettled, for every merchant and mode.
  const figures = {
    aTest: await ledger(a, false),
    aLive: await ledger(a, true),
    b: await ledger(b, false),
    c: await ledger(c, false),
  };
  expect(figures.aTest).toEqual({
    captured: 79_333,
    refunded: 2_500,
    reversed: 10_000,
    settledGross: 66_833,
    unsettled: 0,
  });
  expect(figures.aLive).toMatchObject({ captured: 7_000, settledGross: 0, unsettled: 7_000 });
  expect(figures.c).toMatchObject({ captured: 1_000, refunded: 1_000, settledGross: 0, unsettled: 0 });
  for (const f of Object.values(figures)) expect(ledgerDifference(f)).toBe(0);

  // …and for paid runs gross − fees = net = the payout.
  const paid = await stack.knex.raw<{
    rows: {
      gross: number;
      fee: number;
      net: number;
      amount: number;
      lines_gross: string;
      lines_fee: string;
    }[];
  }>(
    `select r.gross, r.fee, r.net, p.amount, (select sum(gross) from settlement_lines l where l.settlement_run_id = r.id) lines_gross,
            (select sum(fee) from settlement_lines l where l.settlement_run_id = r.id) lines_fee
       from settlement_runs r join payouts p on p.settlement_run_id = r.id where r.status = 'paid'`,
  );
  expect(paid.rows).toHaveLength(1);
  for (const r of paid.rows) {
    expect(r.gross - r.fee).toBe(r.net);
    expect(r.net).toBe(r.amount);
    expect(Number(r.lines_gross)).toBe(r.gross);
    expect(Number(r.lines_fee)).toBe(r.fee);
  }
}, 60_000);

test('gathering is idempotent under concurrency, and the auto-approve policy approves small runs', async () => {
  const runs = createSettlementRunRepository(stack.knex);
  const d = await stack.merchant('Small ehf.');
  const pi = await payment(d, { amount: 3_000, at: minutesAgo(5) }); // fee 45
  const scope = { merchantId: d.id, livemode: false };
  const cutoff = new Date();
  // Two days gathered at once: the line lands on exactly one run, never both.
  const both = await Promise.all([
    runs.gather({ scope, settlementDate: '2026-12-01', cutoff, autoApproveMaxNet: 0 }),
    runs.gather({ scope, settlementDate: '2026-12-02', cutoff, autoApproveMaxNet: 0 }),
  ]);
  expect(both.filter((r) => r !== null)).toHaveLength(1);
  expect(await stack.knex('settlement_lines').where({ merchant_id: d.id })).toHaveLength(1);
  expect(await stack.knex('settlement_runs').where({ merchant_id: d.id })).toHaveLength(1);
  // The same day again returns the same run and adds nothing.
  const opened = both.find((r) => r !== null)!;
  const again = await runs.gather({
    scope,
    settlementDate: opened.settlement_date,
    cutoff,
    autoApproveMaxNet: 0,
  });
  expect(again).toMatchObject({ id: opened.id, line_count: 1, gross: 3_000, fee: 45, net: 2_955 });

  // Under the limit but nowhere to pay out to: the policy leaves it to an operator.
  const noAccount = await stack.merchant('Auto without account ehf.');
  await payment(noAccount, { amount: 4_000, channel: 'pos', at: minutesAgo(5) });
  const waiting = await runs.gather({
    scope: { merchantId: noAccount.id, livemode: false },
    settlementDate: '2026-12-01',
    cutoff,
    autoApproveMaxNet: 3_968,
  });
  expect(waiting).toMatchObject({ status: 'pending_review', approved_by: null, net: 3_968 });

  // Auto-approve at or under the limit, with a system audit record.
  const e = await stack.merchant('Auto ehf.');
  await stack
    .knex('merchants')
    .where({ id: e.id })
    .update({ kennitala: '4709063520', bank_account: '0101-26-123456' });
  await payment(e, { amount: 4_000, channel: 'pos', at: minutesAgo(5) }); // fee 32 → net 3 968
  const auto = await runs.gather({
    scope: { merchantId: e.id, livemode: false },
    settlementDate: '2026-12-01',
    cutoff,
    autoApproveMaxNet: 3_968,
  });
  expect(auto).toMatchObject({ status: 'approved', approved_by: AUTO_APPROVER, net: 3_968 });
  expect(await stack.knex('audit_log').where({ object_id: auto!.id })).toEqual([
    expect.objectContaining({ actor_kind: 'system', action: 'settlement_run.approved', merchant_id: e.id }),
  ]);
  expect(pi).toMatch(/^pi_/);
});
