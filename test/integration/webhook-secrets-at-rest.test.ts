import { verify } from '@octokit/webhooks-methods';
import type { Knex } from 'knex';
import { createKnex } from '../../db/knex';
import { migrateLatest } from '../../db/migrate';
import { migrations } from '../../migrations';
import { createApiKeyRepository } from '../../db/api-keys';
import { requestHash } from '../../services/idempotency';
import { randomBase62 } from '../../domain/ids';
import { startTestStack, type TestStack, type TestMerchant } from '../helpers/stack';
import { startReceiver } from '../helpers/receiver';
import { databaseUrl } from '../helpers/database-url';
import { spawnApi } from '../helpers/api-process';

/** The migration that encrypts the signing secrets already stored (decision 0112). */
const ENCRYPTING_MIGRATION = '20261216_1101_webhook_secrets_at_rest';

let stack: TestStack;
let merchant: TestMerchant;

beforeAll(async () => {
  stack = await startTestStack({ schedule: [0] });
  merchant = await stack.merchant();
});
afterAll(async () => {
  await stack.stop();
});

test('signing secrets, and idempotent replays that hold one, are encrypted at rest; the API and the signatures still use the secret', async () => {
  const receiver = await startReceiver();
  try {
    const headers = { 'idempotency-key': `create-${randomBase62(8)}` };
    const json = { type: 'webhook', config: { url: receiver.url }, event_subscriptions: ['*'] };
    const first = await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      json,
      headers,
    });
    expect(first.status).toBe(200);
    const secret: string = first.body.config.secret;
    expect(secret).toMatch(/^whsec_/);

    const row = await stack.knex('notification_channels').where({ id: first.body.id }).first();
    expect(row.secret).not.toContain(secret);
    expect(row.secret).not.toContain('whsec_');
    const stored = await stack
      .knex('idempotency_keys')
      .where({ merchant_id: merchant.id, key: headers['idempotency-key'] })
      .first();
    expect(stored.response_body).not.toContain(secret);

    // The replay is the first answer, byte for byte.
    const replay = await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      json,
      headers,
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);

    const got = await stack.api(merchant.testKey, `/v1/notification-channels/${first.body.id}`);
    expect(got.body.config.secret).toBe(secret);

    await stack.api(merchant.testKey, '/v1/notification-channels/test-webhooks', {
      method: 'POST',
      json: { channel: first.body.id },
    });
    const [hit] = await receiver.waitFor(1);
    await expect(
      verify(secret, hit!.rawBody.toString('utf8'), hit!.headers['x-service-signature'] as string),
    ).resolves.toBe(true);
  } finally {
    await receiver.close();
  }
});

test('a migration encrypts the secrets of rows written before it, with the key from configuration', async () => {
  const key = Buffer.alloc(32, 7).toString('hex');
  const name = `skil_mig_${randomBase62(10).toLowerCase()}`;
  const server = process.env.SKIL_TEST_PG_URL!;
  const admin = createKnex(server, { poolMax: 1 });
  await admin.raw(`create database ${name}`);
  await admin.destroy();
  const url = databaseUrl(server, name);
  const knex = createKnex(url, { poolMax: 2 });
  try {
    // The schema as it was before the migration, with a channel and an idempotent replay in it.
    const before = Object.keys(migrations).filter((n) => n < ENCRYPTING_MIGRATION);
    const source: Knex.MigrationSource<string> = {
      getMigrations: () => Promise.resolve(before),
      getMigrationName: (n) => n,
      getMigration: (n) => Promise.resolve(migrations[n]!),
    };
    await knex.migrate.latest({ migrationSource: source });
    const secret = `whsec_${randomBase62(32)}`;
    const merchantId = `acct_${randomBase62(14)}`;
    await knex('merchants').insert({ id: merchantId, name: 'Old merchant' });
    const channelId = `nc_${randomBase62(24)}`;
    await knex('notification_channels').insert({
      id: channelId,
      merchant_id: merchantId,
      livemode: false,
      type: 'webhook',
      url: 'http://127.0.0.1:9/hook',
      secret,
      event_subscriptions: ['*'],
      status: 'enabled',
    });
    const body = { type: 'webhook', config: { url: 'http://127.0.0.1:9/hook' }, event_subscriptions: ['*'] };
    const replayBody = `{"id":"${channelId}","object":"notification_channel","config":{"url":"http://127.0.0.1:9/hook","secret":"${secret}"}}`;
    await knex('idempotency_keys').insert({
      merchant_id: merchantId,
      livemode: false,
      key: 'old-create',
      method: 'POST',
      path: '/v1/notification-channels',
      request_hash: requestHash('POST', '/v1/notification-channels', body),
      state: 'done',
      response_status: 200,
      response_content_type: 'application/json; charset=utf-8',
      response_body: replayBody,
    });

    await migrateLatest(knex, { secretsKey: key });

    const row = await knex('notification_channels').where({ id: channelId }).first();
    expect(row.secret).not.toContain(secret);
    const idem = await knex('idempotency_keys').where({ merchant_id: merchantId, key: 'old-create' }).first();
    expect(idem.response_body).not.toContain(secret);

    // An API process configured with the same key reads both back as they were.
    const { secret: apiKey } = await createApiKeyRepository(knex).create({ merchantId, livemode: false });
    const api = await spawnApi(
      { databaseUrl: url, taskQueue: stack.taskQueue, acquirerUrl: stack.acquirer.url },
      { SECRETS_ENCRYPTION_KEY: key },
    );
    try {
      const auth = { authorization: `Bearer ${apiKey}` };
      const got = await fetch(`${api.url}/v1/notification-channels/${channelId}`, { headers: auth });
      expect(((await got.json()) as { config: { secret: string } }).config.secret).toBe(secret);
      const replay = await fetch(`${api.url}/v1/notification-channels`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': 'old-create' },
        body: JSON.stringify(body),
      });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(await replay.text()).toBe(replayBody);
    } finally {
      await api.stop();
    }
  } finally {
    await knex.destroy();
    const k = createKnex(server, { poolMax: 1 });
    await k.raw(`drop database if exists ${name} with (force)`);
    await k.destroy();
  }
});
