import { verify } from '@octokit/webhooks-methods';
import { startTestStack, type TestStack, type TestMerchant } from '../helpers/stack';
import { startReceiver } from '../helpers/receiver';
import { scaledSchedule, WEBHOOK_RETRY_DELAYS_MS } from '../../domain/webhook-schedule';

// The production schedule divided by 1000: 0, 60 ms, 300 ms, 1.8 s, 7.2 s.
const schedule = scaledSchedule(1000);

let stack: TestStack;
let merchant: TestMerchant;

beforeAll(async () => {
  stack = await startTestStack({ schedule });
  merchant = await stack.merchant();
  // The worker's first workflow loads its code into a fresh isolate, which on a busy two-CPU machine
  // can alone take longer than the 2 s the first test allows a delivery. A deployment pays that once,
  // at start; warmed here by another merchant's channel, the tests time a channel's own first
  // delivery as it is in a running service.
  const warm = await stack.merchant();
  const receiver = await startReceiver();
  try {
    const channel = await createChannel(warm.testKey, receiver.url);
    await stack.api(warm.testKey, '/v1/notification-channels/test-webhooks', {
      method: 'POST',
      json: { channel: channel.id },
    });
    await receiver.waitFor(1, 30_000);
  } finally {
    await receiver.close();
  }
});
afterAll(async () => {
  await stack.stop();
});

async function createChannel(key: string, url: string, extra: Record<string, unknown> = {}) {
  const res = await stack.api(key, '/v1/notification-channels', {
    method: 'POST',
    json: { type: 'webhook', config: { url }, event_subscriptions: ['*'], ...extra },
  });
  expect(res.status).toBe(200);
  return res.body as { id: string; config: { url: string; secret: string } };
}

test('debug.check reaches the receiver within 2 s, signed so a standard verifier accepts it', async () => {
  const receiver = await startReceiver();
  try {
    const channel = await createChannel(merchant.testKey, receiver.url);
    expect(channel.config.secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);

    const sentAt = Date.now();
    const res = await stack.api(merchant.testKey, '/v1/notification-channels/test-webhooks', {
      method: 'POST',
      json: { channel: channel.id },
    });
    expect(res.status).toBe(200);
    const [hit] = await receiver.waitFor(1, 2000);
    expect(hit!.at - sentAt).toBeLessThan(2000);

    const raw = hit!.rawBody.toString('utf8');
    const signature = hit!.headers['x-service-signature'] as string;
    // @octokit/webhooks-methods is GitHub's verifier for the same `sha256=<hex HMAC>` scheme.
    await expect(verify(channel.config.secret, raw, signature)).resolves.toBe(true);
    await expect(verify('whsec_wrong', raw, signature)).resolves.toBe(false);
    expect(hit!.headers['x-service-event']).toBe('debug.check');
    expect(hit!.headers['x-service-delivery-id']).toBe(res.body.deliveries[0].id);

    // Spec §6.2, field for field.
    expect(Object.keys(hit!.body)).toEqual([
      'id',
      'type',
      'created_at',
      'data',
      'merchant_id',
      'environment',
    ]);
    expect(hit!.body).toMatchObject({ type: 'debug.check', merchant_id: merchant.id, environment: 'test' });
    expect(hit!.body.id).toMatch(/^evt_/);
    expect(hit!.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Object.keys(hit!.body.data)[0]).toBe('id');
  } finally {
    await receiver.close();
  }
});

