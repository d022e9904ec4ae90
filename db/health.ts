import type { Db } from './knex';

/** Whether PostgreSQL answers a trivial query (readiness). */
export async function pingDatabase(db: Db): Promise<void> {
  await db.raw('select 1');
}
