import { sharedTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { createMerchantUser, WebClient, type TestUser } from '../helpers/accounts';
import { startReceiver } from '../helpers/receiver';
import { until } from '../helpers/until';

/**
 * The dashboard's webhook pages (decision 0147) through their forms: what they refuse and
 * how, who may use them, that the signing secret is only in the answer to the reveal action, and a
 * delivery resent from its channel's page by several clicks at once goes out once per finished
 * delivery.
 */

let stack: TestStack;
let m: TestMerchant;
let other: TestMerchant;
let developer: TestUser;
let finance: TestUser;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  [stack, receiver] = await Promise.all([sharedTestStack(), startReceiver()]);
  [m, other] = await Promise.all([stack.merchant('Krókar ehf.'), stack.merchant('Annar ehf.')]);
  [developer, finance] = await Promise.all([
    createMerchantUser(stack.knex, m.id, 'developer'),
    createMerchantUser(stack.knex, m.id, 'finance'),
  ]);
});
afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
});

async function signedIn(u: TestUser): Promise<WebClient> {
  const web = new WebClient(stack.url);
  expect((await web.signIn(u.email, u.password)).status).toBe(303);
  return web;
}

const channelsOf = async (key: string) =>
  (await stack.api(key, '/v1/notification-channels')).body.data as { id: string }[];

test('create: bad input is a 400 with the field named, nothing made; the secret only on reveal', async () => {
  const web = await signedIn(developer);
  expect((await web.get('/dashboard/webhooks')).status).toBe(200);
  const cases: [Record<string, string>, RegExp][] = [
    [{ url: 'not a url', events: '*' }, /config\.url/],
    [{ url: 'http://10.1.2.3/hook', events: '*' }, /needs a public or loopback host.*\(config\.url\)/],
    [{ url: 'ftp://example.test/x', events: '*' }, /http or https URL \(config\.url\)/],
    [{ url: '', events: '*' }, /config\.url/],
    [{ url: receiver.url }, /event_subscriptions/],
    [{ url: receiver.url, events: 'no.such_event' }, /event_subscriptions/],
    [{ url: receiver.url, events: '*', description: 'x'.repeat(501) }, /\(description\)/],
  ];
  for (const [form, message] of cases) {
    await web.get('/dashboard/webhooks');
    const res = await web.post('/dashboard/webhooks', form);
    expect({ form, status: res.status }).toEqual({ form, status: 400 });
    expect(res.text).toMatch(message);
    expect(res.text).toContain('<form method="post" action="/dashboard/webhooks">');
  }
  await web.get('/dashboard/webhooks');
  expect(
    (await web.post('/dashboard/webhooks', { _csrf: 'x'.repeat(32), url: receiver.url, events: '*' })).status,
  ).toBe(403);
  expect(await channelsOf(m.testKey)).toEqual([]);

  await web.get('/dashboard/webhooks');
  const made = await web.post('/dashboard/webhooks', {
    url: receiver.url,
    events: 'payment_intent.refunded',
    description: 'Bókhald',
  });
  expect(made.status).toBe(303);
  const id = /^\/dashboard\/webhooks\/(nc_[0-9A-Za-z]+)$/.exec(made.location ?? '')?.[1];
  expect(id).toBeDefined();
  const channel = (await stack.api(m.testKey, `/v1/notification-channels/${id}`)).body;
  expect(channel).toMatchObject({
    config: { url: receiver.url },
    event_subscriptions: ['payment_intent.refunded'],
    description: 'Bókhald',
    livemode: false,
  });
  const secret = channel.config.secret as string;
  const page = await web.get(`/dashboard/webhooks/${id}`);
  expect(page.status).toBe(200);
  expect(page.text).not.toContain(secret);
  expect(page.text).toContain('Reveal signing secret');
  // In Icelandic too, and the form's refusals with it.
  const is = await web.get(`/dashboard/webhooks/${id}?lang=is`);
  expect(is.text).toContain('<html lang="is">');
  expect(is.text).toContain('Sýna undirritunarlykil');
  await web.get('/dashboard/webhooks');
  expect((await web.post('/dashboard/webhooks', { url: receiver.url })).text).toContain(
    'Veldu minnst einn atburð (event_subscriptions).',
  );
  await web.get(`/dashboard/webhooks/${id}?lang=en`);
  const revealed = await web.post(`/dashboard/webhooks/${id}/secret`, {});
  expect(revealed.status).toBe(200);
  expect(revealed.text).toMatch(new RegExp(`data-testid="signing-secret"[^>]*>\\s*${secret}\\s*</code`));
  expect(revealed.headers.get('cache-control')).toBe('no-store');

  // Another merchant's channel is not found, nor its secret; in live mode this one is not either.
  const theirs = await stack.api(other.testKey, '/v1/notification-channels', {
    method: 'POST',
    json: { type: 'webhook', config: { url: receiver.url }, event_subscriptions: ['*'] },
  });
  expect((await web.get(`/dashboard/webhooks/${theirs.body.id}`)).status).toBe(404);
  const stolen = await web.post(`/dashboard/webhooks/${theirs.body.id}/secret`, {});
  expect(stolen.status).toBe(404);
  expect(stolen.text).not.toContain(theirs.body.config.secret);
  expect((await web.get(`/dashboard/webhooks/${id}?mode=live`)).status).toBe(404);
});

