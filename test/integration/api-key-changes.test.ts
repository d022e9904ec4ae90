import { listenForApiKeyChanges } from '../../db/api-key-changes';
import { createApiKeyRepository, hashApiKey } from '../../db/api-keys';
import { createMerchantRepository } from '../../db/merchants';
import { createTestDatabase, type TestDatabase } from '../helpers/database';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

/** Collects what the listener hears until `stop`. */
async function listen() {
  const heard: string[] = [];
  const events: string[] = [];
  let ready!: () => void;
  const listening = new Promise<void>((r) => (ready = r));
  const stop = listenForApiKeyChanges(db.url, {
    listening: () => {
      events.push('listening');
      ready();
    },
    changed: (hash) => heard.push(hash),
    lost: () => events.push('lost'),
  });
  await listening;
  return { heard, events, stop };
}

const settle = () => new Promise((r) => setTimeout(r, 300));

test('every change that could end a key is heard, by whatever path; recording its use is not', async () => {
  const merchant = await createMerchantRepository(db.knex).create({ name: 'Keys' });
  const keys = createApiKeyRepository(db.knex);
  const scope = { merchantId: merchant.id, livemode: false };
  const a = await keys.create(scope);
  const b = await keys.create(scope);
  const c = await keys.create(scope);
  const l = await listen();
  try {
    await keys.touch(a.row.id);
    await keys.revoke(scope, a.row.id);
    // Plain SQL, as an operator might: the trigger sends the notice, not the repository.
    await db.knex('api_keys').where({ id: b.row.id }).update({ revoked_at: new Date() });
    await db.knex('api_keys').where({ id: c.row.id }).delete();
    await settle();
    expect(l.heard).toEqual([hashApiKey(a.secret), hashApiKey(b.secret), hashApiKey(c.secret)]);
  } finally {
    await l.stop();
  }
});

test('a rolled-back revocation is not heard; a lost connection is reported and listening resumes', async () => {
  const merchant = await createMerchantRepository(db.knex).create({ name: 'Keys 2' });
  const keys = createApiKeyRepository(db.knex);
  const scope = { merchantId: merchant.id, livemode: false };
  const a = await keys.create(scope);
  const l = await listen();
  try {
    await db.knex
      .transaction(async (trx) => {
        await createApiKeyRepository(trx).revoke(scope, a.row.id);
        throw new Error('changed my mind');
      })
      .catch(() => undefined);
    await settle();
    expect(l.heard).toEqual([]);
    await db.knex.raw(
      `select pg_terminate_backend(pid) from pg_stat_activity
        where datname = current_database() and query = 'listen api_key_changed'`,
    );
    for (let i = 0; i < 50 && l.events.length < 3; i++) await settle();
    expect(l.events).toEqual(['listening', 'lost', 'listening']);
  } finally {
    await l.stop();
  }
});
