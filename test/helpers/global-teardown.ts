import { createKnex } from '../../db/knex';
import { databaseUrl } from './database-url';
import { checkLedger } from './ledger-invariant';

/**
 * Checks the ledger invariant (decision 0107) on every test database still there — the jest
 * workers' shared stacks' (decision 0200), whose processes have exited, so nothing moves money
 * while they are read, and any a failed file left — drops them, then stops what global-setup
 * started, newest first. A broken invariant fails the run.
 */
export default async function globalTeardown(): Promise<void> {
  const running = globalThis.__skilTestStack;
  const server = process.env.SKIL_TEST_PG_URL;
  const violations: string[] = [];
  let checked = 0;
  if (server) {
    const admin = createKnex(server, { poolMax: 1 });
    try {
      const { rows } = await admin.raw<{ rows: { datname: string }[] }>(
        `select datname from pg_database where datname like 'skil\\_t\\_%'`,
      );
      for (const { datname } of rows) {
        const knex = createKnex(databaseUrl(server, datname), { poolMax: 2 });
        const report = await checkLedger(knex).catch((err: unknown) => ({ violations: [String(err)] }));
        await knex.destroy();
        violations.push(...report.violations.map((v) => `${datname}: ${v}`));
        checked += 1;
        await admin.raw(`drop database if exists ${datname} with (force)`);
      }
    } finally {
      await admin.destroy();
    }
  }
  for (const stop of (running?.stops ?? []).reverse()) await stop();
  if (server)
    process.stdout.write(`\nLedger invariant checked on ${checked} test databases left at the end.\n`);
  if (violations.length > 0)
    throw new Error(`ledger invariant broken (decision 0107):\n${violations.join('\n')}`);
}
