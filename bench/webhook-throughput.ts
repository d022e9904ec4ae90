import os from 'node:os';
import { withStack } from './harness';
import { startReceiver } from '../test/helpers/receiver';
import { createEventRepository } from '../db/events';
import { createWebhookDispatcher } from '../engine/webhook-dispatch';

/**
 * How fast committed events reach a receiver: E events to each of C channels, recorded in one
 * transaction, then one wake-up per channel; timed until the receiver has every delivery.
 * Run: npx tsx bench/webhook-throughput.ts [events=2000] [channels=4]
 */
async function main(): Promise<void> {
  const events = Number(process.argv[2] ?? 2000);
  const channelCount = Number(process.argv[3] ?? 4);
  await withStack({}, async (stack) => {
    const receiver = await startReceiver();
    const m = await stack.merchant();
    const channels: string[] = [];
    for (let i = 0; i < channelCount; i++) {
      const res = await stack.api(m.testKey, '/v1/notification-channels', {
        method: 'POST',
        json: { type: 'webhook', config: { url: receiver.url }, event_subscriptions: ['claim.paid'] },
      });
      channels.push(res.body.id);
    }
    const scope = { merchantId: m.id, livemode: false };
    const recordStart = performance.now();
    await stack.knex.transaction(async (trx) => {
      const repo = createEventRepository(trx);
      for (let i = 0; i < events; i++)
        await repo.record(scope, { type: 'claim.paid', data: { id: `clm_${i}`, amount: 1000 + i } });
    });
    const recordMs = performance.now() - recordStart;
    const total = events * channelCount;
    const start = performance.now();
    await createWebhookDispatcher({
      client: stack.client,
      knex: stack.knex,
      taskQueue: stack.taskQueue,
    }).wake(channels);
    await receiver.waitFor(total, 600_000);
    const seconds = (performance.now() - start) / 1000;
    const duplicates =
      total - new Set(receiver.received.map((r) => `${String(r.headers['x-service-delivery-id'])}`)).size;
    const result = {
      bench: 'webhook-throughput',
      events,
      channels: channelCount,
      deliveries: total,
      record_events_per_s: Math.round(events / (recordMs / 1000)),
      deliver_seconds: Number(seconds.toFixed(2)),
      deliveries_per_s: Math.round(total / seconds),
      duplicates,
      rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20),
      cpus: os.cpus().length,
    };
    console.log(JSON.stringify(result));
    await receiver.close();
  });
}

void main();