test('a finance member opens no webhook page and changes nothing there', async () => {
  const channel = await stack.api(m.testKey, '/v1/notification-channels', {
    method: 'POST',
    json: { type: 'webhook', config: { url: receiver.url }, event_subscriptions: ['debug.check'] },
  });
  // An event to try to resend: a payment's, which this channel does not subscribe to.
  const paid = await stack.api(m.testKey, '/v1/payment-intents', {
    method: 'POST',
    json: {
      amount: 1500,
      confirm: true,
      card: { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' },
    },
  });
  expect(paid.body.status).toBe('succeeded');
  const event = (await stack.api(m.testKey, '/v1/events?limit=1')).body.data[0];
  expect(event).toBeDefined();
  const web = await signedIn(finance);
  expect((await web.get('/dashboard/webhooks')).status).toBe(403);
  expect((await web.get(`/dashboard/webhooks/${channel.body.id}`)).status).toBe(403);
  await web.get('/dashboard/home');
  const before = (await channelsOf(m.testKey)).length;
  const attempts = [
    ['/dashboard/webhooks', { url: receiver.url, events: '*' }],
    [`/dashboard/webhooks/${channel.body.id}/secret`, {}],
    [`/dashboard/webhooks/${channel.body.id}/test`, {}],
    [`/dashboard/webhooks/${channel.body.id}/disable`, {}],
    [`/dashboard/events/${event.id}/resend`, { channel: channel.body.id }],
  ] as [string, Record<string, string>][];
  for (const [path, form] of attempts) {
    const res = await web.post(path, { _csrf: web.csrf()!, ...form });
    expect({ path, status: res.status }).toEqual({ path, status: 403 });
    expect(res.text).not.toContain(channel.body.config.secret);
  }
  expect((await channelsOf(m.testKey)).length).toBe(before);
  const deliveries = await stack.api(m.testKey, `/v1/notification-channels/${channel.body.id}/deliveries`);
  expect(deliveries.body.data).toEqual([]);
  expect((await stack.api(m.testKey, `/v1/notification-channels/${channel.body.id}`)).body.status).toBe(
    'enabled',
  );
});

test('a test event, then resend clicked five times at once, three times over: each round sends once', async () => {
  const web = await signedIn(developer);
  await web.get('/dashboard/webhooks');
  const made = await web.post('/dashboard/webhooks', { url: receiver.url, events: 'debug.check' });
  const id = made.location!.split('/').pop()!;
  const start = receiver.received.length;
  await web.get(`/dashboard/webhooks/${id}`);
  const sent = await web.post(`/dashboard/webhooks/${id}/test`, {});
  expect(sent.status).toBe(200);
  expect(sent.text).toContain(`A debug.check event is on its way to ${receiver.url}`);
  await receiver.waitFor(start + 1, 20_000);
  const finished = () =>
    until(
      () => stack.api(m.testKey, `/v1/notification-channels/${id}/deliveries`),
      (r) => r.body.data.length === 1 && r.body.data[0].status === 'succeeded',
      20_000,
    );
  const delivery = (await finished()).body.data[0].id as string;
  const csrf = web.csrf()!;
  for (let round = 1; round <= 3; round++) {
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        web.post(`/dashboard/webhooks/${id}/deliveries/${delivery}/resend`, { _csrf: csrf }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409]);
    expect(answers.find((a) => a.status === 200)!.text).toContain(
      `Delivery ${delivery} is being sent again.`,
    );
    for (const a of answers.filter((x) => x.status === 409)) expect(a.text).toContain('still pending');
    await receiver.waitFor(start + 1 + round, 20_000);
    await finished();
  }
  const mine = receiver.received.slice(start);
  expect(mine.map((r) => r.body.type)).toEqual(Array(4).fill('debug.check'));
  expect(new Set(mine.map((r) => r.body.id)).size).toBe(1);
  // The channel's page shows the one delivery with its four attempts, each answered 200.
  const page = await web.get(`/dashboard/webhooks/${id}`);
  const attempts = page.text.match(/<li data-outcome="succeeded">\s*#\d: succeeded, HTTP 200/g) ?? [];
  expect(attempts).toHaveLength(4);
});

test("a channel's page shows its newest 25 deliveries and pages to older ones", async () => {
  const made = await stack.api(m.testKey, '/v1/notification-channels', {
    method: 'POST',
    json: { type: 'webhook', config: { url: receiver.url }, event_subscriptions: ['debug.check'] },
  });
  const id = made.body.id as string;
  for (let i = 0; i < 26; i++) {
    const sent = await stack.api(m.testKey, '/v1/notification-channels/test-webhooks', {
      method: 'POST',
      json: { channel: id },
    });
    expect(sent.status).toBe(200);
  }
  const all = (await stack.api(m.testKey, `/v1/notification-channels/${id}/deliveries?limit=100`)).body
    .data as { id: string }[];
  expect(all).toHaveLength(26);
  const web = await signedIn(developer);
  const rowsOf = (text: string) => [...text.matchAll(/<tr data-delivery="([^"]+)"/g)].map((x) => x[1]);
  const first = await web.get(`/dashboard/webhooks/${id}`);
  expect(rowsOf(first.text)).toEqual(all.slice(0, 25).map((d) => d.id));
  const older = /href="(\/dashboard\/webhooks\/[^"]+\?after=[^"]+)">Older deliveries</.exec(first.text)?.[1];
  expect(older).toBe(`/dashboard/webhooks/${id}?after=${all[24]!.id}`);
  const second = await web.get(older!);
  expect(rowsOf(second.text)).toEqual([all[25]!.id]);
  expect(second.text).not.toContain('Older deliveries');
  // A cursor that is no delivery of this channel is refused as the API refuses it, not a 500.
  const bad = await web.get(`/dashboard/webhooks/${id}?after=whd_doesnotexist1`);
  expect(bad.status).toBeGreaterThanOrEqual(400);
  expect(bad.status).toBeLessThan(500);
});
