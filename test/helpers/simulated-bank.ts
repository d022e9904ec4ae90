import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from '../../stack/logger';
import {
  SIMULATED_BANK_CLIENT,
  startSimulatedBank,
  type ObservedExchange,
  type SimulatedBank,
  type SimulatedBankOptions,
} from '../../simulators/bank/claims-bank';
import { IobwsClaimsClient, type IobwsClaimsClientConfig } from '../../adapters/banks/iobws-claims-client';
import type { BankConnection } from '../../adapters/banks/bank-connections';
import type { DayCloseResult } from '../../simulators/bank/day-close/close-day';
import type { CamtAccountInfo } from '../../simulators/bank/camt-writer';
import { SIMULATED_BANK_FOLDERS } from '../../simulators/bank/sftp-server';
import { loadIobwsValidator, type OpenApiValidator } from './iobws-openapi';

let validator: OpenApiValidator | null = null;

export interface ValidatedBank {
  bank: SimulatedBank;
  exchanges: ObservedExchange[];
  /**
   * Every problem the OpenAPI document finds in the traffic so far (requests and responses), or in
   * the exchanges from index `from` on.
   */
  problems(opts?: { requests?: boolean; from?: number }): string[];
  /** The real client pointed at this bank with the default test credentials. */
  client(extra?: Partial<IobwsClaimsClientConfig>): IobwsClaimsClient;
}

/** The simulated bank with every /v1 exchange recorded for validation against IOBWS-Claims3.1.yaml. */
export async function startValidatedBank(opts: Partial<SimulatedBankOptions> = {}): Promise<ValidatedBank> {
  validator ??= loadIobwsValidator();
  const v = validator;
  const exchanges: ObservedExchange[] = [];
  const bank = await startSimulatedBank({
    log: createLogger('simulated-bank-test', process.env.TEST_LOG_LEVEL ?? 'silent'),
    ...opts,
    observe: (x) => exchanges.push(x),
  });
  return {
    bank,
    exchanges,
    problems({ requests = true, from = 0 } = {}) {
      return exchanges
        .slice(from)
        .flatMap((x) =>
          [...(requests ? v.request(x) : []), ...v.response(x)].map(
            (p) => `${x.method} ${x.path} ${x.status}: ${p}`,
          ),
        );
    },
    client(extra = {}) {
      return new IobwsClaimsClient({
        baseUrl: bank.url,
        clientId: SIMULATED_BANK_CLIENT.clientId,
        clientSecret: SIMULATED_BANK_CLIENT.clientSecret,
        baseDelayMs: 10,
        ...extra,
      });
    },
  };
}

