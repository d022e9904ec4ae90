import { MockActivityEnvironment } from '@temporalio/testing';
import { createWebhookActivities } from '../../activities/webhooks';
import { createDueDeliveries } from '../../services/channels/due-deliveries';
import { createWebhookDeliveryBatches } from '../../services/channels/webhook-delivery-batch';
import { createChannelRepository } from '../../db/notification-channels';
import { createEventRepository } from '../../db/events';
import { createMerchantRepository } from '../../db/merchants';
import { createSecretBox } from '../../domain/secret-box';
import { verifyWebhookSignature } from '../../domain/webhook-signature';
import { createLogger } from '../../stack/logger';
import { createTestDatabase, type TestDatabase } from '../helpers/database';
import { startReceiver } from '../helpers/receiver';
import { TEST_SECRETS_KEY } from '../helpers/secrets-key';

// The batch path of webhook delivery (decision 0183) against a real database: one batch mixing a
// delivery to send, one already past its attempt, one a dead worker began, and one of another
// merchant; then the same batch again, as Temporal retries it.

let db: TestDatabase;
const secrets = createSecretBox(TEST_SECRETS_KEY);
const schedule = [0, 60_000, 300_000];

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

/** The activities as the worker assembles them, on this file's database, waking nothing. */
function webhookActivities() {
  const wakeChannels = () => Promise.resolve();
  const dueDeliveries = createDueDeliveries({ knex: db.knex, secrets, wakeChannels });
  return createWebhookActivities({
    dueDeliveries,
    deliveryBatches: createWebhookDeliveryBatches({
      knex: db.knex,
      log: createLogger('test', 'silent'),
      secrets,
      wakeChannels,
      dueDeliveries,
      // The receiver is on loopback, as `npm start` and the test stacks allow (decision 0225).
      allowLoopback: true,
    }),
  });
}

async function channelWithEvents(url: string, count: number) {
  const merchant = await createMerchantRepository(db.knex).create({ name: 'Batch ehf.' });
  const scope = { merchantId: merchant.id, livemode: false };
  const channel = await createChannelRepository(db.knex, secrets).create(scope, {
    type: 'webhook',
    url,
    eventSubscriptions: ['claim.paid'],
  });
  const events = createEventRepository(db.knex);
  for (let i = 0; i < count; i++)
    await events.record(scope, { type: 'claim.paid', data: { id: `clm_${i}`, amount: 1000 + i } });
  const deliveries: { id: string; event_id: string }[] = await db
    .knex('webhook_deliveries')
    .where({ channel_id: channel.id })
    .orderBy('id');
  return { scope, channel, deliveries };
}

test('a batch sends each due delivery once, signed, and a retried batch sends nothing again', async () => {
  const receiver = await startReceiver();
  try {
    const mine = await channelWithEvents(receiver.url, 4);
    const theirs = await channelWithEvents(receiver.url, 1);
    const [fresh, second, done, begun] = mine.deliveries.map((d) => ({ id: d.id })) as [
      { id: string },
      { id: string },
      { id: string },
      { id: string },
    ];
    // `done` already made attempt 1; `begun` had attempt 1 started by a worker that then died.
    await db.knex('webhook_deliveries').where({ id: done.id }).update({ attempt_count: 1 });
    await db.knex('webhook_attempts').insert({
      delivery_id: begun.id,
      attempt_number: 1,
      outcome: 'in_progress',
      started_at: new Date(),
    });
    const activities = webhookActivities();
    const batch = [fresh, second, done, begun, theirs.deliveries[0]!].map((d) => ({
      id: d.id,
      attemptNumber: 1,
    }));
    const input = { ...mine.scope, deliveries: batch, schedule, concurrency: 4 };
    const env = new MockActivityEnvironment();

    const counts = await env.run((i: typeof input) => activities.attemptDeliveries(i), input);
    expect(counts).toEqual({ succeeded: 2, failed: 0, skipped: 2, interrupted: 1 });
    await new Promise((r) => setTimeout(r, 200));
    const sent = receiver.received.map((r) => String(r.headers['x-service-delivery-id'])).sort();
    expect(sent).toEqual([fresh.id, second.id].sort());
    for (const r of receiver.received) {
      const header = r.headers['x-service-signature'];
      expect(verifyWebhookSignature(mine.channel.secret, r.rawBody, header as string)).toBe(true);
    }

    const rows: { id: string; status: string; attempt_count: number; next_attempt_at: Date | null }[] =
      await db.knex('webhook_deliveries').whereIn(
        'id',
        batch.map((b) => b.id),
      );
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(fresh.id)).toMatchObject({
      status: 'succeeded',
      attempt_count: 1,
      next_attempt_at: null,
    });
    expect(byId.get(second.id)).toMatchObject({ status: 'succeeded', attempt_count: 1 });
    // The interrupted attempt is recorded as failed and the next one scheduled; nothing was sent.
    expect(byId.get(begun.id)).toMatchObject({ status: 'pending', attempt_count: 1 });
    expect(byId.get(begun.id)!.next_attempt_at).not.toBeNull();
    const begunAttempt = await db.knex('webhook_attempts').where({ delivery_id: begun.id }).first();
    expect(begunAttempt).toMatchObject({ outcome: 'failed' });
    expect(begunAttempt.error).toMatch(/^interrupted/);
    // Another merchant's delivery in the batch is neither sent nor touched.
    expect(byId.get(theirs.deliveries[0]!.id)).toMatchObject({ status: 'pending', attempt_count: 0 });
    expect(await db.knex('webhook_attempts').where({ delivery_id: theirs.deliveries[0]!.id })).toEqual([]);

    const again = await env.run((i: typeof input) => activities.attemptDeliveries(i), input);
    expect(again).toEqual({ succeeded: 0, failed: 0, skipped: 5, interrupted: 0 });
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.received).toHaveLength(2);
  } finally {
    await receiver.close();
  }
});

test('given its channel, the activity goes on with deliveries that fell due meanwhile', async () => {
  const receiver = await startReceiver();
  try {
    const { scope, channel, deliveries } = await channelWithEvents(receiver.url, 5);
    const activities = webhookActivities();
    const counts = await new MockActivityEnvironment().run(
      (i: Parameters<typeof activities.attemptDeliveries>[0]) => activities.attemptDeliveries(i),
      {
        ...scope,
        deliveries: [{ id: deliveries[0]!.id, attemptNumber: 1 }],
        schedule,
        concurrency: 2,
        channelId: channel.id,
        limit: 2,
      },
    );
    expect(counts).toEqual({ succeeded: 5, failed: 0, skipped: 0, interrupted: 0 });
    const sent = receiver.received.map((r) => String(r.headers['x-service-delivery-id'])).sort();
    expect(sent).toEqual(deliveries.map((d) => d.id).sort());
  } finally {
    await receiver.close();
  }
});
