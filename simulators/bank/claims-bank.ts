import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import path from 'node:path';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from '../../stack/logger';
import type { DefaultInterestRateTable } from '../../domain/default-interest-rates';
import { createAcquirerSettlementsRouter } from './acquirer-settlements';
import { createDayCloser, type DayCloseResult } from './day-close/close-day';
import type { CamtAccountInfo } from './camt-writer';
import { ClaimsLedger, type LedgerSnapshot } from './claims-ledger';
import { CollectionAccount } from './collection-account';
import { createClaimPayRouter } from './claim-pay-router';
import { createDayCloseRouter } from './day-close/router';
import { startSimulatedBankSftp, type SimulatedBankSftp, type SimulatedBankUser } from './sftp-server';
import { createClaimsRouter, type OAuthClient } from './claims-service';
import { createPayerRouter } from './payer-page';

/**
 * The simulated bank's claims side as one HTTP(S) server: the IOBWS claims API under `/v1`, its
 * OAuth2 token endpoint at `/oauth2/token`, and the payer online bank at `/bank`. State is kept
 * in memory and, with `dataDir`, written to `claims-ledger.json` there (decision 0074).
 *
 * With `files`, it is also the collection account's bank (decision 0091): the acquirer reports
 * captures and refunds at `POST /_sim/acquirer-settlements`, `POST /_sim/bank/close-day` (or
 * `closeDay()`) publishes camt.054/camt.053 into the SFTP root's inbox and books pain.001 payouts
 * from its outbox, and `files.sftp` serves that root over SFTP.
 */

/** The collection account the simulated bank keeps for Skil (decision 0090). */
export const SIMULATED_COLLECTION_ACCOUNT: CamtAccountInfo = {
  account: '013326000133',
  ownerName: 'Skil ehf.',
  ownerKennitala: '5012131870',
};

export interface SimulatedBankFilesOptions {
  /** The file exchange's root: `inbox/` (statements for Skil), `outbox/` (payment files from Skil). */
  rootDir: string;
  collectionAccount?: CamtAccountInfo;
  /** Serve `rootDir` over SFTP (sftp-server.ts); omitted: no SFTP server. */
  sftp?: { port?: number; host?: string; users: SimulatedBankUser[]; hostKey?: string };
}

export interface SimulatedBankFiles {
  rootDir: string;
  collectionAccount: CamtAccountInfo;
  sftp?: SimulatedBankSftp;
  /** Closes a banking day (default today); see day-close/close-day.ts. */
  closeDay: (date?: string) => Promise<DayCloseResult>;
}

/** The client `npm start` and the test stack use unless told otherwise (public test credentials). */
export const SIMULATED_BANK_CLIENT: Required<OAuthClient> = {
  clientId: 'skil-test',
  clientSecret: 'simulated-bank-test-secret',
};

export interface SimulatedBankOptions {
  log: Logger;
  /** Directory for the ledger file; omitted: memory only (tests). */
  dataDir?: string;
  /** 0 or omitted: a free port. */
  port?: number;
  host?: string;
  clients?: OAuthClient[];
  /** HTTPS, and with `requestCert` mutual TLS: only clients with a certificate signed by `ca` connect. */
  tls?: { cert: string | Buffer; key: string | Buffer; ca?: string | Buffer; requestCert?: boolean };
  now?: () => Date;
  /** The statutory default-interest rates (claims naming no percentage); omitted: the ledger's. */
  statutoryRates?: DefaultInterestRateTable;
  tokenTtlSeconds?: number;
  /** Sees every `/v1` request and its answer (tests validate them against the OpenAPI document). */
  observe?: (exchange: ObservedExchange) => void;
  /**
   * The claimant's name by kennitala, as a bank knows its claimants and shows them to payers;
   * omitted: the test company registry's table. Unknown claimants show their kennitala.
   */
  claimantName?: (kennitala: string) => string | null;
  /** The collection account's file exchange (camt out, pain.001 in); omitted: none. */
  files?: SimulatedBankFilesOptions;
}

export interface ObservedExchange {
  method: string;
  path: string;
  query: Record<string, unknown>;
  requestHeaders: Record<string, string | string[] | undefined>;
  requestBody: unknown;
  status: number;
  responseHeaders: Record<string, unknown>;
  responseBody: unknown;
  /** The common name of the client certificate the connection was made with (mutual TLS); null: none. */
  clientCertificate: string | null;
}

export interface SimulatedBank {
  /** Base URL of the claims API (`/v1/…` below it). */
  url: string;
  /** The payer online bank. */
  payerUrl: string;
  ledger: ClaimsLedger;
  /** The collection account's book (acquirer reports, balance, closed days). */
  account: CollectionAccount;
  /** Present when started with `files`. */
  files?: SimulatedBankFiles;
  stop(): Promise<void>;
}

const LEDGER_FILE = 'claims-ledger.json';

/** The CN of a verified client certificate on the request's connection, if any. */
function peerCommonName(req: Request): string | null {
  const socket = req.socket as Partial<TLSSocket>;
  if (!socket.authorized) return null;
  const cn = socket.getPeerCertificate?.()?.subject?.CN;
  return typeof cn === 'string' ? cn : null;
}

