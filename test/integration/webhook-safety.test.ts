import dns, { type LookupAddress } from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestStack, type TestStack, type TestMerchant } from '../helpers/stack';
import { spawnApi } from '../helpers/api-process';

// One attempt per delivery, and a 2 s per-attempt limit standing in for production's 30 s.
let stack: TestStack;
let merchant: TestMerchant;

beforeAll(async () => {
  stack = await startTestStack({ schedule: [0], webhookAttemptTimeoutMs: 2000 });
  merchant = await stack.merchant();
});
afterAll(async () => {
  await stack.stop();
});

function createChannel(key: string, url: string) {
  return stack.api(key, '/v1/notification-channels', {
    method: 'POST',
    json: { type: 'webhook', config: { url }, event_subscriptions: ['*'] },
  });
}

/** Sends a debug.check to one channel and waits for its delivery to finish. */
async function deliverOnce(key: string, channelId: string) {
  const sent = await stack.api(key, '/v1/notification-channels/test-webhooks', {
    method: 'POST',
    json: { channel: channelId },
  });
  expect(sent.status).toBe(200);
  const path = `/v1/notification-channels/${channelId}/deliveries/${sent.body.deliveries[0].id}`;
  for (let i = 0; i < 200; i++) {
    const d = await stack.api(key, path);
    if (d.body.status !== 'pending') return d.body;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('delivery still pending');
}

/** An endpoint that counts requests and closes every connection, so each delivery connects anew. */
async function serve(handler: http.RequestListener = (_req, res) => res.end('ok')) {
  let hits = 0;
  const server = http.createServer((req, res) => {
    hits += 1;
    res.setHeader('connection', 'close');
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    hits: () => hits,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

test('a test channel may reach public addresses and loopback, never private, link-local, CGNAT, unique-local, metadata or unspecified ones', async () => {
  const refused = [
    'http://169.254.169.254/latest/meta-data/',
    'http://[::ffff:169.254.169.254]/latest/meta-data/',
    'http://[fd00:ec2::254]/latest/meta-data/',
    'http://10.0.0.8/hook',
    'http://172.16.4.2/hook',
    'http://192.168.1.20/hook',
    'http://100.64.0.1/hook',
    'http://[fd00::1]/hook',
    'http://[fe80::1]/hook',
    'http://0.0.0.0:8080/hook',
    'http://[::]/hook',
    'http://[::ffff:10.0.0.8]/hook',
  ];
  for (const url of refused) {
    const res = await createChannel(merchant.testKey, url);
    expect({ url, status: res.status, error: res.body?.error }).toEqual({
      url,
      status: 400,
      error: expect.objectContaining({
        type: 'invalid_request_error',
        code: 'url_not_public',
        param: 'config.url',
      }),
    });
  }
  for (const url of [
    'http://localhost:9/hook',
    'http://127.0.0.1:9/hook',
    'http://[::1]:9/hook',
    'https://93.184.215.14/hook',
  ]) {
    const res = await createChannel(merchant.testKey, url);
    expect({ url, status: res.status }).toEqual({ url, status: 200 });
  }

  // Changing the URL is held to the same rule.
  const ok = await createChannel(merchant.testKey, 'http://127.0.0.1:9/hook');
  const patched = await stack.api(merchant.testKey, `/v1/notification-channels/${ok.body.id}`, {
    method: 'PATCH',
    json: { config: { url: 'http://10.1.2.3/hook' } },
  });
  expect(patched.status).toBe(400);
  expect(patched.body.error).toMatchObject({ code: 'url_not_public', param: 'config.url' });
});

test('the resolved address is checked again at every connection: a name re-pointed at a refused address gets nothing', async () => {
  const target = await serve();
  // A DNS answer that changes after the channel is saved (DNS rebinding). 0.0.0.0 reaches this very
  // host on Linux, so without a check at connect time the request would land on the endpoint.
  const name = 'hooks.rebind.test';
  let answer = '127.0.0.1';
  const realLookup = dns.lookup;
  const fake = jest
    .spyOn(dns, 'lookup')
    .mockImplementation((hostname: string, options: unknown, callback?: (...args: unknown[]) => void) => {
      const cb = (typeof options === 'function' ? options : callback) as (...args: unknown[]) => void;
      const opts = (typeof options === 'object' && options !== null ? options : {}) as { all?: boolean };
      if (hostname !== name) return (realLookup as (...args: unknown[]) => void)(hostname, options, callback);
      const list: LookupAddress[] = [{ address: answer, family: 4 }];
      process.nextTick(() => (opts.all ? cb(null, list) : cb(null, answer, 4)));
    });
  const fakePromise = jest
    .spyOn(dns.promises, 'lookup')
    .mockImplementation(((hostname: string, options?: { all?: boolean }) =>
      hostname === name
        ? Promise.resolve(options?.all ? [{ address: answer, family: 4 }] : { address: answer, family: 4 })
        : Promise.reject(
            Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }),
          )) as unknown as typeof dns.promises.lookup);
  try {
    const channel = await createChannel(merchant.testKey, `http://${name}:${target.port}/hook`);
    expect(channel.status).toBe(200);
    const first = await deliverOnce(merchant.testKey, channel.body.id);
    expect(first.status).toBe('succeeded');
    expect(target.hits()).toBe(1);

    answer = '0.0.0.0';
    const second = await deliverOnce(merchant.testKey, channel.body.id);
    expect(second.status).toBe('failed');
    expect(second.attempts[0].response_status).toBeNull();
    expect(second.attempts[0].error).toContain('0.0.0.0');
    expect(target.hits()).toBe(1);
  } finally {
    fake.mockRestore();
    fakePromise.mockRestore();
    await target.close();
  }
});

test("a loopback receiver's reply is not kept, and the attempt does not wait for the rest of it", async () => {
  // A 500 with a huge redirect target and a body that never ends, NUL bytes included.
  const target = await serve((_req, res) => {
    res.writeHead(500, { location: `https://elsewhere.example/${'l'.repeat(10_000)}` });
    res.write(`oops\u0000${'x'.repeat(64 * 1024)}`);
  });
  try {
    const channel = await createChannel(merchant.testKey, `http://127.0.0.1:${target.port}/hook`);
    const delivery = await deliverOnce(merchant.testKey, channel.body.id);
    expect(delivery.status).toBe('failed');
    const [attempt] = delivery.attempts;
    expect(attempt.response_status).toBe(500);
    expect(attempt.error).toMatch(/^HTTP 500/);
    // Not a public address: the status only, never what the receiver said (decision 0225).
    expect(attempt.error).not.toContain('oops');
    expect(attempt.error).not.toContain('\u0000');
    expect(Buffer.byteLength(attempt.error)).toBeLessThanOrEqual(1400);
    expect(attempt.latency_ms).toBeLessThan(1500);
  } finally {
    await target.close();
  }
});

test('an operator may allow private ranges by configuration, in both modes; nothing else opens', async () => {
  const url = 'http://10.20.30.40/hook';
  expect((await createChannel(merchant.testKey, url)).status).toBe(400);

  const api = await spawnApi(stack, { WEBHOOK_ALLOW_PRIVATE_RANGES: '10.20.0.0/16, fd12:3456::/32' });
  try {
    const post = (key: string, to: string) =>
      fetch(`${api.url}/v1/notification-channels`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'webhook', config: { url: to }, event_subscriptions: ['*'] }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    expect((await post(merchant.testKey, url)).status).toBe(200);
    expect((await post(merchant.testKey, 'http://[fd12:3456::9]/hook')).status).toBe(200);
    expect((await post(merchant.liveKey, 'https://10.20.30.40/hook')).status).toBe(200);
    for (const other of [
      'http://10.21.0.1/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00::1]/hook',
      'http://0.0.0.0/hook',
    ]) {
      const res = await post(merchant.testKey, other);
      expect({ other, status: res.status, code: res.body.error?.code }).toEqual({
        other,
        status: 400,
        code: 'url_not_public',
      });
    }
  } finally {
    await api.stop();
  }
});
