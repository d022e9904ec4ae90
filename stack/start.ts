import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { loadConfig } from './config';
import { createLogger } from './logger';
import { startEmbeddedPostgres, type EmbeddedPostgresServer } from './embedded-postgres';
import { startTemporalDevServer, type TemporalDevServer } from './temporal-server';
import { ensureDemoMerchant } from './seed-demo';
import { createKnex } from '../db/knex';
import { migrateLatest } from '../db/migrate';
import { SIMULATED_COLLECTION_ACCOUNT, startSimulatedBank } from '../simulators/bank/claims-bank';
import { scheduleDailyClose } from '../simulators/bank/daily-close';
import { SIMULATED_BANK_FOLDERS } from '../simulators/bank/sftp-server';
import { loadOrCreateSftpLogin } from '../simulators/bank/sftp-login';
import { startSimulatedAcquirer } from '../simulators/acquirer/service';
import { startSimulatedCarriers } from '../simulators/carriers/service';
import { loadOrCreateSecretsKey } from './secrets-key';
import { startMailCatcher } from '../simulators/mail/mail-catcher';

/**
 * `npm start`: the whole service on one machine. PostgreSQL (embedded unless DATABASE_URL is set)
 * and Temporal (a dev server with a SQLite file unless TEMPORAL_ADDRESS is set) come up first, then
 * migrations, then the simulated bank and card acquirer (the test environment's outside world, each
 * on its own port with its own state under DATA_DIR), then the worker and the API as child processes.
 * Ctrl-C stops all of them.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger('skil', config.LOG_LEVEL);
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
    log.info({ migrations: ran }, ran.length ? 'migrations applied' : 'schema up to date');
    const demo = await ensureDemoMerchant(knex, config.dataDir);
    await knex.destroy();

    // The test environment's bank: IOBWS claims API and payer online bank (SIMULATED_BANK_PORT, 0 = any),
    // and the collection account's SFTP file exchange (SIMULATED_BANK_SFTP_PORT) with a password
    // login generated once and kept in its data directory (decision 0091).
    const bankDir = path.join(config.dataDir, 'simulated-bank');
    const sftpLogin = await loadOrCreateSftpLogin(bankDir, config.BANK_SFTP_USERNAME);
    const bank = await startSimulatedBank({
      dataDir: bankDir,
      port: config.SIMULATED_BANK_PORT,
      log: log.child({ part: 'simulated-bank' }),
      files: {
        rootDir: path.join(bankDir, 'sftp'),
        collectionAccount: {
          ...SIMULATED_COLLECTION_ACCOUNT,
          account: config.BANK_COLLECTION_ACCOUNT,
          ownerKennitala: config.BANK_COLLECTION_KENNITALA,
        },
        sftp: { port: config.SIMULATED_BANK_SFTP_PORT, users: [sftpLogin] },
      },
    });
    stops.push(() => bank.stop());
    const bankFiles = bank.files!;
    const bankSftp = bankFiles.sftp!;
    const stopDailyClose = scheduleDailyClose({
      closeDay: bankFiles.closeDay,
      isClosed: (date) => (bank.account.lastClosedDay?.date ?? '') >= date,
      log: log.child({ part: 'simulated-bank' }),
    });
    stops.push(() => Promise.resolve(stopDailyClose()));

    // The card acquirer every API process and the worker charge and refund through: one service with
    // its own state, which deposits captures and refunds at the simulated bank (decisions 0091, 0102),
    // unless SIMULATED_ACQUIRER_URL names one that runs elsewhere.
    let acquirerUrl = config.SIMULATED_ACQUIRER_URL;
    // Its dispute notifications go to the API, signed with a secret both are given (decision 0155).
    const notificationSecret = config.ACQUIRER_NOTIFICATION_SECRET ?? randomBytes(24).toString('base64url');
    if (acquirerUrl === undefined) {
      const acquirer = await startSimulatedAcquirer({
        dataDir: path.join(config.dataDir, 'simulated-acquirer'),
        port: config.SIMULATED_ACQUIRER_PORT,
        latencyMs: config.SIMULATED_ACQUIRER_LATENCY_MS,
        bankUrl: bank.url,
        notifyUrl: `${config.publicBaseUrl}/acquirer/notifications`,
        notificationSecret,
        log: log.child({ part: 'simulated-acquirer' }),
      });
      stops.push(() => acquirer.stop());
      acquirerUrl = acquirer.url;
    }

    // The pickup-point carriers test mode books with (issue 20): Dropp's and Pósturinn's APIs, simulated.
    let carriersUrl = config.SIMULATED_CARRIERS_URL;
    if (carriersUrl === undefined) {
      const carriers = await startSimulatedCarriers({ port: config.SIMULATED_CARRIERS_PORT });
      stops.push(() => carriers.stop());
      carriersUrl = carriers.url;
    }

    // The mail server: the configured one (SMTP_URL), else the local catcher, whose page lists every
    // message the service sends so its links can be clicked (decision 0114).
    let smtpUrl = config.SMTP_URL;
    let mailPage: string | null = null;
    if (smtpUrl === undefined) {
      const catcher = await startMailCatcher({
        smtpPort: config.MAIL_CATCHER_SMTP_PORT,
        httpPort: config.MAIL_CATCHER_PORT,
        dataDir: path.join(config.dataDir, 'mail-catcher'),
        log: log.child({ part: 'mail-catcher' }),
      });
      stops.push(() => catcher.stop());
      smtpUrl = catcher.smtpUrl;
      mailPage = catcher.pageUrl;
    }

    const env = {
      ...process.env,
      SIMULATED_CARRIERS_URL: carriersUrl,
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress,
      SIMULATED_BANK_URL: bank.url,
      SIMULATED_ACQUIRER_URL: acquirerUrl,
      ACQUIRER_NOTIFICATION_SECRET: notificationSecret,
      SECRETS_ENCRYPTION_KEY: secretsKey,
      SMTP_URL: smtpUrl,
      // The bank file connection of the collection account: the simulated bank's SFTP server, pinned,
      // unless a real connection is configured (BANK_SFTP_HOST).
      ...(config.BANK_SFTP_HOST === undefined && {
        BANK_SFTP_HOST: '127.0.0.1',
        BANK_SFTP_PORT: String(bankSftp.port),
        BANK_SFTP_USERNAME: sftpLogin.username,
        BANK_SFTP_PASSWORD: sftpLogin.password,
        BANK_SFTP_HOST_KEY_SHA256: bankSftp.hostKeyFingerprint,
        BANK_SFTP_INBOX: SIMULATED_BANK_FOLDERS.inbox,
        BANK_SFTP_ARCHIVE: SIMULATED_BANK_FOLDERS.archive,
        BANK_SFTP_OUTBOX: SIMULATED_BANK_FOLDERS.outbox,
        BANK_COLLECTION_ACCOUNT: bankFiles.collectionAccount.account,
        BANK_COLLECTION_KENNITALA: bankFiles.collectionAccount.ownerKennitala,
      }),
    };
    for (const [name, entry] of [
      ['worker', 'worker/main.ts'],
      ['api', 'api/main.ts'],
    ] as const) {
      // `node --import tsx` keeps each part one process, so signals reach it directly.
      const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, '..', entry)], {
        env,
        stdio: 'inherit',
      });
      child.on('exit', (code, signal) => {
        if (stopping) return;
        log.error({ child: name, code, signal }, 'child process exited; stopping');
        void shutdown(1);
      });
      children.push(child);
    }

    const lines = [
      '',
      'Skil is starting.',
      `  API            ${config.publicBaseUrl}  (ready when ${config.publicBaseUrl}/ready answers 200)`,
      `  Temporal UI    ${temporalUi ?? '(external Temporal at ' + temporalAddress + ')'}`,
      `  Demo merchant  ${demo.merchantId}${demo.created ? ' (created now)' : ''}`,
      `  Test API key   ${demo.testKey}   (also in ${path.join(config.dataDir, 'demo.env')})`,
      `  Dashboard      ${config.publicBaseUrl}/dashboard  (sign in as ${demo.dashboardEmail} / ${demo.dashboardPassword})`,
      `  Sign up        ${config.publicBaseUrl}/dashboard/sign-up`,
      `  Mail           ${mailPage ? `${mailPage}  (local catcher: every email the service sends, links clickable)` : `sent through ${smtpUrl.replace(/\/\/[^@/]*@/, '//…@')}`}`,
      `  Operators      npm run operator:create -- --email you@example.is`,
      `  Simulated bank ${bank.payerUrl}  (payer online bank; IOBWS claims API at ${bank.url}/v1)`,
      `  Bank files     sftp://${sftpLogin.username}@127.0.0.1:${bankSftp.port}  (${bankSftp.hostKeyFingerprint}; login in ${path.join(bankDir, 'sftp-login.json')})`,
      `  Close a day    curl -X POST -H 'content-type: application/json' -d '{}' ${bank.url}/_sim/bank/close-day`,
      `  Card acquirer  ${acquirerUrl}  (simulated; the README's test cards)`,
      `  Carriers       ${carriersUrl}  (simulated Dropp and Pósturinn; switch on with POST /v1/delivery/carriers/{id})`,
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
