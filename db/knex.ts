import knexFactory, { type Knex } from 'knex';
import pg from 'pg';

export type { Knex };

// int8 columns hold money and counters. pg returns them as strings by default; every amount Skil
// stores is far below 2^53, so convert to number, but refuse rather than round if one ever is not.
pg.types.setTypeParser(pg.types.builtins.INT8, (text: string) => {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`int8 value ${text} exceeds the safe integer range`);
  return value;
});

/**
 * Creates the knex instance for a PostgreSQL URL: `poolMax` connections at most, each with
 * `statementTimeoutMs` as its statement_timeout (0 or unset: none), waiting at most `acquireTimeoutMs`
 * for a free connection.
 */
export function createKnex(
  databaseUrl: string,
  opts: { poolMax?: number; statementTimeoutMs?: number; acquireTimeoutMs?: number } = {},
): Knex {
  return knexFactory({
    client: 'pg',
    connection: {
      connectionString: databaseUrl,
      ...(opts.statementTimeoutMs ? { statement_timeout: opts.statementTimeoutMs } : {}),
    },
    pool: { min: 0, max: opts.poolMax ?? 10 },
    acquireConnectionTimeout: opts.acquireTimeoutMs ?? 10_000,
  });
}

/**
 * JIT compilation is for long analytic queries. It fired on the settlement gather and bank matching
 * (high estimated cost, short real work) and took ~1.4 s of a 100,000-line gather, so those
 * transactions turn it off for themselves (SET LOCAL: also right behind a transaction pooler).
 */
export async function withoutJit(trx: Knex.Transaction): Promise<void> {
  await trx.raw('set local jit = off');
}

/** A knex instance or an open transaction: every repository method accepts either. */
export type Db = Knex | Knex.Transaction;
