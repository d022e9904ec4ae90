import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { withAuditEntry } from './merchant-audit-log';

export type { Knex };

// int8 columns hold money and counters. pg returns them as strings by default; every amount Skil
// stores is far below 2^53, so convert to number, but refuse rather than round if one ever is not.
pg.types.setTypeParser(pg.types.builtins.INT8, (text: string) => {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`int8 value ${text} exceeds the safe integer range`);
  return value;
});

interface PgQuery {
  sql: string;
  bindings?: readonly unknown[];
}

// knex's PostgreSQL client (no type declarations of its own; its public API is typed through Knex).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const PgClient = require('knex/lib/dialects/postgres') as new (config: Knex.Config) => {
  _query(connection: unknown, query: PgQuery): Promise<unknown>;
};

/**
 * knex's PostgreSQL client, with the merchant audit entry of the write request a statement runs for
 * put in front of every data-changing statement (decision 0227; db/merchant-audit-log.ts). A
 * subclass rather than a patched instance, because knex builds each transaction's client from the
 * class's prototype.
 */
class AuditingPgClient extends PgClient {
  override _query(connection: unknown, query: PgQuery): Promise<unknown> {
    withAuditEntry(query);
    return super._query(connection, query);
  }
}

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
    client: AuditingPgClient as unknown as typeof knexFactory.Client,
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