test('a receiver that always answers 500 gets exactly 5 attempts on the (scaled) schedule', async () => {
  const receiver = await startReceiver(() => 500);
  try {
    const channel = await createChannel(merchant.testKey, receiver.url);
    const res = await stack.api(merchant.testKey, '/v1/notification-channels/test-webhooks', {
      method: 'POST',
      json: { channel: channel.id },
    });
    const deliveryId: string = res.body.deliveries[0].id;
    const eventId: string = res.body.deliveries[0].event;
    await receiver.waitFor(5, 20_000);

    // Gaps between attempts follow the schedule: each at least its delay, and not far beyond it (the
    // production schedule is minutes apart; a busy 2-core CI machine delays a timer's workflow task
    // by up to a couple of seconds, so "far" is 3 s).
    const times = receiver.received.map((r) => r.at);
    for (let i = 1; i < 5; i++) {
      const gap = times[i]! - times[i - 1]!;
      expect(gap).toBeGreaterThanOrEqual(schedule[i]! - 5);
      expect(gap).toBeLessThan(schedule[i]! + 3000);
    }

    // Nothing more arrives after the fifth.
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.received).toHaveLength(5);

    const delivery = await stack.api(
      merchant.testKey,
      `/v1/notification-channels/${channel.id}/deliveries/${deliveryId}`,
    );
    expect(delivery.body).toMatchObject({ status: 'failed', attempt_count: 5, next_attempt_at: null });
    expect(delivery.body.attempts).toHaveLength(5);
    for (const [i, attempt] of (delivery.body.attempts as any[]).entries()) {
      expect(attempt).toMatchObject({ attempt: i + 1, outcome: 'failed', response_status: 500 });
      expect(attempt.latency_ms).toBeGreaterThanOrEqual(0);
      expect(attempt.error).toContain('HTTP 500');
    }

    // The event stays readable in the ledger.
    const events = await stack.api(merchant.testKey, '/v1/events?limit=100');
    expect(events.body.data.map((e: { id: string }) => e.id)).toContain(eventId);

    // A failed delivery can be resent: one more attempt, now.
    const resent = await stack.api(
      merchant.testKey,
      `/v1/notification-channels/${channel.id}/deliveries/${deliveryId}/resend`,
      {
        method: 'POST',
      },
    );
    expect(resent.status).toBe(200);
    await receiver.waitFor(6, 5000);
    await new Promise((r) => setTimeout(r, 500));
    const after = await stack.api(
      merchant.testKey,
      `/v1/notification-channels/${channel.id}/deliveries/${deliveryId}`,
    );
    expect(after.body).toMatchObject({ status: 'failed', attempt_count: 6 });
  } finally {
    await receiver.close();
  }
});

test('the production schedule is 0, 1 min, 5 min, 30 min and 2 h', () => {
  expect(WEBHOOK_RETRY_DELAYS_MS).toEqual([0, 60_000, 5 * 60_000, 30 * 60_000, 2 * 60 * 60_000]);
});

test('test and live channels have separate secrets; a channel only gets the types it subscribed to', async () => {
  const own = await stack.merchant('Subscriber');
  const test = await createChannel(own.testKey, 'http://localhost:9/hook', {
    event_subscriptions: ['claim.paid'],
  });
  const other = await createChannel(own.testKey, 'http://localhost:9/hook', {
    event_subscriptions: ['subscription.renewed'],
  });
  // 198.51.100.0/24 is documentation space, which is "reserved", so use a public literal instead.
  const live = await createChannel(own.liveKey, 'https://93.184.215.14/hook', {
    event_subscriptions: ['claim.paid'],
  });
  expect(new Set([test.config.secret, other.config.secret, live.config.secret]).size).toBe(3);

  const { createEventRepository } = await import('../../db/events');
  const recorded = await stack.knex.transaction((trx) =>
    createEventRepository(trx).record(
      { merchantId: own.id, livemode: false },
      { type: 'claim.paid', data: { id: 'clm_1', amount: 5000 } },
    ),
  );
  // Only the test channel that subscribed to claim.paid: not the other type, not the live channel.
  expect(recorded.channelIds).toEqual([test.id]);
});

test('a chat channel gets one readable line as { text }', async () => {
  const receiver = await startReceiver();
  try {
    const res = await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      json: { type: 'chat', config: { url: receiver.url }, event_subscriptions: ['*'] },
    });
    await stack.api(merchant.testKey, '/v1/notification-channels/test-webhooks', {
      method: 'POST',
      json: { channel: res.body.id },
    });
    const [hit] = await receiver.waitFor(1, 5000);
    expect(Object.keys(hit!.body)).toEqual(['text']);
    expect(hit!.body.text).toMatch(/^\[test\] debug\.check nc_\w+ \(evt_\w+\)$/);
  } finally {
    await receiver.close();
  }
});
