import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from './config';
import type { Logger } from './logger';
import { startEmbeddedPostgres, type EmbeddedPostgresServer } from './embedded-postgres';
import { freePort } from './free-port';
import { loadOrCreateSecretsKey } from './secrets-key';
import { ensureDemoMerchant, type DemoMerchant } from './seed-demo';
import { startTestWorld, type TestWorld } from './test-world';
import { resolveTemporalServerBinaries } from './temporal-server-binaries';
import { setupTemporalSchema, startTemporalClusterServer } from './temporal-cluster-server';
import { startTemporalUiServer } from './temporal-ui-server';
import { startSupervised, type SupervisedProcess } from './supervised-process';
import { startLoadBalancer, type LoadBalancer } from './load-balancer';
import { WORKER_NODE_FLAGS } from './worker-node-flags';
import { createKnex } from '../db/knex';
import { migrateLatest } from '../db/migrate';

const HOST = '127.0.0.1';

export type ClusterOptions = {
  config: Config;
  log: Logger;
  /** History shards of a new Temporal database (fixed once set up); default 4. */
  historyShards?: number;
  apis?: number;
  workers?: number;
  /** Where its state lives; default `<DATA_DIR>/cluster`. The built binaries stay in `<DATA_DIR>/bin`. */
  stateDir?: string;
  /** Extra environment for the API and worker processes. */
  env?: Record<string, string>;
};

