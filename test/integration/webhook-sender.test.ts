import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { postWebhook } from '../../adapters/http/webhook-sender';

test('test and live deliveries never share a connection pool', async () => {
  // A keep-alive endpoint that counts the connections opened to it.
  let connections = 0;
  const server = http.createServer((_req, res) => res.end('ok'));
  server.on('connection', () => (connections += 1));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  // Loopback is refused to live channels; an operator setting lets it through for this test.
  const common = { url, body: '{}', headers: {}, timeoutMs: 2000, allowPrivateRanges: ['127.0.0.0/8'] };
  try {
    const test1 = await postWebhook({ ...common, livemode: false });
    const test2 = await postWebhook({ ...common, livemode: false });
    expect([test1.status, test2.status]).toEqual([200, 200]);
    // The second test delivery reused the first one's kept-alive socket.
    expect(connections).toBe(1);

    const live1 = await postWebhook({ ...common, livemode: true });
    const live2 = await postWebhook({ ...common, livemode: true });
    expect([live1.status, live2.status]).toEqual([200, 200]);
    // Live opened a socket of its own, and then reused it.
    expect(connections).toBe(2);

    await postWebhook({ ...common, livemode: false });
    expect(connections).toBe(2);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
});
