import { Connection } from '@temporalio/client';
import type express from 'express';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../api/app';
import { createMetrics } from '../../api/metrics';
import { createKnex, type Knex } from '../../db/knex';
import { createLogger } from '../../stack/logger';
import { sharedTestStack, TEST_SECRETS_KEY, type TestStack } from '../helpers/stack';
import { httpAcquirerAt } from '../../adapters/acquirers/http-card-acquirer';

let stack: TestStack;

beforeAll(async () => {
  stack = await sharedTestStack();
});
afterAll(async () => {
  await stack.stop();
});

test('/health is liveness with version', async () => {
  const res = await stack.api(null, '/health');
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ status: 'ok', timestamp: expect.any(String), version: '1.0.0' });
  expect(res.headers.get('request-id')).toMatch(/^req_/);
});

// /ready keeps the spec's body (§4.1) with one more field, `temporal`, and is 503 degraded when
// either probe fails (decision 0205).
test('/ready is 200 when PostgreSQL and Temporal answer', async () => {
  const res = await stack.api(null, '/ready');
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ status: 'ok', db: true, temporal: true, timestamp: expect.any(String) });
});

/** `/ready` of an API app made on this database and Temporal connection, as its status and body. */
async function readyOf(knex: Knex, temporal: Connection | null): Promise<{ status: number; body: unknown }> {
  const app = createApp({
    knex,
    log: createLogger('t', 'silent'),
    metrics: createMetrics(knex),
    temporal,
    dispatcher: { wake: () => Promise.resolve() },
    publicBaseUrl: 'http://localhost',
    bodyLimitBytes: 1024,
    acquirer: httpAcquirerAt(stack.acquirer.url),
    secretsKey: TEST_SECRETS_KEY,
  });
  const server = await new Promise<ReturnType<express.Express['listen']>>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/ready`);
    return { status: res.status, body: await res.json() };
  } finally {
    server.close();
  }
}

test('/ready is 503 degraded, db: false, when PostgreSQL is away', async () => {
  const knex = createKnex('postgres://nobody@127.0.0.1:1/none', { poolMax: 1 });
  try {
    expect(await readyOf(knex, null)).toEqual({
      status: 503,
      body: { status: 'degraded', db: false, temporal: false, timestamp: expect.any(String) },
    });
  } finally {
    await knex.destroy();
  }
});

test('/ready is 503 degraded, db: true, temporal: false, when Temporal is unreachable (decision 0205)', async () => {
  const knex = createKnex(stack.db.url, { poolMax: 1 });
  // Nothing listens on port 1: every call of this connection fails. Without the client's retry
  // interceptor it fails at once (with it, the probe's two-second limit gives the same answer, and
  // closing the connection under a pending retry throws from the retry's timer).
  const temporal = Connection.lazy({ address: '127.0.0.1:1', interceptors: [] });
  try {
    expect(await readyOf(knex, temporal)).toEqual({
      status: 503,
      body: { status: 'degraded', db: true, temporal: false, timestamp: expect.any(String) },
    });
  } finally {
    await temporal.close().catch(() => undefined);
    await knex.destroy();
  }
});

test('GET /v1 names the API, its version and its documentation', async () => {
  const res = await stack.api(null, '/v1');
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    name: 'skil',
    version: '1.0.0',
    // The reference a person reads (decision 0250); it links the machine-readable document.
    documentation: `${stack.url}/docs`,
  });
});

test('/metrics counts requests by route template and status, and reports the pool and workflow starts', async () => {
  const m = await stack.merchant();
  // The stack's API is shared with other files of this jest worker: its counters are read before
  // and after, and this file's own request is the difference.
  const notFound = (text: string) =>
    Number(
      /skil_http_requests_total\{method="GET",route="\/v1\/notification-channels\/:id",status="404"\} (\d+)/.exec(
        text,
      )?.[1] ?? 0,
    );
  const before = notFound((await stack.api(null, '/metrics')).text);
  await stack.api(m.testKey, '/v1/events');
  await stack.api(m.testKey, '/v1/notification-channels/nc_doesnotexist');
  const res = await stack.api(null, '/metrics');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/plain');
  expect(res.text).toMatch(/skil_http_requests_total\{method="GET",route="\/v1\/events",status="200"\} \d+/);
  expect(notFound(res.text) - before).toBe(1);
  expect(res.text).toMatch(
    /skil_http_request_duration_seconds_bucket\{le="0.1",method="GET",route="\/v1\/events",status="200"\}/,
  );
  expect(res.text).toMatch(/skil_pg_pool_used \d+/);
  expect(res.text).toMatch(/skil_pg_pool_max 10/);
  expect(res.text).toContain('# TYPE skil_workflow_starts_total counter');
});

test('the OpenAPI 3.1 document describes every route with its schemas', async () => {
  const res = await stack.api(null, '/v1/openapi.json');
  expect(res.status).toBe(200);
  const doc = res.body;
  expect(doc.openapi).toBe('3.1.0');
  expect(doc.info.version).toBe('1.0.0');
  for (const [path, method] of [
    ['/health', 'get'],
    ['/ready', 'get'],
    ['/v1/events', 'get'],
    ['/v1/notification-channels', 'post'],
    ['/v1/notification-channels/{id}', 'patch'],
    ['/v1/notification-channels/{id}', 'delete'],
    ['/v1/notification-channels/test-webhooks', 'post'],
    ['/v1/notification-channels/{id}/deliveries/{delivery}/resend', 'post'],
  ] as const) {
    expect(doc.paths[path]?.[method]).toBeDefined();
  }
  const create = doc.paths['/v1/notification-channels'].post;
  const schema = create.requestBody.content['application/json'].schema;
  expect(schema.required).toEqual(expect.arrayContaining(['type', 'config', 'event_subscriptions']));
  expect(schema.additionalProperties).toBe(false);
  expect(schema.properties.event_subscriptions.items.enum).toContain('debug.check');
  const events = doc.paths['/v1/events'].get;
  const limit = events.parameters.find((p: { name: string }) => p.name === 'limit');
  expect(limit.in).toBe('query');
  expect(doc.paths['/health'].get.security).toEqual([]);
});
