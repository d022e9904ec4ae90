import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from './config';
import { createKnex } from '../db/knex';
import { hasTable } from '../db/migrate';
import { createUserRepository } from '../db/users';
import { hashPassword } from '../domain/password';
import { randomBase62 } from '../domain/ids';

const USAGE = 'usage: npm run operator:create -- --email <address> [--name <name>]';

/**
 * `npm run operator:create -- --email ops@example.is`: creates an operator, who reviews merchant
 * applications in the dashboard (email + password) or through the operator API (token). Both
 * secrets are random, printed once here and stored only as hashes; nothing is shipped by default.
 * Uses DATABASE_URL, or the embedded PostgreSQL of a running `npm start`.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { email: { type: 'string' }, name: { type: 'string' } },
    strict: true,
  });
  const email = values.email?.trim();
  if (!email || !/^[^\s@]+@[^\s@]+$/.test(email)) throw new Error(USAGE);

  const config = loadConfig();
  let databaseUrl = config.DATABASE_URL;
  if (!databaseUrl) {
    const passwordFile = path.join(config.dataDir, 'postgres.password');
    const password = (await readFile(passwordFile, 'utf8').catch(() => '')).trim();
    if (!password) throw new Error(`no DATABASE_URL and no ${passwordFile}: run npm start once first`);
    databaseUrl = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${config.EMBEDDED_PG_PORT}/postgres`;
  }
  const knex = createKnex(databaseUrl, { poolMax: 1 });
  try {
    if (!(await hasTable(knex, 'users'))) {
      throw new Error('the database has no users table yet: start Skil (npm start) once to migrate it');
    }
    const users = createUserRepository(knex);
    if (await users.findByEmail(email)) throw new Error(`a user with the address ${email} exists already`);
    const password = randomBase62(24);
    const { operator, token } = await knex.transaction(async (trx) => {
      const repo = createUserRepository(trx);
      const operator = await repo.create({
        kind: 'operator',
        merchantId: null,
        email,
        ...(values.name !== undefined && { name: values.name }),
        passwordHash: await hashPassword(password),
      });
      return { operator, token: (await repo.createOperatorToken(operator.id)).token };
    });
    process.stdout.write(
      [
        `Operator ${operator.id} created. These secrets are shown once; keep them safe.`,
        `  Dashboard   ${config.publicBaseUrl}/dashboard/sign-in`,
        `  Email       ${operator.email}`,
        `  Password    ${password}`,
        `  API token   ${token}   (Authorization: Bearer …, for ${config.publicBaseUrl}/v1/operator/…)`,
        '',
      ].join('\n'),
    );
  } finally {
    await knex.destroy();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
