import type { Knex } from '../db/knex';

/**
 * The database's side of a benchmark's profile, when the embedded PostgreSQL was started with
 * EMBEDDED_PG_STATEMENT_STATS=1: `reset` before the measured part, `top` after it prints the
 * statements that took the most time (calls, rows, total and mean milliseconds). Both do nothing
 * without the setting.
 */
export const statementStats = {
  enabled: () => process.env.EMBEDDED_PG_STATEMENT_STATS === '1',

  async reset(knex: Knex): Promise<void> {
    if (!this.enabled()) return;
    await knex.raw('create extension if not exists pg_stat_statements');
    await knex.raw('select pg_stat_statements_reset()');
  },

  async top(knex: Knex, limit = 15): Promise<void> {
    if (!this.enabled()) return;
    const { rows } = await knex.raw<{
      rows: { calls: number; rows: number; total_ms: number; mean_ms: number; query: string }[];
    }>(
      `select calls, rows, round(total_exec_time)::int as total_ms, round(mean_exec_time::numeric, 3)::float as mean_ms,
              left(regexp_replace(query, '\\s+', ' ', 'g'), 160) as query
         from pg_stat_statements order by total_exec_time desc limit ?`,
      [limit],
    );
    for (const r of rows) console.error(JSON.stringify(r));
  },
};
