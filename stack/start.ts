import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from './config';
import { createInterface } from 'node:readline';
import { createLogger } from './logger';
import { READY_MESSAGES, resolveLogFormat } from './log-format';
import { createLinePrettifier } from './pretty-lines';
import { startEmbeddedPostgres, type EmbeddedPostgresServer } from './embedded-postgres';
import { startTemporalDevServer, type TemporalDevServer } from './temporal-server';
import { ensureDemoMerchant } from './seed-demo';
import { createKnex } from '../db/knex';
import { migrateLatest } from '../db/migrate';
import { loadOrCreateSecretsKey } from './secrets-key';
import { startTestWorld } from './test-world';
import { WORKER_NODE_FLAGS } from './worker-node-flags';

/**
 * `npm start`: the whole service on one machine. PostgreSQL (embedded unless DATABASE_URL is set)
 * and Temporal (a dev server with a SQLite file unless TEMPORAL_ADDRESS is set) come up first, then
 * migrations, then the simulated bank and card acquirer (the test environment's outside world, each
 * on its own port with its own state under DATA_DIR), then the worker and the API as child processes.
 * Ctrl-C stops all of them.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  // The children write JSON into a pipe; this process writes every line, pretty for a person at a
  // terminal (decision 0206), so the banner can wait until both parts have said they serve.
  const format = resolveLogFormat(config.LOG_FORMAT, process.stdout.isTTY, process.env.NODE_ENV);
  const log = createLogger('skil', config.LOG_LEVEL, { format });
  const writeLine = format === 'pretty' ? createLinePrettifier() : (line: string) => line + '\n';
  await mkdir(config.dataDir, { recursive: true });

  const stops: (() => Promise<void>)[] = [];
  const children: ChildProcess[] = [];
  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    log.info('stopping');
    await Promise.all(children.map((c) => stopChild(c)));
    for (const stop of stops.reverse())
      await stop().catch((err: unknown) => log.warn({ err }, 'stop failed'));
    process.exit(code);
  };
  process.once('SIGINT', () => void shutdown(0));
  process.once('SIGTERM', () => void shutdown(0));

  try {
    let databaseUrl = config.DATABASE_URL;
    if (!databaseUrl) {
      const pg: EmbeddedPostgresServer = await startEmbeddedPostgres({
        dataDir: path.join(config.dataDir, 'postgres'),
        port: config.EMBEDDED_PG_PORT,
        persistent: true,
        log: log.child({ part: 'postgres' }),
        grantTraverseUnder: path.resolve(__dirname, '..'),
      });
      stops.push(() => pg.stop());
      databaseUrl = pg.url;
      log.info({ port: pg.port }, 'embedded PostgreSQL running');
    }

    let temporalAddress = config.TEMPORAL_ADDRESS;
    let temporalUi: string | null = null;
    if (!temporalAddress) {
      const temporal: TemporalDevServer = await startTemporalDevServer({
        dataDir: config.dataDir,
        dbFile: path.join(config.dataDir, 'temporal.sqlite'),
        port: config.TEMPORAL_PORT,
        uiPort: config.TEMPORAL_UI_PORT,
        namespace: config.TEMPORAL_NAMESPACE,
        log: log.child({ part: 'temporal' }),
      });
      stops.push(() => temporal.stop());
      temporalAddress = temporal.address;
      temporalUi = temporal.uiUrl;
    }

    // Signing secrets and idempotent replays are sealed at rest with this key (decision 0112).
    const secretsKey = config.SECRETS_ENCRYPTION_KEY ?? (await loadOrCreateSecretsKey(config.dataDir));
    const knex = createKnex(databaseUrl, { poolMax: 2 });
    const ran = await migrateLatest(knex, { secretsKey });
    if (ran.length) log.info({ count: ran.length, last: ran.at(-1) }, 'migrations applied');
    else log.info('schema up to date');
    const demo = await ensureDemoMerchant(knex, config.dataDir);
    await knex.destroy();

    const world = await startTestWorld(config, log, config.publicBaseUrl);
    stops.push(...world.stops);

    const env = {
      // Local development: a test channel may point at a receiver on this machine (decision 0225).
      WEBHOOK_ALLOW_LOOPBACK: 'true',
      ...process.env,
      ...world.env,
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress,
      SECRETS_ENCRYPTION_KEY: secretsKey,
    };
    const ready: Promise<void>[] = [];
    for (const [name, entry, flags] of [
      ['worker', 'worker/main.ts', WORKER_NODE_FLAGS],
      ['api', 'api/main.ts', []],
    ] as const) {
      // `node --import tsx` keeps each part one process, so signals reach it directly.
      const child = spawn(
        process.execPath,
        [...flags, '--import', 'tsx', path.join(__dirname, '..', entry)],
        { env: { ...env, LOG_FORMAT: 'json' }, stdio: ['inherit', 'pipe', 'inherit'] },
      );
      ready.push(
        new Promise((resolve) => {
          createInterface({ input: child.stdout, crlfDelay: Infinity }).on('line', (line) => {
            process.stdout.write(writeLine(line));
            if (line.includes(`"msg":"${READY_MESSAGES[name]}"`)) resolve();
          });
        }),
      );
      child.on('exit', (code, signal) => {
        if (stopping) return;
        log.error({ child: name, code, signal }, 'child process exited; stopping');
        void shutdown(1);
      });
      children.push(child);
    }
    await Promise.all(ready);

    const lines = [
      '',
      'Skil is running.',
      `  API            ${config.publicBaseUrl}  (${config.publicBaseUrl}/ready answers 200 when every part is up)`,
      `  Temporal UI    ${temporalUi ?? '(external Temporal at ' + temporalAddress + ')'}`,
      `  Demo merchant  ${demo.merchantId}${demo.created ? ' (created now)' : ''}`,
      `  Test API key   ${demo.testKey}   (also in ${path.join(config.dataDir, 'demo.env')})`,
      `  Dashboard      ${config.publicBaseUrl}/dashboard  (sign in as ${demo.dashboardEmail} / ${demo.dashboardPassword})`,
      `  Sign up        ${config.publicBaseUrl}/dashboard/sign-up`,
      `  Mail           ${world.mailPage ? `${world.mailPage}  (local catcher: every email the service sends, links clickable)` : `sent through ${world.smtpUrl.replace(/\/\/[^@/]*@/, '//…@')}`}`,
      `  Operators      npm run operator:create -- --email you@example.is`,
      `  Simulated bank ${world.bankPayerUrl}  (payer online bank; IOBWS claims API at ${world.bankUrl}/v1)`,
      `  Bank files     sftp://${world.sftp.username}@127.0.0.1:${world.sftp.port}  (${world.sftp.hostKeyFingerprint}; login in ${world.sftp.loginFile})`,
      `  Close a day    curl -X POST -H 'content-type: application/json' -d '{}' ${world.bankUrl}/_sim/bank/close-day`,
      `  Card acquirer  ${world.acquirerUrl}  (simulated; test cards: /docs/guides/testing)`,
      `  Carriers       ${world.carriersUrl}  (simulated Dropp and Pósturinn; switch on with POST /v1/delivery/carriers/{id})`,
      `  Access point   ${world.accessPointUrl}  (simulated Peppol access point for e-invoices; decision 0216)`,
      '',
      `  curl -H "Authorization: Bearer ${demo.testKey}" ${config.publicBaseUrl}/v1/events`,
      '',
    ];
    process.stdout.write(lines.join('\n') + '\n');
  } catch (err) {
    log.error({ err }, 'start-up failed');
    await shutdown(1);
  }
}

/** SIGINT, then SIGKILL if the child has not exited within 15 s. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGINT');
  });
}

void main();
