import type { Knex } from '../db/knex';

/** Thrown to end a dry run's transaction; never leaves rolledBack. */
class DryRunRollback extends Error {}

/**
 * Runs `work` in a transaction that is always rolled back, and returns what it returned: a dry
 * run of a write that checks everything the write would check and keeps nothing (decision 0121).
 * Only for work whose effects are all in the database: a call to the outside world is not undone.
 */
export async function rolledBack<T>(knex: Knex, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  let result: { value: T } | undefined;
  try {
    await knex.transaction(async (trx) => {
      result = { value: await work(trx) };
      throw new DryRunRollback('dry run');
    });
  } catch (err) {
    if (!(err instanceof DryRunRollback)) throw err;
  }
  return result!.value;
}
