import type * as TemporalClient from '@temporalio/client';
import type { Client } from '@temporalio/client';
import type * as KnexModule from '../../db/knex';
import type { Knex } from '../../db/knex';
import type { TestDatabase } from './database';
import type { SimulatedBankWithFiles, ValidatedBank } from './simulated-bank';
import type { LiveAcquirer } from '../../adapters/acquirers/environment-acquirer';
import type { CompanyRegistry } from '../../domain/company-registry';
import type { TestAcquirer } from './acquirer';
import type { BankConnection } from '../../adapters/banks/bank-connections';
import type { ClaimsApi } from '../../adapters/banks/claims-api';
import type { DefaultInterestRateTable } from '../../domain/default-interest-rates';
import type { Collector } from '../../adapters/collectors/collector';
import type { MailCatcher } from './mail';
import type { RateLimits } from '../../api/middleware/rate-limit';
import type { SimulatedCarriers } from '../../simulators/carriers/service';
import type { SimulatedAccessPoint } from '../../simulators/access-point/service';
import { TEST_SECRETS_KEY } from './secrets-key';

export { TEST_SECRETS_KEY };

export interface TestMerchant {
  id: string;
  testKey: string;
  liveKey: string;
}

export interface TestStack {
  url: string;
  knex: Knex;
  db: TestDatabase;
  client: Client;
  taskQueue: string;
  /** The simulated bank, with `bank: true`; the API and the worker reach it through the real client. */
  bank: ValidatedBank | null;
  /**
   * With `bankFiles: true`: the bank's file exchange (SFTP server, day close) and the connection the
   * worker syncs and pays out through. The simulated acquirer reports its captures and refunds to
   * this bank.
   */
  bankFiles: { sim: SimulatedBankWithFiles; connection: BankConnection; filesDir: string } | null;
  /** The simulated card acquirer the API and the worker share, over HTTP (decision 0102). */
  acquirer: TestAcquirer;
  /** The simulated pickup-point carriers (Dropp's and Pósturinn's APIs) test mode books with. */
  carriers: SimulatedCarriers;
  /** The simulated Peppol access point test-mode invoices are delivered through (decision 0216). */
  accessPoint: SimulatedAccessPoint;
  /** The local mail catcher the API's mail goes to over SMTP (decision 0114). */
  mail: MailCatcher;
  /** A new merchant with a test and a live key. */
  merchant(name?: string): Promise<TestMerchant>;
  /** fetch against the API with a key. */
  api(
    key: string | null,
    path: string,
    init?: RequestInit & { json?: unknown },
  ): Promise<{ status: number; body: any; headers: Headers; text: string }>;
  /** Starts the in-process worker; `liveClaimsApi` replaces the stack's live claims bank for it. */
  startWorker(overrides?: { liveClaimsApi?: ClaimsApi }): Promise<void>;
  stopWorker(): Promise<void>;
  stop(): Promise<void>;
}

export interface TestStackOptions {
  /** Webhook attempt delays in ms; default the production schedule. */
  schedule?: number[];
  /** Run a Temporal worker in this process (default true). */
  worker?: boolean;
  bodyLimitBytes?: number;
  webhookAttemptTimeoutMs?: number;
  /**
   * Listen on a port chosen first, so publicBaseUrl is the real address: needed by anything that
   * follows URLs the API hands out (checkout pages, the portal).
   */
  realBaseUrl?: boolean;
  /** Start a simulated bank (claims API over HTTP) and give the API and the worker a client of it. */
  bank?: boolean;
  /** The simulated bank with its SFTP file exchange too (implies `bank`); see TestStack.bankFiles. */
  bankFiles?: boolean;
  /** Rate limits of the API (decision 0110); unset: none, as most tests want. */
  rateLimits?: RateLimits;
  /** The webhook activities' clock; a test moves it forward to stand for days passing. */
  webhookClock?: () => Date;
  /** The worker's settlement auto-approve limit (ISK); unset: the worker's default. */
  settlementAutoApproveMaxNet?: number;
  /** The live environment's claims bank of the API and the worker (decision 0177); unset: none. */
  liveClaimsApi?: ClaimsApi;
  /** Each answer of the shared simulated acquirer takes this long, as a real acquirer's would. */
  acquirerLatencyMs?: number;
  /** A live card acquirer's adapter (decision 0165); unset: live card payments answer 503. */
  liveAcquirer?: LiveAcquirer;
  /** The live company registry (decision 0166); unset: live registry lookups answer 503. */
  liveRegistry?: CompanyRegistry;
  /** The simulated bank's clock and statutory rate table (decision 0246); unset: real time, its default rate. */
  bankOptions?: { now?: () => Date; statutoryRates?: DefaultInterestRateTable };
  /** The collector overdue kröfur are handed to (decision 0247); unset: none. */
  collector?: Collector;
}

/**
 * The API and, unless told otherwise, a worker, on this file's own database and task queue, against
 * the run's real PostgreSQL and Temporal dev server (test/helpers/stack-start.ts). Under jest the
 * stack is started in the jest worker's own realm (test/helpers/shared-stack-environment.ts), where
 * the API's and the worker's modules are loaded once per worker process rather than once per file;
 * the file gets it wrapped as the shared stack is (below), and `stop()` stops it.
 */
