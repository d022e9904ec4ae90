import { createKnex, type Knex } from '../../db/knex';
import { randomBase62 } from '../../domain/ids';
import { databaseUrl } from './database-url';

export interface TestDatabase {
  url: string;
  knex: Knex;
  drop(): Promise<void>;
}

function requireEnv(name: string): string {
  const value = process.env[name];
  if (!value)
    throw new Error(`${name} is not set: run the tests through jest (globalSetup starts the stack)`);
  return value;
}

/** A fresh database for one test file, cloned from the migrated template (graphile-worker's way). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const server = requireEnv('SKIL_TEST_PG_URL');
  const template = requireEnv('SKIL_TEST_TEMPLATE_DB');
  const name = `skil_t_${randomBase62(10).toLowerCase()}`;
  const admin = createKnex(server, { poolMax: 1 });
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.raw(`create database ${name} template ${template}`);
        break;
      } catch (err) {
        // Two files cloning at the same instant: PostgreSQL refuses while the template is being read.
        if (attempt >= 20 || !String(err).includes('is being accessed by other users')) throw err;
        await new Promise((r) => setTimeout(r, 100 * attempt));
      }
    }
  } finally {
    await admin.destroy();
  }
  const url = databaseUrl(server, name);
  const knex = createKnex(url, { poolMax: 10 });
  return {
    url,
    knex,
    async drop() {
      await knex.destroy();
      const k = createKnex(server, { poolMax: 1 });
      await k.raw(`drop database if exists ${name} with (force)`);
      await k.destroy();
    },
  };
}
