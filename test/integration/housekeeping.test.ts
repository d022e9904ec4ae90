import { startTestStack, type TestStack } from '../helpers/stack';
import { startReceiver } from '../helpers/receiver';
import { createEventRepository } from '../../db/events';
import { randomBase62 } from '../../domain/ids';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

test('the relay delivers an event whose wake-up signal was lost', async () => {
  const receiver = await startReceiver();
  try {
    const m = await stack.merchant();
    const channel = await stack.api(m.testKey, '/v1/notification-channels', {
      method: 'POST',
      json: { type: 'webhook', config: { url: receiver.url }, event_subscriptions: ['claim.paid'] },
    });
    // Record an event the way a crashed API would leave it: committed, never signalled, overdue.
    const { event } = await createEventRepository(stack.knex).record(
      { merchantId: m.id, livemode: false },
      { type: 'claim.paid', data: { id: 'clm_lost', amount: 1000 } },
    );
    await stack
      .knex('webhook_deliveries')
      .where({ event_id: event.id })
      .update({ next_attempt_at: stack.knex.raw("now() - interval '5 minutes'") });
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received).toHaveLength(0);

    const woken = await stack.client.workflow.execute('webhookRelay', {
      workflowId: `relay-test-${randomBase62(6)}`,
      taskQueue: stack.taskQueue,
      args: [{ graceMs: 60_000 }],
    });
    expect(woken).toBe(1);
    const [hit] = await receiver.waitFor(1, 5000);
    expect(hit!.body.id).toBe(event.id);
    expect(hit!.headers['x-service-delivery-id']).toMatch(/^whd_/);
    expect(channel.status).toBe(200);
  } finally {
    await receiver.close();
  }
});

test('maintenance forgets idempotency keys older than 24 hours and audit entries past their two years, and keeps newer ones', async () => {
  const m = await stack.merchant();
  const row = (key: string, hoursAgo: number) => ({
    merchant_id: m.id,
    livemode: false,
    key,
    method: 'POST',
    path: '/v1/x',
    request_hash: 'h',
    state: 'done',
    response_status: 200,
    response_body: '{}',
    created_at: new Date(Date.now() - hoursAgo * 3600_000),
  });
  await stack.knex('idempotency_keys').insert([row('old', 25), row('new', 23)]);
  // Entries written 731 and 729 days ago: only the older is past the retention (decision 0227). No
  // write path makes an entry in the past, so they are inserted as they would have been then.
  const entry = (id: string, daysAgo: number) => ({
    id,
    merchant_id: m.id,
    livemode: false,
    occurred_at: new Date(Date.now() - daysAgo * 86_400_000),
    actor_type: 'api_key',
    actor_id: 'key_x',
    action: 'POST /v1/customers',
  });
  await stack.knex('merchant_audit_entries').insert([entry('aud_old', 731), entry('aud_new', 729)]);
  // The newer one cannot be deleted by hand either: the table refuses it.
  await expect(stack.knex('merchant_audit_entries').where({ id: 'aud_new' }).delete()).rejects.toThrow(
    /append-only/,
  );
  const result = await stack.client.workflow.execute('maintenance', {
    workflowId: `maintenance-test-${randomBase62(6)}`,
    taskQueue: stack.taskQueue,
  });
  expect(result).toEqual({ idempotencyKeysPurged: 1, auditEntriesPruned: 1 });
  const left = await stack.knex('idempotency_keys').where({ merchant_id: m.id }).pluck('key');
  expect(left).toEqual(['new']);
  expect(await stack.knex('merchant_audit_entries').where({ merchant_id: m.id }).pluck('id')).toEqual([
    'aud_new',
  ]);
});
