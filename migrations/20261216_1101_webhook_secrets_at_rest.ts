import type { Knex } from 'knex';
import { isSealed, SEALED_AT } from '../domain/secret-box';
import { migrationSecrets } from './secrets-context';

const BATCH = 1000;

/**
 * Signing secrets and idempotent replays (which may hold one) are encrypted at rest from here on
 * (decision 0112); this seals the ones written before. Nothing to seal needs no key, so a fresh
 * database migrates without one.
 */
export async function up(knex: Knex): Promise<void> {
  const channels = (
    await knex('notification_channels').select<{ id: string; secret: string }[]>('id', 'secret')
  ).filter((c) => !isSealed(c.secret));
  for (const c of channels) {
    const box = migrationSecrets('notification channels hold signing secrets to encrypt');
    await knex('notification_channels')
      .where({ id: c.id })
      .update({ secret: box.seal(c.secret, SEALED_AT.channelSecret(c.id)) });
  }
  for (let after: [string, boolean, string] | null = null; ;) {
    const q = knex('idempotency_keys')
      .whereNotNull('response_body')
      .orderBy(['merchant_id', 'livemode', 'key'])
      .limit(BATCH)
      .select<{ merchant_id: string; livemode: boolean; key: string; response_body: string }[]>(
        'merchant_id',
        'livemode',
        'key',
        'response_body',
      );
    if (after) q.whereRaw('(merchant_id, livemode, key) > (?, ?, ?)', after);
    const rows = await q;
    const open = rows.filter((r) => !isSealed(r.response_body));
    if (open.length > 0) {
      const box = migrationSecrets('idempotent replays are stored to encrypt');
      await knex.raw(
        `update idempotency_keys k set response_body = v.body
           from unnest(?::text[], ?::boolean[], ?::text[], ?::text[]) as v(merchant_id, livemode, key, body)
          where k.merchant_id = v.merchant_id and k.livemode = v.livemode and k.key = v.key`,
        [
          open.map((r) => r.merchant_id),
          open.map((r) => r.livemode),
          open.map((r) => r.key),
          open.map((r) => box.seal(r.response_body, SEALED_AT.replay(r.merchant_id, r.livemode, r.key))),
        ],
      );
    }
    if (rows.length < BATCH) break;
    const last = rows[rows.length - 1]!;
    after = [last.merchant_id, last.livemode, last.key];
  }
}

/** Forward-only in production; in development the sealed values stay sealed (they still open). */
export async function down(): Promise<void> {}