export interface TestPki {
  dir: string;
  caCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

/** A throwaway CA, a server certificate for 127.0.0.1 and a client certificate (CN = clientCn), via openssl. */
export function createTestPki(clientCn: string): TestPki {
  const dir = mkdtempSync(path.join(tmpdir(), 'skil-pki-'));
  const f = (name: string) => path.join(dir, name);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.crt'),
    '-days',
    '1',
    '-subj',
    '/CN=Skil test CA',
  );
  writeFileSync(f('server.ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  writeFileSync(f('client.ext'), 'extendedKeyUsage=clientAuth\n');
  for (const [name, cn] of [
    ['server', '127.0.0.1'],
    ['client', clientCn],
  ] as const) {
    ssl('req', ...ec, '-keyout', f(`${name}.key`), '-out', f(`${name}.csr`), '-subj', `/CN=${cn}`);
    ssl(
      'x509',
      '-req',
      '-in',
      f(`${name}.csr`),
      '-CA',
      f('ca.crt'),
      '-CAkey',
      f('ca.key'),
      '-CAcreateserial',
      '-out',
      f(`${name}.crt`),
      '-days',
      '1',
      '-extfile',
      f(`${name}.ext`),
    );
  }
  return {
    dir,
    caCert: f('ca.crt'),
    serverCert: f('server.crt'),
    serverKey: f('server.key'),
    clientCert: f('client.crt'),
    clientKey: f('client.key'),
  };
}

/** The simulated bank with its file exchange: SFTP server, collection account, day close. */
export interface SimulatedBankWithFiles {
  bank: SimulatedBank;
  /** The bank's HTTP base URL (IOBWS `/v1`, `/_sim/acquirer-settlements`, `/_sim/bank/close-day`). */
  baseUrl: string;
  sftpPort: number;
  /** `SHA256:…` of the SFTP host key, as BankConnection pins it. */
  hostKeySha256: string;
  username: string;
  password: string;
  /** The SFTP root on disk: `inbox/` (camt files for Skil), `outbox/` (pain.001 from Skil). */
  rootDir: string;
  collectionAccount: CamtAccountInfo;
  /** Closes a banking day (default: the bank's today) and publishes its camt files into `inbox/`. */
  closeDay(date?: string): Promise<DayCloseResult>;
  stop(): Promise<void>;
}

/**
 * Starts the simulated bank WITH its SFTP file exchange on a free port, a random password user and
 * a fresh root directory (unless `rootDir` is given). Pass `now` to drive the bank's clock, and
 * `dataDir` to persist its ledger, collection account and host key. Stop it with `stop()`.
 *
 *   const sim = await startSimulatedBankWithFiles();
 *   const connection = simulatedBankConnection(sim);          // settleMs 20
 *   await sim.closeDay('2026-11-23');                          // camt053_20261123_1.xml in inbox/
 */
export async function startSimulatedBankWithFiles(
  opts: Partial<SimulatedBankOptions> & { rootDir?: string; username?: string } = {},
): Promise<SimulatedBankWithFiles> {
  const { rootDir: givenRoot, username = 'skil', ...bankOpts } = opts;
  const rootDir = givenRoot ?? mkdtempSync(path.join(tmpdir(), 'skil-bank-sftp-'));
  const password = randomBytes(18).toString('base64url');
  const bank = await startSimulatedBank({
    log: createLogger('simulated-bank-test', process.env.TEST_LOG_LEVEL ?? 'silent'),
    ...bankOpts,
    files: { rootDir, sftp: { port: 0, users: [{ username, password }] }, ...bankOpts.files },
  });
  return withFilesView(bank, { rootDir, username, password });
}

/** The file-exchange view of a simulated bank started with `files` and an SFTP login. */
export function withFilesView(
  bank: SimulatedBank,
  login: { rootDir: string; username: string; password: string },
): SimulatedBankWithFiles {
  const files = bank.files!;
  return {
    bank,
    baseUrl: bank.url,
    sftpPort: files.sftp!.port,
    hostKeySha256: files.sftp!.hostKeyFingerprint,
    ...login,
    collectionAccount: files.collectionAccount,
    closeDay: (date) => files.closeDay(date),
    stop: () => bank.stop(),
  };
}

/** A BankConnection (as bankConnectionsFromConfig builds) for the bank above; settleMs 20 by default. */
export function simulatedBankConnection(
  sim: SimulatedBankWithFiles,
  opts: { id?: string; livemode?: boolean; settleMs?: number } = {},
): BankConnection {
  return {
    id: opts.id ?? 'simulated',
    livemode: opts.livemode ?? false,
    sftp: {
      host: '127.0.0.1',
      port: sim.sftpPort,
      username: sim.username,
      password: sim.password,
      hostKeySha256: sim.hostKeySha256,
      folders: { ...SIMULATED_BANK_FOLDERS },
      settleMs: opts.settleMs ?? 20,
      connectRetry: { attempts: 2, initialDelayMs: 20, maxDelayMs: 100 },
    },
    collectionAccount: {
      account: sim.collectionAccount.account,
      kennitala: sim.collectionAccount.ownerKennitala,
    },
  };
}
