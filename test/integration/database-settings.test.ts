/**
 * The PostgreSQL settings of production configuration: DATABASE_STATEMENT_TIMEOUT_MS cancels a
 * statement that runs longer, on every pooled connection; DATABASE_POOL_MAX bounds the pool.
 */
import { createKnex } from '../../db/knex';
import { loadConfig } from '../../stack/config';
import { createTestDatabase, type TestDatabase } from '../helpers/database';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

test('a statement over the timeout is cancelled on every connection of the pool; without one it runs', async () => {
  const config = loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '200', DATABASE_POOL_MAX: '3' });
  const knex = createKnex(db.url, {
    poolMax: config.DATABASE_POOL_MAX,
    statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
  });
  try {
    const results = await Promise.allSettled(Array.from({ length: 3 }, () => knex.raw('select pg_sleep(1)')));
    for (const r of results) {
      expect(r.status).toBe('rejected');
      expect(String((r as PromiseRejectedResult).reason)).toMatch(/statement timeout/);
    }
    const shown = await knex.raw<{ rows: { statement_timeout: string }[] }>('show statement_timeout');
    expect(shown.rows[0]!.statement_timeout).toBe('200ms');
  } finally {
    await knex.destroy();
  }
  const untimed = createKnex(db.url, { poolMax: 1 });
  try {
    await expect(untimed.raw('select pg_sleep(0.3)')).resolves.toBeDefined();
  } finally {
    await untimed.destroy();
  }
});

test('bad values are refused at start-up, naming the variable', () => {
  expect(() => loadConfig({ DATABASE_POOL_MAX: '0' })).toThrow(/DATABASE_POOL_MAX/);
  expect(() => loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '-1' })).toThrow(/DATABASE_STATEMENT_TIMEOUT_MS/);
});
