import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../stack/logger';
import { AcquirerStore } from './store';
import { createAcquirerHandler } from './protocol';

export interface SimulatedAcquirerOptions {
  /** Where its state lives (decision 0102); the same directory after a restart keeps everything. */
  dataDir: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  /** Where browsers reach it, for the 3-D Secure page; default `http://{host}:{port}`. */
  publicUrl?: string;
  latencyMs?: number;
  /** The simulated bank told of each capture and refund (decision 0091); unset: none. */
  bankUrl?: string | undefined;
  /** Where dispute notifications go (decision 0155); a function when known only after start. */
  notifyUrl?: string | (() => string | undefined) | undefined;
  /** The secret dispute notifications are signed with. */
  notificationSecret?: string | undefined;
  log?: Logger;
}

export interface SimulatedAcquirer {
  /** Base URL of its HTTP protocol (`{url}/v1/authorizations`, …), for every API and worker process. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * The test environment's card acquirer as one service of its own (decision 0102): every API process
 * and every worker reach it over HTTP at `url`, as they would a real acquirer, and its state is its
 * own (`dataDir`), never Skil's tables.
 */
export async function startSimulatedAcquirer(opts: SimulatedAcquirerOptions): Promise<SimulatedAcquirer> {
  const store = await AcquirerStore.open(opts.dataDir);
  const host = opts.host ?? '127.0.0.1';
  let handler: ReturnType<typeof createAcquirerHandler> | null = null;
  const server = createServer((req, res) => {
    if (handler) handler(req, res);
    else res.writeHead(503).end();
  });
  await new Promise<Server>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve(server));
  }).catch(async (err: unknown) => {
    await store.close();
    throw err;
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host}:${port}`;
  // Built once the port is known: the 3-D Secure pages are addressed from it.
  handler = createAcquirerHandler({
    store,
    latencyMs: opts.latencyMs ?? 0,
    publicUrl: opts.publicUrl ?? url,
    bankUrl: opts.bankUrl,
    notifyUrl: opts.notifyUrl,
    notificationSecret: opts.notificationSecret,
    log: opts.log,
  });
  opts.log?.info({ url, dataDir: opts.dataDir }, 'simulated acquirer listening');
  return {
    url,
    port,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await store.close();
    },
  };
}
