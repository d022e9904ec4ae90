/**
 * The auto-approve policy through a configured worker (decision 0093): the test stack's worker runs
 * with a limit of 10,000 ISK, the operator API runs the settlement day, and the run at or under the
 * limit is approved by the policy and paid out as a pain.001 in the simulated bank's SFTP outbox,
 * while the run over it waits for an operator. Payments are written as checkout writes them.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { startTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { createOperator } from '../helpers/accounts';
import { until } from '../helpers/until';
import { newId } from '../../domain/ids';
import { cardFee } from '../../domain/fees';
import { nextBankingDay } from '../../domain/banking-days';
import { settlementRunWorkflowId } from '../../workflows/contract';
import { AUTO_APPROVER } from '../../db/settlement-runs';

const LIMIT = 10_000;

let stack: TestStack;
let small: TestMerchant;
let large: TestMerchant;

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);

async function payment(m: TestMerchant, amount: number, channel: 'online' | 'pos'): Promise<string> {
  const id = newId('pi');
  await stack.knex('payment_intents').insert({
    id,
    merchant_id: m.id,
    livemode: false,
    amount,
    status: 'succeeded',
    channel,
    amount_captured: amount,
    fee_amount: cardFee(amount, channel),
    captured_at: minutesAgo(30),
    acquirer_authorization: `auth_${id}`,
  });
  return id;
}

beforeAll(async () => {
  stack = await startTestStack({ bankFiles: true, settlementAutoApproveMaxNet: LIMIT });
  small = await stack.merchant('Lítil búð ehf.');
  large = await stack.merchant('Stór verslun hf.');
  await stack
    .knex('merchants')
    .where({ id: small.id })
    .update({ kennitala: '4709063520', bank_account: '0101-26-123456' });
  await stack
    .knex('merchants')
    .where({ id: large.id })
    .update({ kennitala: '6501120120', bank_account: '0111-26-654321' });
  // Small: 5,000 online (fee 75) + 3,000 at the POS (fee 24) = net 7,901, under the limit.
  await payment(small, 5_000, 'online');
  await payment(small, 3_000, 'pos');
  // Large: 20,000 online (fee 300) = net 19,700, over it.
  await payment(large, 20_000, 'online');
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

test('a run at or under the limit is approved by policy and paid out; a larger one waits for an operator', async () => {
  const operator = await createOperator(stack.knex);
  const settlementDate = nextBankingDay(new Date().toISOString().slice(0, 10));
  const day = await stack.api(operator.token, '/v1/operator/settlement-days', { method: 'POST', json: {} });
  expect(day.status).toBe(200);
  expect(day.body).toMatchObject({
    object: 'settlement_day',
    settlement_date: settlementDate,
    livemode: false,
  });
  type Run = { id: string; merchant: string; status: string; approved_by: string | null };
  const runs = new Map<string, Run>((day.body.runs as Run[]).map((r) => [r.merchant, r]));
  expect([...runs.keys()].sort()).toEqual([small.id, large.id].sort());
  const smallRun = runs.get(small.id)!;
  const largeRun = runs.get(large.id)!;
  // Approved at gather time; the run's workflow may already have submitted the payout.
  expect(smallRun).toMatchObject({
    gross: 8_000,
    fee: 99,
    net: 7_901,
    line_count: 2,
    approved_by: AUTO_APPROVER,
  });
  expect(['approved', 'submitted']).toContain(smallRun.status);
  expect(largeRun).toMatchObject({
    status: 'pending_review',
    gross: 20_000,
    fee: 300,
    net: 19_700,
    line_count: 1,
    approved_by: null,
    approved_at: null,
    payout: null,
  });

  // The policy's run goes on by itself: payout written and uploaded, run submitted.
  const submitted = await until(
    () => stack.api(small.testKey, `/v1/settlement-runs/${smallRun.id}`),
    (r) => r.body?.status === 'submitted',
  );
  const payout = submitted.body.payout as { id: string; file_name: string };
  expect(submitted.body).toMatchObject({ net: 7_901, approved_at: expect.any(Number) });
  expect(payout).toMatchObject({
    object: 'payout',
    status: 'submitted',
    amount: 7_901,
    destination_account: '0101-26-123456',
    end_to_end_id: payout.id,
    channel: expect.any(String),
    file_name: `pain001_${payout.id}.xml`,
  });
  const outbox = path.join(stack.bankFiles!.sim.rootDir, 'outbox');
  expect(readdirSync(outbox).filter((n) => n.startsWith('pain001_'))).toEqual([`pain001_${payout.id}.xml`]);
  const pain = readFileSync(path.join(outbox, payout.file_name), 'utf8');
  expect(pain).toContain(`<EndToEndId>${payout.id}</EndToEndId>`);
  expect(pain).toContain('<InstdAmt Ccy="ISK">7901</InstdAmt>');
  expect(pain).toContain('<Id>010126123456</Id>');
  expect(pain).not.toContain('19700');

  // The audit log names the policy, once, with the net it approved.
  const smallAudit = await stack
    .knex('audit_log')
    .where({ object_type: 'settlement_run', object_id: smallRun.id });
  expect(smallAudit).toHaveLength(1);
  expect(smallAudit[0]).toMatchObject({
    action: 'settlement_run.approved',
    actor_kind: 'system',
    actor_id: null,
    actor_name: AUTO_APPROVER,
    livemode: false,
    merchant_id: small.id,
    data: { net: 7_901, policy: 'SETTLEMENT_AUTO_APPROVE_MAX_NET' },
  });

  // The run over the limit waits in pending review: no approver, no payout, no audit record, and
  // its workflow is still running, waiting for an operator.
  const handle = stack.client.workflow.getHandle(settlementRunWorkflowId(false, large.id, settlementDate));
  expect((await handle.describe()).status.name).toBe('RUNNING');
  expect(await handle.query<string>('settlementRunStatus')).toBe('pending_review');
  expect(await stack.knex('settlement_runs').where({ id: largeRun.id }).first()).toMatchObject({
    status: 'pending_review',
    net: 19_700,
    approved_by: null,
    approved_at: null,
  });
  expect(await stack.knex('payouts').where({ merchant_id: large.id })).toEqual([]);
  expect(await stack.knex('audit_log').where({ object_id: largeRun.id })).toEqual([]);
  expect(await stack.knex('payouts').select('id')).toEqual([{ id: payout.id }]);
});
