import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import type { Logger } from './logger';
import { type Exit, finishesWithin } from './child-process';
import { startSupervised, type SupervisedProcess } from './supervised-process';
import type { TemporalServerBinaries } from './temporal-server-binaries';

const execFileAsync = promisify(execFile);
const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 120_000;

/** Where the Temporal server keeps its state: two databases on a PostgreSQL server. */
export type TemporalPostgres = { host: string; port: number; user: string; password: string };

export type TemporalClusterServerOptions = {
  binaries: TemporalServerBinaries;
  /** Its config and log files go here (`<dir>/config/cluster.yaml`, `<dir>/temporal-server.log`). */
  dir: string;
  postgres: TemporalPostgres;
  /** gRPC frontend port; the other services use the ports after it (see `servicePorts`). */
  frontendPort: number;
  /** History shards: fixed when the databases are first set up, never changed afterwards. */
  historyShards: number;
  namespace: string;
  log: Logger;
};

export interface TemporalClusterServer {
  address: string;
  process: SupervisedProcess;
}

/**
 * The four services' ports, fixed from the frontend's so that a restarted server takes the same places in the
 * membership ring (ringpop keeps departed hosts until their heartbeats expire). With the default 7233 these are the
 * ports of Temporal's own development configuration.
 */
export function servicePorts(frontend: number) {
  return {
    frontend: { grpc: frontend, membership: frontend - 300, http: frontend + 10 },
    history: { grpc: frontend + 1, membership: frontend - 299 },
    matching: { grpc: frontend + 2, membership: frontend - 298 },
    worker: { grpc: frontend + 6, membership: frontend - 294 },
  };
}

/**
 * Creates the `temporal` and `temporal_visibility` databases and brings their schemas to the server's version with
 * Temporal's own SQL tool (`temporal-sql-tool`, the schemas embedded in it). Every step is idempotent, so it runs on
 * every start: a first start sets up, a later one after a server upgrade migrates.
 */
export async function setupTemporalSchema(sqlTool: string, pg: TemporalPostgres, log: Logger): Promise<void> {
  const databases = [
    { name: 'temporal', schema: 'postgresql/v12/temporal' },
    { name: 'temporal_visibility', schema: 'postgresql/v12/visibility' },
  ];
  for (const database of databases) {
    // Through the tool's environment variables, so the password is not in `ps` output.
    const env = {
      ...process.env,
      SQL_PLUGIN: 'postgres12',
      SQL_HOST: pg.host,
      SQL_PORT: String(pg.port),
      SQL_USER: pg.user,
      SQL_PASSWORD: pg.password,
      SQL_DATABASE: database.name,
    };
    for (const args of [
      ['create-database'],
      ['setup-schema', '-v', '0.0'],
      ['update-schema', '--schema-name', database.schema],
    ]) {
      try {
        await execFileAsync(sqlTool, args, { env });
      } catch (err) {
        const e = err as { stderr?: string; stdout?: string };
        throw new Error(
          `temporal-sql-tool ${args.join(' ')} on ${database.name} failed:\n${e.stderr ?? ''}${e.stdout ?? ''}`,
          { cause: err },
        );
      }
    }
    log.info({ database: database.name, schema: database.schema }, 'temporal schema up to date');
  }
}