export async function startTestStack(opts: TestStackOptions = {}): Promise<TestStack> {
  const start = globalThis.__skilStartStack;
  // An adapter the file made is of the file's realm: the stack's `instanceof` checks on what it
  // throws (bank_unavailable, a refused card) would fail in the other realm, so such a stack starts
  // here.
  const fileAdapters = opts.liveClaimsApi ?? opts.liveAcquirer ?? opts.liveRegistry;
  if (!start || fileAdapters) return (await import('./stack-start')).startStack(opts);
  return inThisRealm(await start(opts), 'own');
}

/** The options of each jest worker's shared stack: a worker, real URLs and the simulated claims bank. */
export const SHARED_STACK_OPTIONS: TestStackOptions = { realBaseUrl: true, bank: true };

declare global {
  // Set by test/helpers/shared-stack-environment.ts in every file's global.
  var __skilSharedStack: (() => Promise<TestStack>) | undefined;
  var __skilStartStack: ((opts: TestStackOptions) => Promise<TestStack>) | undefined;
}

/**
 * This jest worker's shared stack (decision 0200), started with SHARED_STACK_OPTIONS by the first
 * file that asks and kept for the worker's later files. A file on it makes its own merchants and
 * sees only them; it must not stop or restart the worker, change the stack's settings or read
 * anything the whole database holds (billing runs, settlement days, bank files, operators): such a
 * file starts a stack of its own with startTestStack.
 *
 * What crosses from the worker's realm is wrapped (inThisRealm, below); `stop()` closes the file's
 * own connections and leaves the stack running.
 */
export async function sharedTestStack(): Promise<TestStack> {
  const outer = globalThis.__skilSharedStack ? await globalThis.__skilSharedStack() : null;
  if (!outer) return startTestStack(SHARED_STACK_OPTIONS);
  return inThisRealm(outer, 'shared');
}

/**
 * A stack from the jest worker's realm, as this file uses it: the file's own knex and Temporal
 * client on the stack's database and server, so rows and results are this file's objects. A
 * shared stack may not be stopped, restarted or dropped, and `stop()` closes only the file's own
 * connections; a file's own stack does all three.
 */
function inThisRealm(outer: TestStack, kind: 'shared' | 'own'): TestStack {
  // The file's knex and Temporal client are made when first used: a file that only calls the API
  // loads neither.
  const files = fileKnex(outer.db.url);
  let temporal: { client: Client; close: () => Promise<void> } | undefined;
  const ownClient = () => {
    if (temporal) return temporal.client;
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use (above)
    const { Client, Connection } = require('@temporalio/client') as typeof TemporalClient;
    const connection = Connection.lazy({ address: process.env.SKIL_TEST_TEMPORAL_ADDRESS! });
    temporal = { client: new Client({ connection, namespace: 'default' }), close: () => connection.close() };
    return temporal.client;
  };
  const closeOwn = async () => {
    await files.close();
    await temporal?.close();
    temporal = undefined;
  };
  const notHere = (what: string) => () => {
    throw new Error(`${what} on the shared stack: start a stack of its own (startTestStack)`);
  };
  const own = kind === 'own';
  return {
    ...outer,
    get knex() {
      return files.knex();
    },
    db: files.database(
      own
        ? async () => {
            await closeOwn();
            await outer.db.drop();
          }
        : notHere('dropping the database'),
    ),
    get client() {
      return ownClient();
    },
    api: (key, path, init) => callApi(outer.url, key, path, init),
    startWorker: own
      ? (overrides) => {
          if (overrides?.liveClaimsApi)
            throw new Error('a claims API made in the file: start the stack with it (startTestStack)');
          return outer.startWorker();
        }
      : notHere('starting a worker'),
    stopWorker: own ? () => outer.stopWorker() : notHere('stopping the worker'),
    async stop() {
      await closeOwn();
      if (own) await outer.stop();
    },
  };
}

/**
 * The file's own knex on a stack's database, made on first use, and the database as the file sees
 * it through that knex; `drop` is the stack's.
 */
export function fileKnex(url: string): {
  knex(): Knex;
  database(drop: () => Promise<void>): TestDatabase;
  close(): Promise<void>;
} {
  let knex: Knex | undefined;
  const own = () => {
    if (knex) return knex;
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use (above)
    const { createKnex } = require('../../db/knex') as typeof KnexModule;
    return (knex = createKnex(url, { poolMax: 10 }));
  };
  return {
    knex: own,
    database: (drop) => ({
      url,
      get knex() {
        return own();
      },
      drop,
    }),
    async close() {
      await knex?.destroy();
      knex = undefined;
    },
  };
}

/** fetch against the API at `url` with a key (TestStack.api). */
export async function callApi(
  url: string,
  key: string | null,
  path: string,
  init: RequestInit & { json?: unknown } = {},
): Promise<{ status: number; body: any; headers: Headers; text: string }> {
  const headers = new Headers(init.headers);
  if (key !== null) headers.set('authorization', `Bearer ${key}`);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(init.json);
  }
  const res = await fetch(url + path, { ...init, headers, ...(body !== undefined && { body }) });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, headers: res.headers, text };
}
