import { startTestStack, type TestStack, type TestMerchant } from '../helpers/stack';
import { startReceiver } from '../helpers/receiver';
import { WebClient, createMerchantUser } from '../helpers/accounts';
import { until } from '../helpers/until';

// One attempt per delivery, so each debug.check that meets a failing endpoint fails for good at once.
// The worker's clock is this test's: moving it forward stands in for days passing.
let offsetMs = 0;
const clock = () => new Date(Date.now() + offsetMs);
const HOUR = 3600_000;

let stack: TestStack;
let merchant: TestMerchant;

beforeAll(async () => {
  stack = await startTestStack({ schedule: [0], webhookClock: clock });
  merchant = await stack.merchant();
});
afterAll(async () => {
  await stack.stop();
});

async function createChannel(url: string, subscriptions = ['debug.check']) {
  const res = await stack.api(merchant.testKey, '/v1/notification-channels', {
    method: 'POST',
    json: { type: 'webhook', config: { url }, event_subscriptions: subscriptions },
  });
  expect(res.status).toBe(200);
  return res.body.id as string;
}

/** Sends `n` debug.check events to a channel, one after another, and waits until each has finished. */
async function deliver(channelId: string, n: number) {
  for (let i = 0; i < n; i++) {
    const sent = await stack.api(merchant.testKey, '/v1/notification-channels/test-webhooks', {
      method: 'POST',
      json: { channel: channelId },
    });
    expect(sent.status).toBe(200);
    const path = `/v1/notification-channels/${channelId}/deliveries/${sent.body.deliveries[0].id}`;
    await until(
      () => stack.api(merchant.testKey, path),
      (d) => d.body.status !== 'pending',
      20_000,
    );
  }
}

const channel = async (id: string) =>
  (await stack.api(merchant.testKey, `/v1/notification-channels/${id}`)).body;

test('a channel whose last 20 deliveries all failed is disabled, with an event, a dashboard notice, and can be re-enabled', async () => {
  const failing = await startReceiver(() => 500);
  const watcher = await startReceiver();
  try {
    const id = await createChannel(failing.url);
    // Another channel of the merchant, subscribed to everything, hears about it.
    const watcherId = await createChannel(watcher.url, ['*']);

    await deliver(id, 19);
    expect((await channel(id)).status).toBe('enabled');
    await deliver(id, 1);
    const disabled = await channel(id);
    expect(disabled).toMatchObject({ status: 'disabled', disabled_reason: 'failing_deliveries' });
    expect(typeof disabled.disabled_at).toBe('number');

    const events = await stack.api(merchant.testKey, '/v1/events?type=notification_channel.disabled');
    expect(events.body.data).toHaveLength(1);
    expect(events.body.data[0].data).toMatchObject({
      id,
      object: 'notification_channel',
      status: 'disabled',
      disabled_reason: 'failing_deliveries',
    });
    expect(events.body.data[0].data.config.secret).toBeUndefined();
    const heard = await watcher.waitFor(1);
    expect(heard.find((r) => r.body.type === 'notification_channel.disabled')?.body.data.id).toBe(id);
    expect((await channel(watcherId)).status).toBe('enabled');

    // The dashboard says so, and re-enables it.
    const user = await createMerchantUser(stack.knex, merchant.id);
    const web = new WebClient(stack.url);
    await web.signIn(user.email, user.password);
    const page = await web.get('/dashboard/webhooks');
    expect(page.status).toBe(200);
    expect(page.text).toContain(id);
    expect(page.text).toMatch(/disabled[^<]*after 20 deliveries failed/i);
    const enabled = await web.post(`/dashboard/webhooks/${id}/enable`, { mode: 'test' });
    expect(enabled.status).toBeLessThan(400);
    expect((await channel(id)).status).toBe('enabled');
    expect((await channel(id)).disabled_reason).toBeNull();

    // Counting starts again from the re-enabling: one more failure does not disable it again.
    await deliver(id, 1);
    expect((await channel(id)).status).toBe('enabled');

    // And through the API.
    await stack.api(merchant.testKey, `/v1/notification-channels/${id}`, {
      method: 'PATCH',
      json: { status: 'disabled' },
    });
    expect((await channel(id)).disabled_reason).toBe('requested');
    const patched = await stack.api(merchant.testKey, `/v1/notification-channels/${id}`, {
      method: 'PATCH',
      json: { status: 'enabled' },
    });
    expect(patched.body).toMatchObject({ status: 'enabled', disabled_reason: null, disabled_at: null });
  } finally {
    await failing.close();
    await watcher.close();
  }
});

test('only the last 72 hours count: a success within them keeps the channel, an older one does not', async () => {
  let answer = 200;
  const receiver = await startReceiver(() => answer);
  try {
    const id = await createChannel(receiver.url);
    await deliver(id, 1);
    answer = 500;
    await deliver(id, 20);
    // Twenty failures, but a success among the deliveries of the last 72 hours.
    expect((await channel(id)).status).toBe('enabled');

    offsetMs += 73 * HOUR;
    await deliver(id, 19);
    expect((await channel(id)).status).toBe('enabled');
    await deliver(id, 1);
    expect((await channel(id)).status).toBe('disabled');
  } finally {
    await receiver.close();
  }
});
