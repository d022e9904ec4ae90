import { loadConfig } from '../stack/config';
import { createKnex } from './knex';
import { migrateLatest } from './migrate';

/** `npm run migrate`: brings DATABASE_URL to the latest schema (npm start does this itself). */
async function main(): Promise<void> {
  const config = loadConfig();
  if (!config.DATABASE_URL)
    throw new Error('set DATABASE_URL; `npm start` migrates the embedded database itself');
  const knex = createKnex(config.DATABASE_URL, { poolMax: 1 });
  try {
    const ran = await migrateLatest(knex, {
      ...(config.SECRETS_ENCRYPTION_KEY !== undefined && { secretsKey: config.SECRETS_ENCRYPTION_KEY }),
    });
    console.log(ran.length ? `applied: ${ran.join(', ')}` : 'schema up to date');
  } finally {
    await knex.destroy();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
