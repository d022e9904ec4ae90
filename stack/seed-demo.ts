import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Knex } from '../db/knex';
import { createMerchantRepository } from '../db/merchants';
import { createApiKeyRepository } from '../db/api-keys';

export interface DemoMerchant {
  merchantId: string;
  testKey: string;
  created: boolean;
}

/**
 * On the first start, creates a demo merchant and a test key. The key exists in the database only
 * as a hash, so it is also written to `<dataDir>/demo.env` (mode 0600), as the CLI writes a test key
 * to a local env file, and read back from there on later starts.
 */
export async function ensureDemoMerchant(knex: Knex, dataDir: string): Promise<DemoMerchant> {
  const file = path.join(dataDir, 'demo.env');
  const saved = await readFile(file, 'utf8').catch(() => null);
  if (saved) {
    const merchantId = /^SKIL_MERCHANT_ID=(.+)$/m.exec(saved)?.[1];
    const testKey = /^SKIL_API_KEY=(.+)$/m.exec(saved)?.[1];
    if (merchantId && testKey && (await createApiKeyRepository(knex).findActiveBySecret(testKey))) {
      return { merchantId, testKey, created: false };
    }
  }
  const { merchant, secret } = await knex.transaction(async (trx) => {
    const merchant = await createMerchantRepository(trx).create({ name: 'Demo merchant' });
    const { secret } = await createApiKeyRepository(trx).create({ merchantId: merchant.id, livemode: false });
    return { merchant, secret };
  });
  await writeFile(file, `SKIL_MERCHANT_ID=${merchant.id}\nSKIL_API_KEY=${secret}\n`, { mode: 0o600 });
  return { merchantId: merchant.id, testKey: secret, created: true };
}