/** A running cluster: what to reach, and the handles a chaos run needs to hurt it. */
export interface Cluster {
  /** The load balancer in front of the API processes: the one public address. */
  url: string;
  temporalAddress: string;
  temporalUiUrl: string;
  databaseUrl: string;
  dir: string;
  demo: DemoMerchant;
  world: TestWorld;
  loadBalancer: LoadBalancer;
  apis: SupervisedProcess[];
  workers: SupervisedProcess[];
  temporal: SupervisedProcess;
  /** Stops the embedded PostgreSQL (fast shutdown) and starts it again on the same port and data. */
  restartPostgres(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * `npm run start:cluster`: Skil as it runs in production, on one machine. The Temporal server (built from the Go
 * module proxy at the pinned version) on PostgreSQL with several history shards, its schema set up by Temporal's own
 * SQL tool, and its Web UI; two API processes behind a round-robin load balancer, two worker processes; all of them
 * supervised (restarted when they die). PostgreSQL is the embedded one unless DATABASE_URL is set. State lives in
 * `<DATA_DIR>/cluster`, apart from `npm start`'s. Decision 0170.
 */
export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  const { config, log } = opts;
  const dir = opts.stateDir ?? path.join(config.dataDir, 'cluster');
  const logDir = path.join(dir, 'logs');
  await mkdir(logDir, { recursive: true });
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse())
      await stop().catch((err: unknown) => log.warn({ err }, 'stop failed'));
  };

  try {
    const binaries = await resolveTemporalServerBinaries({ dataDir: config.dataDir, log });

    let pg: EmbeddedPostgresServer | null = null;
    const pgOptions = {
      dataDir: path.join(dir, 'postgres'),
      port: config.EMBEDDED_PG_PORT,
      persistent: true,
      log: log.child({ part: 'postgres' }),
      grantTraverseUnder: path.resolve(__dirname, '..'),
    };
    let databaseUrl = config.DATABASE_URL;
    if (!databaseUrl) {
      pg = await startEmbeddedPostgres(pgOptions);
      stops.push(() => pg!.stop());
      databaseUrl = pg.url;
    }
    const dbUrl = new URL(databaseUrl);
    const postgres = {
      host: dbUrl.hostname,
      port: Number(dbUrl.port || 5432),
      user: decodeURIComponent(dbUrl.username),
      password: decodeURIComponent(dbUrl.password),
    };

    await setupTemporalSchema(binaries.sqlTool, postgres, log);
    const temporalDir = path.join(dir, 'temporal');
    const temporal = await startTemporalClusterServer({
      binaries,
      dir: temporalDir,
      postgres,
      frontendPort: config.TEMPORAL_PORT,
      historyShards: opts.historyShards ?? 4,
      namespace: config.TEMPORAL_NAMESPACE,
      log,
    });
    stops.push(() => temporal.process.stop());
    const ui = await startTemporalUiServer({
      binary: binaries.uiServer,
      dir: path.join(dir, 'temporal-ui'),
      temporalAddress: temporal.address,
      port: config.TEMPORAL_UI_PORT,
      namespace: config.TEMPORAL_NAMESPACE,
      log,
    });
    stops.push(() => ui.process.stop());

    const secretsKey = config.SECRETS_ENCRYPTION_KEY ?? (await loadOrCreateSecretsKey(dir));
    const knex = createKnex(databaseUrl, { poolMax: 2 });
    try {
      const ran = await migrateLatest(knex, { secretsKey });
      log.info({ migrations: ran }, ran.length ? 'migrations applied' : 'schema up to date');
    } finally {
      await knex.destroy();
    }
    const knexDemo = createKnex(databaseUrl, { poolMax: 1 });
    const demo = await ensureDemoMerchant(knexDemo, dir).finally(() => knexDemo.destroy());

    const publicBaseUrl = config.publicBaseUrl;
    const world = await startTestWorld({ ...config, dataDir: dir }, log, publicBaseUrl);
    stops.push(...world.stops);

    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...world.env,
      ...opts.env,
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporal.address,
      SECRETS_ENCRYPTION_KEY: secretsKey,
      PUBLIC_BASE_URL: publicBaseUrl,
      HOST,
      // The load balancer is the one hop in front of every API process (see stack/load-balancer.ts).
      TRUST_PROXY: '1',
      // The production shape: nothing on the host is a channel's to reach (decision 0225).
      WEBHOOK_ALLOW_LOOPBACK: 'false',
    };
    const apis: SupervisedProcess[] = [];
    const backends: { host: string; port: number }[] = [];
    const workers: SupervisedProcess[] = [];
    // Started side by side: each waits on its own readiness, and the two cores are idle while a process loads.
    await Promise.all([
      ...Array.from({ length: opts.apis ?? 2 }, async (_, i) => {
        const port = await freePort(HOST);
        const api = await startSupervised({
          name: `api-${i + 1}`,
          command: process.execPath,
          args: ['--import', 'tsx', path.join(__dirname, '..', 'api', 'main.ts')],
          env: { ...env, PORT: String(port) },
          logFile: path.join(logDir, `api-${i + 1}.log`),
          log,
          readiness: (exited) => untilReady(`http://${HOST}:${port}/ready`, exited),
        });
        stops.push(() => api.stop());
        apis[i] = api;
        backends[i] = { host: HOST, port };
      }),
      ...Array.from({ length: opts.workers ?? 2 }, async (_, i) => {
        const worker = await startSupervised({
          name: `worker-${i + 1}`,
          command: process.execPath,
          args: [...WORKER_NODE_FLAGS, '--import', 'tsx', path.join(__dirname, '..', 'worker', 'main.ts')],
          env,
          logFile: path.join(logDir, `worker-${i + 1}.log`),
          log,
        });
        stops.push(() => worker.stop());
        workers[i] = worker;
      }),
    ]);
    const loadBalancer = await startLoadBalancer({ host: config.HOST, port: config.PORT, backends, log });
    stops.push(() => loadBalancer.stop());

    return {
      url: loadBalancer.url,
      temporalAddress: temporal.address,
      temporalUiUrl: ui.url,
      databaseUrl,
      dir,
      demo,
      world,
      loadBalancer,
      apis,
      workers,
      temporal: temporal.process,
      restartPostgres: async () => {
        if (pg === null)
          throw new Error('PostgreSQL is external (DATABASE_URL); the cluster cannot restart it');
        await pg.stop();
        pg = await startEmbeddedPostgres(pgOptions);
      },
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** Polls the API's `/ready` (PostgreSQL and Temporal reachable) until 200; rejects if the process dies first. */
async function untilReady(url: string, exited: Promise<unknown>): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (gone) throw new Error(`the process behind ${url} exited while starting`);
    const status = await fetch(url).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`${url} not ready after 120 s (last status ${status})`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
