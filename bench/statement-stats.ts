import type { Knex } from '../db/knex';

/**
 * The database's side of a benchmark's profile, when the embedded PostgreSQL was started with
 * EMBEDDED_PG_STATEMENT_STATS=1: `reset` before the measured part, `top` after it prints the
 * statements that took the most time (calls, rows, total and mean milliseconds; the first 15, or
 * EMBEDDED_PG_STATEMENT_TOP). Both do nothing without the setting.
 */
export const statementStats = {
  enabled: () => process.env.EMBEDDED_PG_STATEMENT_STATS === '1',

  async reset(knex: Knex): Promise<void> {
    if (!this.enabled()) return;
    await knex.raw('create extension if not exists pg_stat_statements');
    await knex.raw('select pg_stat_statements_reset()');
  },

  async top(knex: Knex, limit = Number(process.env.EMBEDDED_PG_STATEMENT_TOP ?? 15)): Promise<void> {
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

/** Shared-buffer traffic of the benchmark's database: how often a page was not in PostgreSQL's buffers. */
export interface BufferUse {
  /** Pages read from outside the buffers (the page cache or disk). */
  reads: number;
  hits: number;
}

/**
 * The database's buffer hits and reads (pg_stat_database; always collected) and its size: `mark`
 * before the measured part, `since` after it. A table and its random-id indexes that outgrow the
 * shared buffers show as reads growing faster than the work.
 */
export const bufferUse = {
  async mark(knex: Knex): Promise<BufferUse> {
    const { rows } = await knex.raw<{ rows: { reads: string; hits: string }[] }>(
      'select blks_read as reads, blks_hit as hits from pg_stat_database where datname = current_database()',
    );
    return { reads: Number(rows[0]!.reads), hits: Number(rows[0]!.hits) };
  },

  async since(knex: Knex, before: BufferUse) {
    // Backends report their counters at the end of a transaction, at most once a second.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const now = await this.mark(knex);
    const { rows } = await knex.raw<{ rows: { bytes: string; shared_buffers: string }[] }>(
      `select pg_database_size(current_database()) as bytes, current_setting('shared_buffers') as shared_buffers`,
    );
    const reads = now.reads - before.reads;
    const hits = now.hits - before.hits;
    return {
      shared_buffers: rows[0]!.shared_buffers,
      buffer_reads: reads,
      buffer_hit_ratio: Number((hits / Math.max(1, hits + reads)).toFixed(4)),
      database_mb: Math.round(Number(rows[0]!.bytes) / 2 ** 20),
    };
  },
};