/** Starts the simulated bank's claims service. */
export async function startSimulatedBank(opts: SimulatedBankOptions): Promise<SimulatedBank> {
  const ledger = new ClaimsLedger({
    ...(opts.now && { now: opts.now }),
    ...(opts.statutoryRates !== undefined && { statutoryRates: opts.statutoryRates }),
  });

  let persist: () => Promise<void> = () => Promise.resolve();
  if (opts.dataDir) {
    const dir = opts.dataDir;
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, LEDGER_FILE);
    const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    });
    if (text) ledger.load(JSON.parse(text) as LedgerSnapshot);
    let timer: NodeJS.Timeout | null = null;
    // Writes run one after another (a stop during a debounced write must not race its rename).
    let chain: Promise<void> = Promise.resolve();
    persist = () => {
      if (timer) clearTimeout(timer);
      timer = null;
      chain = chain
        .catch(() => undefined)
        .then(async () => {
          await writeFile(`${file}.tmp`, JSON.stringify(ledger.snapshot()));
          await rename(`${file}.tmp`, file);
        });
      return chain;
    };
    // Coalesce bursts (a batch of thousands) into one write.
    ledger.onChange = () => {
      timer ??= setTimeout(() => {
        persist().catch((err: unknown) =>
          opts.log.error({ err }, 'simulated bank: could not save the ledger'),
        );
      }, 250);
    };
  }

  const now = opts.now ?? (() => new Date());
  const account = await CollectionAccount.open(opts.dataDir);
  let files: SimulatedBankFiles | undefined;
  if (opts.files) {
    const f = opts.files;
    const collectionAccount = f.collectionAccount ?? SIMULATED_COLLECTION_ACCOUNT;
    for (const folder of ['inbox', 'archive', 'outbox'])
      await mkdir(path.join(f.rootDir, folder), { recursive: true });
    files = {
      rootDir: f.rootDir,
      collectionAccount,
      closeDay: createDayCloser({
        ledger,
        account,
        rootDir: f.rootDir,
        collectionAccount,
        now,
        log: opts.log,
      }),
    };
  }

  const app = express();
  app.disable('x-powered-by');
  app.use(createAcquirerSettlementsRouter({ account, now, log: opts.log }));
  app.use(createDayCloseRouter(files?.closeDay));
  app.use(createClaimPayRouter(ledger));
  if (opts.observe) {
    const observe = opts.observe;
    app.use('/v1', (req: Request, res: Response, next: NextFunction) => {
      let responseBody: unknown;
      const json = res.json.bind(res);
      res.json = (body: unknown) => {
        responseBody = body;
        return json(body);
      };
      res.on('finish', () =>
        observe({
          method: req.method,
          path: req.originalUrl.split('?')[0]!,
          query: { ...(req.query as Record<string, unknown>) },
          requestHeaders: req.headers,
          requestBody: req.body as unknown,
          status: res.statusCode,
          responseHeaders: res.getHeaders(),
          responseBody,
          clientCertificate: peerCommonName(req),
        }),
      );
      next();
    });
  }
  app.use(
    createClaimsRouter({
      ledger,
      clients: opts.clients ?? [SIMULATED_BANK_CLIENT],
      ...(opts.tokenTtlSeconds !== undefined && { tokenTtlSeconds: opts.tokenTtlSeconds }),
    }),
  );
  app.use('/bank', createPayerRouter(ledger, opts.claimantName));
  // Malformed JSON is the client's fault (FORMAT_ERROR); anything else is ours, without details.
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const status = (err as { status?: number }).status;
    if (status && status >= 400 && status < 500)
      return void res.status(400).json({
        type: 'urn:iobws:error:FORMAT_ERROR',
        code: 'FORMAT_ERROR',
        title: 'FORMAT_ERROR',
        detail: 'the request body could not be read',
      });
    opts.log.error({ err }, 'simulated bank: request failed');
    res.status(500).end();
  });

  const server = opts.tls
    ? https.createServer(
        {
          cert: opts.tls.cert,
          key: opts.tls.key,
          ...(opts.tls.ca && { ca: opts.tls.ca }),
          requestCert: opts.tls.requestCert ?? false,
          rejectUnauthorized: opts.tls.requestCert ?? false,
        },
        app,
      )
    : http.createServer(app);
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `${opts.tls ? 'https' : 'http'}://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  opts.log.info({ url }, 'simulated bank listening');
  if (files && opts.files?.sftp) {
    const s = opts.files.sftp;
    try {
      files.sftp = await startSimulatedBankSftp({
        rootDir: files.rootDir,
        users: s.users,
        ...(s.port !== undefined && { port: s.port }),
        ...(s.host !== undefined && { host: s.host }),
        ...(s.hostKey !== undefined && { hostKey: s.hostKey }),
        ...(opts.dataDir !== undefined && { dataDir: opts.dataDir }),
        logger: opts.log,
      });
    } catch (err) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      throw err;
    }
  }

  return {
    url,
    payerUrl: `${url}/bank`,
    ledger,
    account,
    ...(files && { files }),
    async stop() {
      await files?.sftp?.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await persist();
    },
  };
}
