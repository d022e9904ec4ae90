import { appendFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Db, Knex } from '../db/knex';
import { createMerchantRepository } from '../db/merchants';
import { createApiKeyRepository } from '../db/api-keys';
import { createUserRepository } from '../db/users';
import { hashPassword } from '../domain/password';
import { randomBase62 } from '../domain/ids';

export interface DemoMerchant {
  merchantId: string;
  testKey: string;
  created: boolean;
  /** Dashboard sign-in of the demo merchant's user (also in demo.env). */
  dashboardEmail: string;
  dashboardPassword: string;
}

const DEMO_EMAIL = 'demo@skil.test';

/**
 * A dashboard user for the demo merchant with a random password. The password exists in the
 * database only as a scrypt hash, so it is kept in demo.env beside the key.
 */
async function createDemoUser(knex: Db, merchantId: string): Promise<{ email: string; password: string }> {
  const users = createUserRepository(knex);
  const taken = await users.findByEmail(DEMO_EMAIL);
  const email = taken ? `demo+${randomBase62(6).toLowerCase()}@skil.test` : DEMO_EMAIL;
  const password = randomBase62(20);
  await users.create({
    kind: 'merchant',
    merchantId,
    email,
    name: 'Demo user',
    passwordHash: await hashPassword(password),
  });
  return { email, password };
}

/**
 * On the first start, creates a demo merchant, a test key and a dashboard user. The key and the
 * password exist in the database only as hashes, so they are also written to `<dataDir>/demo.env`
 * (mode 0600), as the CLI writes a test key to a local env file, and read back from there on later
 * starts. A demo.env from before dashboard users existed gets the user added.
 */
export async function ensureDemoMerchant(knex: Knex, dataDir: string): Promise<DemoMerchant> {
  const file = path.join(dataDir, 'demo.env');
  const saved = await readFile(file, 'utf8').catch(() => null);
  if (saved) {
    const merchantId = /^SKIL_MERCHANT_ID=(.+)$/m.exec(saved)?.[1];
    const testKey = /^SKIL_API_KEY=(.+)$/m.exec(saved)?.[1];
    if (merchantId && testKey && (await createApiKeyRepository(knex).findActiveBySecret(testKey))) {
      let dashboardEmail = /^SKIL_DASHBOARD_EMAIL=(.+)$/m.exec(saved)?.[1];
      let dashboardPassword = /^SKIL_DASHBOARD_PASSWORD=(.+)$/m.exec(saved)?.[1];
      const user = dashboardEmail ? await createUserRepository(knex).findByEmail(dashboardEmail) : undefined;
      if (!dashboardEmail || !dashboardPassword || user?.merchant_id !== merchantId) {
        ({ email: dashboardEmail, password: dashboardPassword } = await createDemoUser(knex, merchantId));
        await appendFile(
          file,
          `SKIL_DASHBOARD_EMAIL=${dashboardEmail}\nSKIL_DASHBOARD_PASSWORD=${dashboardPassword}\n`,
        );
      }
      return { merchantId, testKey, created: false, dashboardEmail, dashboardPassword };
    }
  }
  const { merchant, secret, user } = await knex.transaction(async (trx) => {
    const merchant = await createMerchantRepository(trx).create({ name: 'Demo merchant' });
    const { secret } = await createApiKeyRepository(trx).create({ merchantId: merchant.id, livemode: false });
    const user = await createDemoUser(trx, merchant.id);
    return { merchant, secret, user };
  });
  await writeFile(
    file,
    [
      `SKIL_MERCHANT_ID=${merchant.id}`,
      `SKIL_API_KEY=${secret}`,
      `SKIL_DASHBOARD_EMAIL=${user.email}`,
      `SKIL_DASHBOARD_PASSWORD=${user.password}`,
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  return {
    merchantId: merchant.id,
    testKey: secret,
    created: true,
    dashboardEmail: user.email,
    dashboardPassword: user.password,
  };
}
