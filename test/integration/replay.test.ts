import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils';
import { startTestStack, type TestStack } from '../helpers/stack';
import { startReceiver } from '../helpers/receiver';
import { replayHistory } from '../helpers/replay';
import { until } from '../helpers/until';

// Determinism guard (STYLE.md §7): workflow code must replay the histories it produced before.
// Histories recorded from earlier versions live in test/fixtures/histories; record a new one after a
// deliberate, patched change with RECORD_HISTORIES=1.
const FIXTURES = path.join(__dirname, '..', 'fixtures', 'histories');

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ schedule: [0, 50, 50, 50, 50] });
});
afterAll(async () => {
  await stack.stop();
});

test('recorded workflow histories replay without nondeterminism', async () => {
  const files = (await readdir(FIXTURES)).filter((f) => f.endsWith('.json'));
  expect(files.length).toBeGreaterThan(0);
  for (const file of files) {
    const history = historyFromJSON(JSON.parse(await readFile(path.join(FIXTURES, file), 'utf8')));
    await replayHistory(history, file.replace(/\.json$/, ''));
  }
});

test("a channel's history from this code replays", async () => {
  const receiver = await startReceiver((n) => (n < 3 ? 500 : 200));
  try {
    const m = await stack.merchant();
    const channel = await stack.api(m.testKey, '/v1/notification-channels', {
      method: 'POST',
      json: { type: 'webhook', config: { url: receiver.url }, event_subscriptions: ['*'] },
    });
    await stack.api(m.testKey, '/v1/notification-channels/test-webhooks', { method: 'POST', json: {} });
    await receiver.waitFor(3, 10_000);
    await new Promise((r) => setTimeout(r, 300));
    const handle = stack.client.workflow.getHandle(`webhooks/${channel.body.id}`);
    const history = await handle.fetchHistory();
    expect(history.events!.length).toBeGreaterThan(10);
    await replayHistory(history, handle.workflowId);
    if (process.env.RECORD_HISTORIES === '1') {
      await writeFile(path.join(FIXTURES, 'webhook-channel-three-attempts.json'), historyToJSON(history));
    }
  } finally {
    await receiver.close();
  }
});

test("a billing run's history from this code replays, its lanes paging on their own", async () => {
  const m = await stack.merchant();
  const post = (path: string, json: unknown) => stack.api(m.testKey, path, { method: 'POST', json });
  const product = await post('/v1/products', { name: 'Áskrift', vat_rate: 24 });
  const price = await post('/v1/prices', {
    product: product.body.id,
    unit_amount: 990,
    recurring: { interval: 'month' },
  });
  const subscriptions: string[] = [];
  for (let i = 0; i < 5; i++) {
    const customer = await post('/v1/customers', { name: `Áskrifandi ${i}` });
    const card = await post('/v1/payment-methods', {
      customer: customer.body.id,
      card: { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' },
    });
    const sub = await post('/v1/subscriptions', {
      customer: customer.body.id,
      price: price.body.id,
      default_payment_method: card.body.id,
    });
    expect(sub.status).toBe(200);
    subscriptions.push(sub.body.id);
  }
  await until(
    () => stack.knex('renewals').whereIn('subscription_id', subscriptions).where({ status: 'paid' }),
    (rows) => rows.length === subscriptions.length,
    30_000,
  );
  // Pages of one subscription in two lanes: each lane pages several times, so the history holds
  // pages of one lane started while the other's is still running.
  const handle = await stack.client.workflow.start('billingRun', {
    args: [{ livemode: false, asOf: Date.now() + 40 * 86_400_000, testClockId: null, pageSize: 1, lanes: 2 }],
    taskQueue: stack.taskQueue,
    workflowId: `billing-run/replay/${subscriptions[0]}`,
  });
  const totals = (await handle.result()) as { processed: number; paid: number };
  expect(totals).toMatchObject({ processed: 5, paid: 5 });
  const renewed = await stack
    .knex('renewals')
    .whereIn('subscription_id', subscriptions)
    .where({ period_index: 1, status: 'paid' });
  expect(renewed).toHaveLength(5);
  const history = await handle.fetchHistory();
  await replayHistory(history, handle.workflowId);
  if (process.env.RECORD_HISTORIES === '1') {
    await writeFile(path.join(FIXTURES, 'billing-run-free-lanes.json'), historyToJSON(history));
  }
});
