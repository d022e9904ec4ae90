import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '../../stack/logger';
import { startLoadBalancer, type LoadBalancer } from '../../stack/load-balancer';
import { startSupervised } from '../../stack/supervised-process';
import { freePort } from '../../stack/free-port';

// The cluster's own parts that need neither PostgreSQL nor Temporal: the load balancer in front of the API
// processes and the supervisor that restarts a killed process. Real sockets and real child processes.
const log = createLogger('test', 'silent');

type Seen = { name: string; method: string; body: string; xff: string | undefined; host: string | undefined };

async function backend(name: string, seen: Seen[]) {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({
        name,
        method: req.method ?? '',
        body: Buffer.concat(chunks).toString(),
        xff: req.headers['x-forwarded-for'] as string | undefined,
        host: req.headers['x-forwarded-host'] as string | undefined,
      });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ from: name }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port };
}

const closeServer = (s: http.Server) =>
  new Promise<void>((r) => {
    s.closeAllConnections();
    s.close(() => r());
  });

describe('load balancer', () => {
  let lb: LoadBalancer;
  const seen: Seen[] = [];
  let a: Awaited<ReturnType<typeof backend>>;
  let b: Awaited<ReturnType<typeof backend>>;

  beforeAll(async () => {
    a = await backend('a', seen);
    b = await backend('b', seen);
    lb = await startLoadBalancer({
      host: '127.0.0.1',
      port: 0,
      backends: [
        { host: '127.0.0.1', port: a.port },
        { host: '127.0.0.1', port: b.port },
      ],
      log,
    });
  });
  afterAll(async () => {
    await lb.stop();
    await closeServer(a.server);
  });

  test('alternates the backends and appends the client address to X-Forwarded-For', async () => {
    const from: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${lb.url}/v1/events`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
      from.push(((await res.json()) as { from: string }).from);
    }
    expect(from.sort()).toEqual(['a', 'a', 'b', 'b']);
    // What the client wrote stays, the address the balancer saw comes last: the one hop the APIs trust.
    expect(seen.map((s) => s.xff)).toEqual(Array(4).fill('203.0.113.9, 127.0.0.1'));
    expect(seen[0]!.host).toBe(new URL(lb.url).host);
  });

  test('a POST refused by a stopped backend is sent whole to the other; none left answers 503 in the envelope', async () => {
    await closeServer(b.server);
    seen.length = 0;
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${lb.url}/v1/customers`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Jón ${i}` }),
      });
      expect(res.status).toBe(200);
    }
    expect(seen.map((s) => [s.name, s.method, s.body])).toEqual(
      [0, 1, 2].map((i) => ['a', 'POST', `{"name":"Jón ${i}"}`]),
    );
    expect(lb.counts().retried).toBeGreaterThanOrEqual(1);

    await closeServer(a.server);
    const res = await fetch(`${lb.url}/v1/customers`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await res.json()).toEqual({
      error: { type: 'api_error', code: 'service_unavailable', message: expect.any(String) },
    });
  });
});

describe('supervised process', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'skil-supervised-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('a process killed -9 is started again and becomes ready; stop() ends it for good', async () => {
    const port = await freePort();
    const script = `require('http').createServer((q, s) => s.end(String(process.pid))).listen(${port}, '127.0.0.1'); console.log('up', process.pid)`;
    const answers = async () =>
      fetch(`http://127.0.0.1:${port}/`).then(
        async (r) => Number(await r.text()),
        () => null,
      );
    const proc = await startSupervised({
      name: 'echo',
      command: process.execPath,
      args: ['-e', script],
      logFile: path.join(dir, 'echo.log'),
      log,
      restartDelayMs: 100,
      readiness: async () => {
        while ((await answers()) === null) await new Promise((r) => setTimeout(r, 50));
      },
    });
    const first = proc.pid()!;
    expect(await answers()).toBe(first);

    process.kill(first, 'SIGKILL');
    while (proc.starts() === 1) await new Promise((r) => setTimeout(r, 20));
    await proc.ready();
    const second = proc.pid()!;
    expect(second).not.toBe(first);
    expect(await answers()).toBe(second);

    await proc.stop();
    expect(proc.pid()).toBeUndefined();
    expect(await answers()).toBeNull();
    expect(proc.starts()).toBe(2);
    // Both incarnations wrote to the one log file.
    expect((await readFile(path.join(dir, 'echo.log'), 'utf8')).match(/^up \d+$/gm)).toEqual([
      `up ${first}`,
      `up ${second}`,
    ]);
  });
});
