import { existsSync } from 'node:fs';
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { createLogger } from '../../stack/logger';
import { startEmbeddedPostgres } from '../../stack/embedded-postgres';
import { startTemporalDevServer } from '../../stack/temporal-server';
import { resolveTemporalCli } from '../../stack/temporal-cli';
import { createKnex } from '../../db/knex';
import { migrateLatest } from '../../db/migrate';
import { databaseUrl } from './database-url';
import { WORKFLOW_INTERCEPTOR_MODULES } from '../../worker/request-id';

interface Running {
  stops: (() => Promise<void>)[];
}

declare global {
  var __skilTestStack: Running | undefined;
}

/**
 * Starts what the integration tests share: PostgreSQL (DATABASE_URL when set, else an embedded
 * throwaway cluster), a migrated template database, a Temporal dev server (in memory) and the
 * workflow bundle. Test files find them through SKIL_TEST_* variables.
 */
export default async function globalSetup(): Promise<void> {
  const log = createLogger('test-stack', process.env.TEST_LOG_LEVEL ?? 'error');
  const running: Running = { stops: [] };
  globalThis.__skilTestStack = running;
  const root = path.resolve(__dirname, '..', '..');
  const work = await mkdtemp(path.join(os.tmpdir(), 'skil-test-'));
  // Run as root, PostgreSQL runs as the postgres user, which must be able to reach its data dir.
  await chmod(work, 0o755);

  const started = Date.now();
  const [pgUrl, temporal, bundlePath] = await Promise.all([
    (async () => {
      if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
      const pg = await startEmbeddedPostgres({
        dataDir: path.join(work, 'postgres'),
        persistent: false,
        log,
        grantTraverseUnder: root,
      });
      running.stops.push(() => pg.stop());
      return pg.url;
    })(),
    (async () => {
      // A fresh checkout builds the Temporal CLI once (minutes from a cold Go cache): said apart,
      // since it is not the suite's own time.
      const dataDir = path.join(root, '.data');
      const builtBefore = existsSync(path.join(dataDir, 'bin', 'temporal'));
      const resolving = Date.now();
      const cli = await resolveTemporalCli({ dataDir, log });
      if (cli.source === 'built' && !builtBefore)
        process.stdout.write(
          `\nTemporal CLI built into .data/bin in ${((Date.now() - resolving) / 1000).toFixed(1)} s (once per checkout)\n`,
        );
      return startTemporalDevServer({ dataDir, dbFile: null, uiPort: null, log });
    })(),
    (async () => {
      const { code } = await bundleWorkflowCode({
        workflowsPath: require.resolve('../../workflows'),
        workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
        logger: quietBundlerLogger,
      });
      const file = path.join(work, 'workflow-bundle.js');
      await writeFile(file, code);
      return file;
    })(),
  ]);
  running.stops.push(() => temporal.stop());

  const template = `skil_tpl_${process.pid}_${Date.now().toString(36)}`;
  const admin = createKnex(pgUrl, { poolMax: 1 });
  await admin.raw(`create database ${template}`);
  await admin.destroy();
  const tpl = createKnex(databaseUrl(pgUrl, template), { poolMax: 1 });
  await migrateLatest(tpl);
  await tpl.destroy();
  running.stops.push(async () => {
    const k = createKnex(pgUrl, { poolMax: 1 });
    await k.raw(`drop database if exists ${template}`).catch(() => undefined);
    await k.destroy();
  });

  process.env.SKIL_TEST_PG_URL = pgUrl;
  process.env.SKIL_TEST_TEMPLATE_DB = template;
  process.env.SKIL_TEST_TEMPORAL_ADDRESS = temporal.address;
  process.env.SKIL_TEST_WORKFLOW_BUNDLE = bundlePath;
  log.info({ ms: Date.now() - started, temporal: temporal.address }, 'test stack ready');
}

const quietBundlerLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
};
