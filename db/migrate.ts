import type { Knex } from 'knex';
import { migrations } from '../migrations';
import { withMigrationSecrets } from '../migrations/secrets-context';

/**
 * Knex reads migrations from a list of modules rather than a folder, so they load the same way
 * under tsx, jest and a compiled build. Each runs in its own transaction (knex's default for pg).
 */
const source: Knex.MigrationSource<string> = {
  getMigrations: () => Promise.resolve(Object.keys(migrations)),
  getMigrationName: (name) => name,
  getMigration: (name) => {
    const migration = migrations[name];
    if (!migration) throw new Error(`unknown migration ${name}`);
    return Promise.resolve(migration);
  },
};

/**
 * Brings the database to the latest schema; returns the names of the migrations it ran.
 * `secretsKey` (SECRETS_ENCRYPTION_KEY) lets a migration encrypt secrets stored before (decision 0112).
 */
export async function migrateLatest(knex: Knex, opts: { secretsKey?: string } = {}): Promise<string[]> {
  return withMigrationSecrets(opts.secretsKey, async () => {
    const [, ran] = (await knex.migrate.latest({ migrationSource: source })) as [number, string[]];
    return ran;
  });
}

/** Whether the schema has the table yet (a tool run before the first migration says so plainly). */
export async function hasTable(knex: Knex, table: string): Promise<boolean> {
  return knex.schema.hasTable(table);
}
