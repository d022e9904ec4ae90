import type { ChildProcess } from 'node:child_process';
import { startTestStack, type TestStack } from '../helpers/stack';
import { startReceiver } from '../helpers/receiver';
import { killHard, spawnWorker } from '../helpers/worker-process';

// Attempt 2 falls due 4 s after attempt 1 fails: the worker is dead by then.
const schedule = [0, 4000, 4000, 4000, 4000];

let stack: TestStack;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  stack = await startTestStack({ schedule, worker: false });
});
afterAll(async () => {
  await Promise.all(workers.map(killHard));
  await stack.stop();
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('killing the worker between attempts loses no delivery and sends no extra one', async () => {
  // Each delivery fails its first attempt and succeeds on its second.
  const seen = new Map<string, number>();
  const hooked = await startReceiver((_n, headers) => {
    const id = String(headers['x-service-delivery-id']);
    seen.set(id, (seen.get(id) ?? 0) + 1);
    return seen.get(id) === 1 ? 500 : 200;
  });

  try {
    const merchant = await stack.merchant();
    const channels: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await stack.api(merchant.testKey, '/v1/notification-channels', {
        method: 'POST',
        json: { type: 'webhook', config: { url: hooked.url }, event_subscriptions: ['*'] },
      });
      channels.push(res.body.id);
    }

    workers.push(await spawnWorker(stack));
    const sent = await stack.api(merchant.testKey, '/v1/notification-channels/test-webhooks', {
      method: 'POST',
      json: {},
    });
    expect(sent.body.deliveries).toHaveLength(2);
    const ids: string[] = sent.body.deliveries.map((d: { id: string }) => d.id);

    // Both first attempts fail and are recorded; then the worker dies before the retries.
    await waitUntil(async () => {
      const rows = await stack.knex('webhook_deliveries').whereIn('id', ids).where('attempt_count', 1);
      return rows.length === 2;
    }, 15_000);
    await killHard(workers[0]!);
    expect(hooked.received).toHaveLength(2);

    // The retries fall due while no worker runs: nothing can be sent.
    await new Promise((r) => setTimeout(r, 5000));
    expect(hooked.received).toHaveLength(2);

    workers.push(await spawnWorker(stack));
    // A delivery batch the killed worker was still running is retried only when its heartbeat
    // times out (1 minute, webhook-channel.ts), so allow a little more than that.
    await hooked.waitFor(4, 75_000);
    await waitUntil(async () => {
      const rows = await stack.knex('webhook_deliveries').whereIn('id', ids).where('status', 'succeeded');
      return rows.length === 2;
    }, 10_000);

    // Give any duplicate time to show up, then count: exactly two attempts per delivery.
    await new Promise((r) => setTimeout(r, 2000));
    expect(hooked.received).toHaveLength(4);
    for (const id of ids) expect(seen.get(id)).toBe(2);
    const attempts = await stack
      .knex('webhook_attempts')
      .whereIn('delivery_id', ids)
      .orderBy(['delivery_id', 'attempt_number']);
    expect(attempts.map((a: { outcome: string }) => a.outcome)).toEqual([
      'failed',
      'succeeded',
      'failed',
      'succeeded',
    ]);
  } finally {
    await hooked.close();
  }
  // Over two minutes allowed: the killed worker's batch is retried only after its one-minute
  // heartbeat timeout (above), with two worker starts around it; 101 s on a loaded CI machine.
}, 150_000);
