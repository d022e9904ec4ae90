/**
 * A payout upload the bank refuses for good: the SFTP login fails (a wrong password against the
 * simulated bank's real SFTP server). The upload is tried once, not retried, and the run fails
 * with the bank's reason, for an operator to mend and retry.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from '@temporalio/worker';
import { startTestStack, TEST_SECRETS_KEY, type TestMerchant, type TestStack } from '../helpers/stack';
import { createOperator } from '../helpers/accounts';
import { createWorker } from '../../worker/create-worker';
import { createLogger } from '../../stack/logger';
import { newId } from '../../domain/ids';
import { cardFee } from '../../domain/fees';
import { FailureType, settlementRunWorkflowId } from '../../workflows/contract';
import {
  SIMULATED_BANK_FOLDERS,
  startSimulatedBankSftp,
  type SimulatedBankSftp,
} from '../../simulators/bank/sftp-server';

let stack: TestStack;
let sftp: SimulatedBankSftp;
let root: string;
let worker: { worker: Worker; running: Promise<void>; close: () => Promise<void> };
let operator: { token: string; id: string };
let merchant: TestMerchant;

beforeAll(async () => {
  stack = await startTestStack({ worker: false });
  root = mkdtempSync(join(tmpdir(), 'settlement-refused-'));
  sftp = await startSimulatedBankSftp({
    rootDir: root,
    users: [{ username: 'skil', password: 'the-right-one' }],
  });
  const created = await createWorker({
    knex: stack.knex,
    client: stack.client,
    log: createLogger('test', 'silent'),
    address: process.env.SKIL_TEST_TEMPORAL_ADDRESS!,
    namespace: 'default',
    taskQueue: stack.taskQueue,
    secretsKey: TEST_SECRETS_KEY,
    workflowBundlePath: process.env.SKIL_TEST_WORKFLOW_BUNDLE!,
    acquirer: stack.acquirer.client,
    bankConnections: [
      {
        id: 'simulated',
        livemode: false,
        sftp: {
          host: '127.0.0.1',
          port: sftp.port,
          username: 'skil',
          password: 'a-wrong-one',
          hostKeySha256: sftp.hostKeyFingerprint,
          folders: SIMULATED_BANK_FOLDERS,
        },
        collectionAccount: { account: '013326000133', kennitala: '5012131870' },
      },
    ],
    settlementAutoApproveMaxNet: 0,
  });
  worker = { worker: created.worker, running: created.worker.run(), close: () => created.connection.close() };
  operator = await createOperator(stack.knex);
  merchant = await stack.merchant('Refused ehf.');
  await stack
    .knex('merchants')
    .where({ id: merchant.id })
    .update({ kennitala: '4709063520', bank_account: '0101-26-123456' });
  const pi = newId('pi');
  await stack.knex('payment_intents').insert({
    id: pi,
    merchant_id: merchant.id,
    livemode: false,
    amount: 10_000,
    status: 'succeeded',
    channel: 'online',
    amount_captured: 10_000,
    fee_amount: cardFee(10_000, 'online'),
    captured_at: new Date(Date.now() - 60_000),
    acquirer_authorization: `auth_${pi}`,
  });
}, 60_000);

afterAll(async () => {
  if (worker) {
    worker.worker.shutdown();
    await worker.running;
    await worker.close();
  }
  await stack?.stop();
  await sftp?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

test('an SFTP login refused on the payout upload fails the run after one attempt', async () => {
  const day = await stack.api(operator.token, '/v1/operator/settlement-days', { method: 'POST', json: {} });
  expect(day.status).toBe(200);
  const run = (day.body.runs as { id: string; merchant: string; settlement_date: string }[]).find(
    (r) => r.merchant === merchant.id,
  )!;
  const approved = await stack.api(operator.token, `/v1/operator/settlement-runs/${run.id}/approve`, {
    method: 'POST',
    json: {},
  });
  expect(approved.status).toBe(200);

  // The run's workflow ends once the run has failed: nothing is left to retry the upload.
  const handle = stack.client.workflow.getHandle(
    settlementRunWorkflowId(false, merchant.id, run.settlement_date),
  );
  expect(await handle.result()).toEqual({ runId: run.id, status: 'failed' });

  const retrieved = await stack.api(merchant.testKey, `/v1/settlement-runs/${run.id}`);
  expect(retrieved.status).toBe(200);
  expect(retrieved.body).toMatchObject({ id: run.id, status: 'failed', payout: { status: 'failed' } });
  expect(retrieved.body.failure_reason).toMatch(/^The bank refused the payout: .*authentication/i);

  // One login, one attempt of the activity, failed as final; no file reached the bank.
  expect(sftp.stats().rejectedLogins).toBe(1);
  const events = (await handle.fetchHistory()).events ?? [];
  const scheduled = events.filter(
    (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'submitPayout',
  );
  expect(scheduled).toHaveLength(1);
  const started = events.filter(
    (e) =>
      e.activityTaskStartedEventAttributes?.scheduledEventId?.toString() ===
      scheduled[0]!.eventId?.toString(),
  );
  expect(started.map((e) => e.activityTaskStartedEventAttributes?.attempt)).toEqual([1]);
  const failure = events.find((e) => e.activityTaskFailedEventAttributes)?.activityTaskFailedEventAttributes
    ?.failure;
  expect(failure?.applicationFailureInfo).toMatchObject({
    type: FailureType.AdapterAccessRefused,
    nonRetryable: true,
  });
  expect(readdirSync(join(root, 'outbox'))).toEqual([]);
}, 60_000);
