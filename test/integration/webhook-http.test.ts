import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestStack, type TestStack } from '../helpers/stack';

// One attempt only, and a 300 ms per-attempt limit standing in for production's 30 s.
let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ schedule: [0], webhookAttemptTimeoutMs: 300 });
});
afterAll(async () => {
  await stack.stop();
});

async function serve(handler: http.RequestListener) {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, hits, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function deliverOnce(url: string, merchant?: { testKey: string }) {
  const m = merchant ?? (await stack.merchant());
  const channel = await stack.api(m.testKey, '/v1/notification-channels', {
    method: 'POST',
    json: { type: 'webhook', config: { url }, event_subscriptions: ['*'] },
  });
  const sent = await stack.api(m.testKey, '/v1/notification-channels/test-webhooks', {
    method: 'POST',
    json: {},
  });
  const path = `/v1/notification-channels/${channel.body.id}/deliveries/${sent.body.deliveries[0].id}`;
  for (let i = 0; i < 100; i++) {
    const d = await stack.api(m.testKey, path);
    if (d.body.status !== 'pending') return d.body;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('delivery still pending');
}

test('a redirect is a failure and is not followed', async () => {
  const target = await serve((req, res) => {
    if (req.url === '/hook') {
      res.writeHead(302, { location: '/elsewhere' }).end();
    } else {
      res.writeHead(200).end();
    }
  });
  try {
    const delivery = await deliverOnce(`${target.base}/hook`);
    expect(delivery.status).toBe('failed');
    expect(delivery.attempts[0]).toMatchObject({ response_status: 302, outcome: 'failed' });
    expect(delivery.attempts[0].error).toContain('not followed');
    expect(target.hits).toEqual(['/hook']);
  } finally {
    await target.close();
  }
});

test('only a 2xx counts: 204 succeeds, 304 and 404 fail', async () => {
  for (const [status, outcome] of [
    [204, 'succeeded'],
    [304, 'failed'],
    [404, 'failed'],
  ] as const) {
    const target = await serve((_req, res) => res.writeHead(status).end());
    try {
      const delivery = await deliverOnce(`${target.base}/hook`);
      expect(delivery.attempts[0]).toMatchObject({ response_status: status, outcome });
    } finally {
      await target.close();
    }
  }
});

test('an answer slower than the attempt limit is a timeout', async () => {
  const target = await serve((_req, res) => {
    setTimeout(() => res.writeHead(200).end(), 1500);
  });
  try {
    const delivery = await deliverOnce(`${target.base}/hook`);
    expect(delivery.status).toBe('failed');
    expect(delivery.attempts[0].response_status).toBeNull();
    expect(delivery.attempts[0].error).toBe('timed out after 300 ms');
    expect(delivery.attempts[0].latency_ms).toBeLessThan(1200);
  } finally {
    await target.close();
  }
});

test('a refused connection is recorded as a failed attempt with its error', async () => {
  const delivery = await deliverOnce('http://127.0.0.1:9/hook');
  expect(delivery.status).toBe('failed');
  expect(delivery.attempts[0].error).toMatch(/ECONNREFUSED/);
});

test('a reply from a loopback receiver is never read back: the attempt shows its status only (decision 0225)', async () => {
  const secret = `internal-secret-${Math.random().toString(36).slice(2)}`;
  // A local service that answers anyone with something only the host should see, as an error page
  // and as a redirect, the two ways a reply used to reach an attempt's error.
  const target = await serve((req, res) => {
    if (req.url === '/moved') res.writeHead(302, { location: `/${secret}` }).end(secret);
    else res.writeHead(500, { 'content-type': 'text/plain' }).end(`token=${secret}`);
  });
  try {
    const m = await stack.merchant();
    for (const [path, status, error] of [
      ['/admin', 500, 'HTTP 500'],
      ['/moved', 302, 'HTTP 302 (redirect not followed)'],
    ] as const) {
      const delivery = await deliverOnce(`${target.base}${path}`, m);
      expect(delivery.attempts[0]).toMatchObject({ response_status: status, outcome: 'failed', error });
      // Nowhere in what the API gives the merchant: the delivery, the list of deliveries, the channel.
      const channelPath = `/v1/notification-channels/${delivery.channel}`;
      for (const read of [
        `${channelPath}/deliveries/${delivery.id}`,
        `${channelPath}/deliveries`,
        channelPath,
      ]) {
        const res = await stack.api(m.testKey, read);
        expect(res.status).toBe(200);
        expect(res.text).not.toContain(secret);
      }
    }
  } finally {
    await target.close();
  }
});
