/**
 * When PostgreSQL cannot serve a request in time — a statement cancelled by the statement timeout
 * while it waits on a lock, or no pooled connection free within the acquire timeout — the API is
 * overloaded, not broken: 503 `api_error` with `Retry-After`, in the envelope, no stack, nothing
 * changed, and the same request succeeds once the database is free (decision 0160).
 */
import type { Knex } from 'knex';
import { spawnApi, type ApiProcess } from '../helpers/api-process';
import { until } from '../helpers/until';
import { startTestStack, type TestStack, type TestMerchant } from '../helpers/stack';

let stack: TestStack;
let merchant: TestMerchant;
let api: ApiProcess;
beforeAll(async () => {
  stack = await startTestStack({ worker: false });
  merchant = await stack.merchant('Busy ehf.');
  // One connection, a short statement timeout and a short wait for a free connection: what a busy
  // production API meets at its limits, reached here with one row lock.
  api = await spawnApi(stack, {
    DATABASE_POOL_MAX: '1',
    DATABASE_STATEMENT_TIMEOUT_MS: '1500',
    DATABASE_ACQUIRE_TIMEOUT_MS: '1500',
  });
});
afterAll(async () => {
  await api?.stop();
  await stack?.stop();
});

async function call(path: string, init: { method?: string; json?: unknown } = {}, to: ApiProcess = api) {
  const res = await fetch(to.url + path, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${merchant.testKey}`, 'content-type': 'application/json' },
    ...(init.json !== undefined && { body: JSON.stringify(init.json) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: JSON.parse(text) };
}

/** Holds a lock on the customer's row from another connection until `release` is called. */
async function lockCustomer(knex: Knex, id: string) {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let locked!: () => void;
  const isLocked = new Promise<void>((r) => (locked = r));
  const done = knex.transaction(async (trx) => {
    await trx.raw('select 1 from customers where id = ? for update', [id]);
    locked();
    await released;
  });
  await isLocked;
  return async () => {
    release();
    await done;
  };
}

function expectBusy(res: Awaited<ReturnType<typeof call>>) {
  expect(res.status).toBe(503);
  expect(res.body.error.type).toBe('api_error');
  expect(res.body.error.code).toBe('database_busy');
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(res.text).not.toMatch(/at .*\.ts:\d+|Knex|statement timeout|pool/i);
}

test('a statement cancelled by the statement timeout answers 503 and changes nothing', async () => {
  const created = await call('/v1/customers', { method: 'POST', json: { name: 'Anna' } });
  expect(created.status).toBe(200);
  const unlock = await lockCustomer(stack.knex, created.body.id);
  try {
    const busy = await call(`/v1/customers/${created.body.id}`, { method: 'PATCH', json: { name: 'Bára' } });
    expectBusy(busy);
  } finally {
    await unlock();
  }
  const after = await call(`/v1/customers/${created.body.id}`);
  expect(after.body.name).toBe('Anna');
  const retried = await call(`/v1/customers/${created.body.id}`, { method: 'PATCH', json: { name: 'Bára' } });
  expect(retried.status).toBe(200);
  expect(retried.body.name).toBe('Bára');
});

test('no free connection within the acquire timeout answers 503 too', async () => {
  // No statement timeout here: the first request keeps the only connection while it waits on the
  // lock, and the second waits for that connection longer than it may.
  const waiting = await spawnApi(stack, { DATABASE_POOL_MAX: '1', DATABASE_ACQUIRE_TIMEOUT_MS: '400' });
  try {
    const created = await call('/v1/customers', { method: 'POST', json: { name: 'Dóra' } });
    const unlock = await lockCustomer(stack.knex, created.body.id);
    const first = call(
      `/v1/customers/${created.body.id}`,
      { method: 'PATCH', json: { name: 'Edda' } },
      waiting,
    );
    try {
      await until(
        () =>
          stack.knex.raw<{ rows: unknown[] }>(
            `select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
          ),
        (r) => r.rows.length > 0,
      );
      expectBusy(await call('/v1/customers?limit=1', {}, waiting));
    } finally {
      await unlock();
    }
    expect((await first).body.name).toBe('Edda');
    expect((await call('/v1/customers?limit=1', {}, waiting)).status).toBe(200);
  } finally {
    await waiting.stop();
  }
});

test('a connection PostgreSQL ends under a request (a restart, a failover) answers 503, and the next request is served', async () => {
  // What a PostgreSQL restart does to a request in flight: its backend is terminated by the server
  // (57P01, as a fast shutdown does), here with pg_terminate_backend on the one waiting on a lock. No
  // statement timeout in this API process, so nothing else can end the wait.
  const plain = await spawnApi(stack, {});
  try {
    const created = await call('/v1/customers', { method: 'POST', json: { name: 'Fríða' } }, plain);
    const unlock = await lockCustomer(stack.knex, created.body.id);
    const pending = call(
      `/v1/customers/${created.body.id}`,
      { method: 'PATCH', json: { name: 'Gróa' } },
      plain,
    );
    try {
      const waiting = await until(
        () =>
          stack.knex.raw<{ rows: { pid: number }[] }>(
            `select pid from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
          ),
        (r) => r.rows.length > 0,
      );
      await stack.knex.raw('select pg_terminate_backend(?)', [waiting.rows[0]!.pid]);
      expectBusy(await pending);
    } finally {
      await unlock();
    }
    const retried = await call(
      `/v1/customers/${created.body.id}`,
      { method: 'PATCH', json: { name: 'Gróa' } },
      plain,
    );
    expect(retried.status).toBe(200);
    expect(retried.body.name).toBe('Gróa');
  } finally {
    await plain.stop();
  }
});
