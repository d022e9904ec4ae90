/**
 * Temporal over mutual TLS (decision 0144), with certificates made here: a TLS terminator that
 * asks for and checks a client certificate stands in front of the dev server, the way a cluster's
 * frontend with mTLS does, and the real API and worker processes reach Temporal only through it,
 * configured by their environment. A subscription's first charge runs end to end that way.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { loadConfig } from '../../stack/config';
import { temporalConnectionOptions } from '../../stack/temporal-connection';
import { connectTemporal } from '../../engine/temporal-client';
import { startTestStack, type TestStack } from '../helpers/stack';
import { spawnApi, type ApiProcess } from '../helpers/api-process';
import { killHard, spawnWorker } from '../helpers/worker-process';
import { until } from '../helpers/until';

const SERVER_NAME = 'temporal.skil.test';
let dir: string;
let proxy: tls.Server;
let proxyAddress: string;
/** Common names of the client certificates the terminator accepted. */
const clients: string[] = [];
let stack: TestStack;
let api: ApiProcess | undefined;
let worker: ChildProcess | undefined;

const file = (name: string) => path.join(dir, name);

/** A CA, a server certificate for SERVER_NAME and a client certificate, all by openssl. */
function makeCertificates() {
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const leaf = (name: string, subject: string, ext: string) => {
    openssl(
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
      '-subj',
      subject,
    );
    writeFileSync(file(`${name}.ext`), ext);
    openssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '2',
      '-out',
      `${name}.crt`,
      '-extfile',
      `${name}.ext`,
    );
  };
  for (const ca of ['ca', 'other-ca'])
    openssl(
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      `${ca}.key`,
      '-out',
      `${ca}.crt`,
      '-days',
      '2',
      '-subj',
      `/CN=${ca}`,
    );
  leaf('server', `/CN=${SERVER_NAME}`, `subjectAltName=DNS:${SERVER_NAME}\nextendedKeyUsage=serverAuth\n`);
  leaf('client', '/CN=skil-worker', 'extendedKeyUsage=clientAuth\n');
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'skil-temporal-tls-'));
  makeCertificates();
  const [host, port] = process.env.SKIL_TEST_TEMPORAL_ADDRESS!.split(':') as [string, string];
  proxy = tls.createServer(
    {
      key: readFileSync(file('server.key')),
      cert: readFileSync(file('server.crt')),
      ca: readFileSync(file('ca.crt')),
      requestCert: true,
      rejectUnauthorized: true,
      ALPNProtocols: ['h2'],
    },
    (socket) => {
      clients.push(String(socket.getPeerCertificate().subject?.CN));
      const upstream = net.connect(Number(port), host);
      socket.pipe(upstream).pipe(socket);
      const end = () => {
        socket.destroy();
        upstream.destroy();
      };
      socket.on('error', end);
      upstream.on('error', end);
    },
  );
  proxy.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyAddress = `127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;
  stack = await startTestStack({ worker: false, realBaseUrl: true });
}, 120_000);

afterAll(async () => {
  if (worker) await killHard(worker);
  await api?.stop();
  await stack?.stop();
  await new Promise((resolve) => proxy?.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

const tlsEnv = () => ({
  TEMPORAL_ADDRESS: proxyAddress,
  TEMPORAL_TLS_CA_PATH: file('ca.crt'),
  TEMPORAL_TLS_CERT_PATH: file('client.crt'),
  TEMPORAL_TLS_KEY_PATH: file('client.key'),
  TEMPORAL_TLS_SERVER_NAME: SERVER_NAME,
});

test('the configuration: TLS is off by default, implied by a CA, a client pair or an API key; half a pair is refused', () => {
  expect(temporalConnectionOptions(loadConfig({}), 'h:7233')).toEqual({ address: 'h:7233' });
  const full = temporalConnectionOptions(loadConfig(tlsEnv()), proxyAddress);
  expect(full.tls?.serverNameOverride).toBe(SERVER_NAME);
  expect(full.tls?.clientCertPair?.crt.toString()).toContain('BEGIN CERTIFICATE');
  expect(full.tls?.serverRootCACertificate?.toString()).toContain('BEGIN CERTIFICATE');
  expect(temporalConnectionOptions(loadConfig({ TEMPORAL_API_KEY: 'k' }), 'cloud:7233')).toEqual({
    address: 'cloud:7233',
    tls: {},
    apiKey: 'k',
  });
  expect(() => loadConfig({ TEMPORAL_TLS_CERT_PATH: file('client.crt') })).toThrow(/TEMPORAL_TLS_KEY_PATH/);
  expect(() =>
    temporalConnectionOptions(loadConfig({ TEMPORAL_TLS_CA_PATH: file('missing.crt') }), 'h:1'),
  ).toThrow(/the Temporal server CA at .*missing\.crt/);
});

test('both SDK connections reach Temporal through mutual TLS; without a client certificate or with another CA they do not', async () => {
  const options = temporalConnectionOptions(loadConfig(tlsEnv()), proxyAddress);
  const { connection } = await connectTemporal(options, 'default');
  expect((await connection.workflowService.getSystemInfo({})).serverVersion).toBeTruthy();
  await connection.close();
  const native = await NativeConnection.connect(options);
  expect((await native.workflowService.getSystemInfo({})).serverVersion).toBeTruthy();
  await native.close();
  expect(clients).toContain('skil-worker');

  const { clientCertPair: _pair, ...noClientCert } = options.tls!;
  await expect(
    Connection.connect({ address: proxyAddress, tls: noClientCert, connectTimeout: 3_000 }),
  ).rejects.toThrow();
  await expect(
    Connection.connect({
      address: proxyAddress,
      tls: { ...options.tls, serverRootCACertificate: readFileSync(file('other-ca.crt')) },
      connectTimeout: 3_000,
    }),
  ).rejects.toThrow();
}, 60_000);

test('the real API and worker processes, configured for mutual TLS, run a first charge end to end', async () => {
  const seen = clients.length;
  worker = await spawnWorker(stack, { extraEnv: tlsEnv() });
  api = await spawnApi(stack, tlsEnv());
  const ready = await fetch(`${api.url}/ready`);
  expect(ready.status).toBe(200);

  const merchant = await stack.merchant();
  const call = async (p: string, json?: unknown) => {
    const res = await fetch(`${api!.url}${p}`, {
      method: json === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${merchant.testKey}`, 'content-type': 'application/json' },
      ...(json !== undefined && { body: JSON.stringify(json) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const customer = await call('/v1/customers', { name: 'Jón' });
  const card = await call('/v1/payment-methods', {
    customer: customer.body.id,
    card: { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' },
  });
  expect(card.status).toBe(200);
  const product = await call('/v1/products', { name: 'Áskrift', vat_rate: 24 });
  const price = await call('/v1/prices', {
    product: product.body.id,
    unit_amount: 1990,
    recurring: { interval: 'month' },
  });
  const sub = await call('/v1/subscriptions', {
    customer: customer.body.id,
    price: price.body.id,
    default_payment_method: card.body.id,
  });
  expect(sub.status).toBe(200);
  const active = await until(
    () => call(`/v1/subscriptions/${String(sub.body.id)}`),
    (r) => r.body.status === 'active',
    60_000,
  );
  expect(active.body.status).toBe('active');
  // Both processes came through the terminator with the client certificate.
  expect(clients.slice(seen).filter((cn) => cn === 'skil-worker').length).toBeGreaterThanOrEqual(2);
}, 120_000);