/** The server's static configuration: PostgreSQL persistence, N history shards, all services on loopback. */
export function temporalServerConfig(opts: TemporalClusterServerOptions): string {
  const p = servicePorts(opts.frontendPort);
  const store = (database: string, maxConns: number) => ({
    sql: {
      pluginName: 'postgres12',
      databaseName: database,
      connectAddr: `${opts.postgres.host}:${opts.postgres.port}`,
      connectProtocol: 'tcp',
      user: opts.postgres.user,
      password: opts.postgres.password,
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  });
  const service = (grpcPort: number, membershipPort: number, httpPort?: number) => ({
    rpc: { grpcPort, membershipPort, bindOnIP: HOST, ...(httpPort !== undefined && { httpPort }) },
  });
  const config = {
    log: { stdout: true, level: 'warn' },
    persistence: {
      defaultStore: 'default',
      visibilityStore: 'visibility',
      numHistoryShards: opts.historyShards,
      datastores: { default: store('temporal', 20), visibility: store('temporal_visibility', 5) },
    },
    global: { membership: { maxJoinDuration: '30s', broadcastAddress: HOST } },
    services: {
      frontend: service(p.frontend.grpc, p.frontend.membership, p.frontend.http),
      history: service(p.history.grpc, p.history.membership),
      matching: service(p.matching.grpc, p.matching.membership),
      worker: service(p.worker.grpc, p.worker.membership),
    },
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: {
          enabled: true,
          initialFailoverVersion: 1,
          rpcName: 'frontend',
          rpcAddress: `${HOST}:${p.frontend.grpc}`,
        },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    dynamicConfigClient: { filepath: join(opts.dir, 'config', 'dynamicconfig.yaml'), pollInterval: '60s' },
  };
  // YAML is a superset of JSON: the server reads this as written, with no YAML library needed here.
  return JSON.stringify(config, null, 2) + '\n';
}

// The limits the CLI's dev server raises (temporalcli/commands.server.go), so the cluster behaves as `npm start`.
const DYNAMIC_CONFIG = `frontend.persistenceMaxQPS:
  - value: 10000
history.persistenceMaxQPS:
  - value: 45000
frontend.namespaceRPS.visibility:
  - value: 100
`;

/** Starts the Temporal server (frontend, history, matching and worker services in one process), supervised. */
export async function startTemporalClusterServer(
  opts: TemporalClusterServerOptions,
): Promise<TemporalClusterServer> {
  // The membership table keeps the services' ports as PostgreSQL smallint: a higher port fails the server at start.
  if (opts.frontendPort < 301 || opts.frontendPort + 10 > 32_767) {
    throw new Error(
      `TEMPORAL_PORT must be between 301 and 32757 for the cluster (its services use ports around it)`,
    );
  }
  const configDir = join(opts.dir, 'config');
  await mkdir(configDir, { recursive: true });
  // It holds the database password.
  await writeFile(join(configDir, 'cluster.yaml'), temporalServerConfig(opts), { mode: 0o600 });
  await writeFile(join(configDir, 'dynamicconfig.yaml'), DYNAMIC_CONFIG);
  const address = `${HOST}:${opts.frontendPort}`;
  const proc = await startSupervised({
    name: 'temporal-server',
    command: opts.binaries.server,
    args: ['--root', opts.dir, '--config', 'config', '--env', 'cluster', '--allow-no-auth', 'start'],
    logFile: join(opts.dir, 'temporal-server.log'),
    log: opts.log,
    readiness: (exited) => untilServing(address, opts.namespace, exited, opts.log),
    restartDelayMs: 2_000,
  });
  return { address, process: proc };
}

/**
 * Polls until the frontend answers and the namespace exists, registering it on the first start (a server on new
 * databases has only `temporal-system`; the CLI's dev server registers `default` the same way).
 */
async function untilServing(address: string, namespace: string, exited: Promise<Exit>, log: Logger) {
  const state: { exit: Exit | null } = { exit: null };
  void exited.then((e) => (state.exit = e));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastError: unknown = null;
  for (;;) {
    if (state.exit !== null) {
      throw new Error(
        `temporal server exited while starting (code ${state.exit.code}, signal ${state.exit.signal})`,
      );
    }
    if (Date.now() > deadline)
      throw new Error(`temporal server at ${address} not ready: ${String(lastError)}`);
    try {
      await ensureNamespace(address, namespace, log);
      return;
    } catch (err) {
      lastError = err;
    }
    await finishesWithin(exited, 500);
  }
}

async function ensureNamespace(address: string, namespace: string, log: Logger): Promise<void> {
  const connection = await Connection.connect({ address, connectTimeout: 2_000 });
  try {
    await connection.workflowService.getSystemInfo({});
    try {
      await connection.workflowService.describeNamespace({ namespace });
    } catch (err) {
      if ((err as { code?: number }).code !== 5) throw err; // NOT_FOUND
      await connection.workflowService.registerNamespace({
        namespace,
        workflowExecutionRetentionPeriod: msToTs('3 days'),
      });
      log.info({ namespace }, 'temporal namespace registered');
      // Registration reaches the other services through the namespace cache; wait until the frontend serves it.
      await connection.workflowService.describeNamespace({ namespace });
    }
  } finally {
    await connection.close();
  }
}
