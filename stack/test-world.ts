import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Config } from './config';
import type { Logger } from './logger';
import { SIMULATED_COLLECTION_ACCOUNT, startSimulatedBank } from '../simulators/bank/claims-bank';
import { scheduleDailyClose } from '../simulators/bank/day-close/daily-schedule';
import { SIMULATED_BANK_FOLDERS } from '../simulators/bank/sftp-server';
import { loadOrCreateSftpLogin } from '../simulators/bank/sftp-login';
import { startSimulatedAcquirer } from '../simulators/acquirer/service';
import { startSimulatedCarriers } from '../simulators/carriers/service';
import { startMailCatcher } from '../simulators/mail/mail-catcher';
import { startSimulatedAccessPoint } from '../simulators/access-point/service';
import { startSimulatedCollector } from '../simulators/collector/service';

/** The test environment's outside world as started, and what the API and worker processes need to reach it. */
export interface TestWorld {
  /** Environment for the API and worker processes: bank, acquirer, carriers, mail, bank files. */
  env: Record<string, string>;
  bankUrl: string;
  bankPayerUrl: string;
  acquirerUrl: string;
  carriersUrl: string;
  /** The simulated Peppol access point test-mode e-invoices go through (decision 0215). */
  accessPointUrl: string;
  smtpUrl: string;
  /** The mail catcher's page, or null when SMTP_URL names a real server. */
  mailPage: string | null;
  sftp: { username: string; port: number; hostKeyFingerprint: string; loginFile: string };
  /** Stops what was started, in reverse order. */
  stops: (() => Promise<void>)[];
}

/**
 * Starts the test environment's outside world under `config.dataDir`: the simulated bank (IOBWS claims API, payer
 * online bank, SFTP file exchange), the card acquirer, the pickup-point carriers and the mail catcher, each unless
 * configuration names a real one. `npm start` and the cluster script (`npm run start:cluster`) share it, so both run
 * the same world; `publicBaseUrl` is where the acquirer posts dispute notifications (the API, or its load balancer).
 */
export async function startTestWorld(config: Config, log: Logger, publicBaseUrl: string): Promise<TestWorld> {
  const stops: (() => Promise<void>)[] = [];
  try {
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
        notifyUrl: `${publicBaseUrl}/acquirer/notifications`,
        notificationSecret,
        log: log.child({ part: 'simulated-acquirer' }),
      });
      stops.push(() => acquirer.stop());
      acquirerUrl = acquirer.url;
    }

    // The pickup-point carriers test mode books with (decision 0137): Dropp's and Pósturinn's APIs, simulated.
    let carriersUrl = config.SIMULATED_CARRIERS_URL;
    if (carriersUrl === undefined) {
      const carriers = await startSimulatedCarriers({ port: config.SIMULATED_CARRIERS_PORT });
      stops.push(() => carriers.stop());
      carriersUrl = carriers.url;
    }

    // The Peppol access point test mode sends e-invoices through (decisions 0215, 0216): simulated, with
    // the in-process document checks (no JVM here), unless SIMULATED_ACCESS_POINT_URL names one.
    let accessPointUrl = config.SIMULATED_ACCESS_POINT_URL;
    if (accessPointUrl === undefined) {
      const accessPoint = await startSimulatedAccessPoint({
        port: config.SIMULATED_ACCESS_POINT_PORT,
        log: log.child({ part: 'simulated-access-point' }),
      });
      stops.push(() => accessPoint.stop());
      accessPointUrl = accessPoint.url;
    }

    // The collector test mode hands overdue kröfur to (decisions 0247, 0248), unless
    // SIMULATED_COLLECTOR_URL names one.
    let collectorUrl = config.SIMULATED_COLLECTOR_URL;
    if (collectorUrl === undefined) {
      const collector = await startSimulatedCollector({ port: config.SIMULATED_COLLECTOR_PORT });
      stops.push(() => collector.stop());
      collectorUrl = collector.url;
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

    const env: Record<string, string> = {
      SIMULATED_CARRIERS_URL: carriersUrl,
      SIMULATED_ACCESS_POINT_URL: accessPointUrl,
      SIMULATED_COLLECTOR_URL: collectorUrl,
      SIMULATED_BANK_URL: bank.url,
      SIMULATED_ACQUIRER_URL: acquirerUrl,
      ACQUIRER_NOTIFICATION_SECRET: notificationSecret,
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
    return {
      env,
      bankUrl: bank.url,
      bankPayerUrl: bank.payerUrl,
      acquirerUrl,
      carriersUrl,
      accessPointUrl,
      smtpUrl,
      mailPage,
      sftp: {
        username: sftpLogin.username,
        port: bankSftp.port,
        hostKeyFingerprint: bankSftp.hostKeyFingerprint,
        loginFile: path.join(bankDir, 'sftp-login.json'),
      },
      stops,
    };
  } catch (err) {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    throw err;
  }
}
