import { createHash } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createKnex, type Knex } from '../db/knex';
import { startEmbeddedPostgres } from '../stack/embedded-postgres';
import { createLogger } from '../stack/logger';

/**
 * How fast this machine is today, printed beside every timing the project records: the same machine
 * class has run the suite and the benchmarks anywhere from one to three times slower from one day to
 * the next, so a figure means something only beside a calibration taken the same hour.
 *
 * - cpu: a fixed single-threaded loop, 300,000 chained SHA-256 hashes of 32 bytes (CPU time, best of
 *   three; the figure earlier sessions recorded by hand).
 * - pg: a fixed PostgreSQL workload on a throwaway embedded cluster (DATABASE_URL when set): 100,000
 *   rows inserted in batches of 1,000 into an indexed table, then 1,000 primary-key reads and one
 *   aggregate (wall time, best of three).
 *
 * Run: npx tsx bench/calibrate.ts          (prints one line; --json for a machine-readable one)
 */
const HASHES = 300_000;
const ROWS = 100_000;
const BATCH = 1_000;
const READS = 1_000;

function cpuLoopMs(): number {
  const started = process.cpuUsage();
  let digest = Buffer.alloc(32);
  for (let i = 0; i < HASHES; i++) digest = createHash('sha256').update(digest).digest();
  const used = process.cpuUsage(started);
  if (digest.length !== 32) throw new Error('unreachable: a SHA-256 digest is 32 bytes');
  return (used.user + used.system) / 1000;
}

async function pgWorkloadMs(knex: Knex): Promise<number> {
  await knex.raw('drop table if exists calibration_rows');
  await knex.raw(
    `create unlogged table calibration_rows (id bigint primary key, account text not null, amount bigint not null)`,
  );
  await knex.raw('create index on calibration_rows (account, amount)');
  const started = performance.now();
  for (let from = 0; from < ROWS; from += BATCH) {
    await knex.raw(
      `insert into calibration_rows (id, account, amount)
       select g, 'acct_' || (g % 997), (g * 7919) % 100000 from generate_series(?::bigint, ?::bigint) g`,
      [from, from + BATCH - 1],
    );
  }
  for (let i = 0; i < READS; i++) {
    await knex.raw('select amount from calibration_rows where id = ?', [(i * 97) % ROWS]);
  }
  const total = await knex.raw<{ rows: { total: string }[] }>(
    `select sum(amount) as total from calibration_rows where account like 'acct_1%'`,
  );
  const ms = performance.now() - started;
  if (!total.rows[0]?.total) throw new Error('the calibration aggregate returned nothing');
  await knex.raw('drop table calibration_rows');
  return ms;
}

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  const cpu = Math.min(cpuLoopMs(), cpuLoopMs(), cpuLoopMs());

  const log = createLogger('calibrate', 'error');
  let url = process.env.DATABASE_URL;
  let stop = async () => {};
  if (!url) {
    const work = await mkdtemp(path.join(os.tmpdir(), 'skil-calibrate-'));
    await chmod(work, 0o755);
    const pg = await startEmbeddedPostgres({ dataDir: path.join(work, 'postgres'), persistent: false, log });
    url = pg.url;
    stop = async () => {
      await pg.stop();
      await rm(work, { recursive: true, force: true });
    };
  }
  const knex = createKnex(url, { poolMax: 1 });
  try {
    const runs = [await pgWorkloadMs(knex), await pgWorkloadMs(knex), await pgWorkloadMs(knex)];
    const pg = Math.min(...runs);
    const load = os.loadavg()[0]!.toFixed(2);
    const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
    if (json)
      console.log(
        JSON.stringify({ when, cpuMs: Math.round(cpu), pgMs: Math.round(pg), load1: Number(load) }),
      );
    else
      console.log(
        `calibration ${when} UTC: cpu ${Math.round(cpu)} ms (300,000 chained SHA-256), ` +
          `pg ${Math.round(pg)} ms (100,000 batched inserts + 1,000 key reads), load ${load}, ${os.cpus().length} cores`,
      );
  } finally {
    await knex.destroy();
    await stop();
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
