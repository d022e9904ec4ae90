import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { Connection } from '@temporalio/client';
import type * as TestingModule from '@temporalio/testing';
import type { Logger } from './logger';
import { type Exit, waitForExit, finishesWithin, forwardLines, remember } from './child-process';
import { freePort } from './free-port';
import { resolveTemporalCli } from './temporal-cli';

const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 60_000;
const READY_POLL_MS = 250;
const STOP_GRACE_MS = 10_000;
const OUTPUT_TAIL_LINES = 40;

/** A running Temporal dev server (Temporal CLI `server start-dev`). */
export interface TemporalDevServer {
  /** gRPC frontend, `host:port`, for Connection.connect / NativeConnection.connect. */
  address: string;
  /** Web UI, or null when headless. */
  uiUrl: string | null;
  /** The CLI process id; null when the Temporal SDK runs the server (source 'sdk'). */
  pid: number | null;
  /** Stops the server: SIGTERM, then SIGKILL after 10 s. Safe to call twice. */
  stop(): Promise<void>;
}

export type TemporalDevServerOptions = {
  /** Project data dir; the CLI is looked up / built under `<dataDir>/bin`. */
  dataDir: string;
  /** SQLite file so workflows survive restarts; null keeps everything in memory. */
  dbFile: string | null;
  /** gRPC port; default a free one. */
  port?: number;
  /** Web UI port; null or omitted runs headless. */
  uiPort?: number | null;
  /** Namespace created at startup (besides "default"); default "default". */
  namespace?: string;
  log: Logger;
};

/** Starts a Temporal dev server and resolves once it answers gRPC calls for the namespace. */
export async function startTemporalDevServer(opts: TemporalDevServerOptions): Promise<TemporalDevServer> {
  const cli = await resolveTemporalCli({ dataDir: opts.dataDir, log: opts.log });
  const dbFile = opts.dbFile === null ? null : resolve(opts.dbFile);
  if (dbFile !== null) await mkdir(dirname(dbFile), { recursive: true });
  if (cli.path === null) return startWithSdk(opts, dbFile);
  return startWithCli(cli.path, opts, dbFile);
}

async function startWithCli(
  cliPath: string,
  opts: TemporalDevServerOptions,
  dbFile: string | null,
): Promise<TemporalDevServer> {
  const { log } = opts;
  const namespace = opts.namespace ?? 'default';
  const port = opts.port ?? (await freePort(HOST));
  const uiPort = opts.uiPort ?? null;
  const address = `${HOST}:${port}`;

  const args = ['server', 'start-dev', '--ip', HOST, '--port', String(port), '--namespace', namespace];
  args.push('--log-level', 'warn', '--color', 'never');
  if (dbFile !== null) args.push('--db-filename', dbFile);
  args.push(...(uiPort === null ? ['--headless'] : ['--ui-port', String(uiPort)]));

  log.info({ cli: cliPath, address, dbFile, uiPort, namespace }, 'starting temporal dev server');
  const child = spawn(cliPath, args, { detached: false, stdio: ['ignore', 'pipe', 'pipe'] });

  const tail: string[] = [];
  const onLine = (line: string): void => {
    remember(tail, line, OUTPUT_TAIL_LINES);
    if (looksLikeError(line)) log.warn({ temporal: 'server' }, line);
    else log.debug({ temporal: 'server' }, line);
  };
  forwardLines(child.stdout, onLine);
  forwardLines(child.stderr, onLine);

  const exited = waitForExit(child);
  // Without this the dev server outlives a parent that exits without stopping it (process.exit(), end of a test
  // run). 'exit' does not fire when Node dies from an unhandled signal; whoever owns signals must call stop().
  const killOnExit = (): void => {
    child.kill('SIGTERM');
  };
  process.on('exit', killOnExit);

  let stopping: Promise<void> | null = null;
  const stopOnce = async (): Promise<void> => {
    process.off('exit', killOnExit);
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    if (!(await finishesWithin(exited, STOP_GRACE_MS))) {
      log.warn({ pid: child.pid }, 'temporal dev server ignored SIGTERM for 10 s; sending SIGKILL');
      child.kill('SIGKILL');
      await exited;
    }
    log.info({ address }, 'temporal dev server stopped');
  };
  const stop = (): Promise<void> => (stopping ??= stopOnce());

  try {
    await waitUntilReady(address, namespace, exited, tail);
  } catch (err) {
    await stop();
    throw err;
  }
  const uiUrl = uiPort === null ? null : `http://${HOST}:${uiPort}`;
  log.info({ address, uiUrl, pid: child.pid }, 'temporal dev server ready');
  return { address, uiUrl, pid: child.pid ?? null, stop };
}

/** The server logs `level=X` text lines; trust that level, and only grep lines without one (panics, CLI errors). */
function looksLikeError(line: string): boolean {
  const level = /\blevel=(\w+)/.exec(line)?.[1];
  if (level !== undefined) return /^(error|dpanic|panic|fatal)$/i.test(level);
  return /\b(error|fatal|panic)\b/i.test(line);
}

/** Polls until the frontend answers getSystemInfo and knows the namespace; rejects if the process dies first. */
async function waitUntilReady(
  address: string,
  namespace: string,
  exited: Promise<Exit>,
  tail: string[],
): Promise<void> {
  const state: { exit: Exit | null } = { exit: null };
  void exited.then((e) => {
    state.exit = e;
  });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastError: unknown = null;
  for (;;) {
    if (state.exit !== null) throw earlyExitError(state.exit, tail);
    if (Date.now() > deadline) {
      throw new Error(
        `temporal dev server at ${address} not ready after ${READY_TIMEOUT_MS / 1000} s (last error: ${String(lastError)}); output:\n${tail.join('\n')}`,
      );
    }
    try {
      await probe(address, namespace);
      return;
    } catch (err) {
      lastError = err;
    }
    await finishesWithin(exited, READY_POLL_MS);
  }
}

async function probe(address: string, namespace: string): Promise<void> {
  const connection = await Connection.connect({ address, connectTimeout: 2_000 });
  try {
    await connection.workflowService.getSystemInfo({});
    await connection.workflowService.describeNamespace({ namespace });
  } finally {
    await connection.close();
  }
}

function earlyExitError(exit: Exit, tail: string[]): Error {
  const how = exit.error
    ? `failed to start: ${exit.error.message}`
    : `exited early (code ${exit.code ?? 'none'}, signal ${exit.signal ?? 'none'})`;
  return new Error(`temporal dev server ${how}; last output:\n${tail.join('\n')}`);
}

/** No CLI binary available: the Temporal SDK downloads one (needs network access to temporal.download). */
async function startWithSdk(
  opts: TemporalDevServerOptions,
  dbFile: string | null,
): Promise<TemporalDevServer> {
  const { log } = opts;
  // Imported lazily: @temporalio/testing is a dev dependency and pulls in the native core bridge.
  let testing: typeof TestingModule;
  try {
    testing = await import('@temporalio/testing');
  } catch (err) {
    throw new Error(
      `no Temporal CLI found (set TEMPORAL_CLI_PATH, put temporal on PATH or install Go) and @temporalio/testing is not installed to download one: ${String(err)}`,
      { cause: err },
    );
  }
  const uiPort = opts.uiPort ?? null;
  log.info(
    { dbFile, uiPort },
    'starting temporal dev server through the Temporal SDK (it downloads the CLI)',
  );
  // Kept under the data dir rather than $TMPDIR so the download survives reboots and is easy to find.
  const downloadDir = resolve(opts.dataDir, 'sdk-cli');
  await mkdir(downloadDir, { recursive: true });
  const env = await testing.TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'cached-download', downloadDir },
      ip: HOST,
      port: opts.port,
      namespace: opts.namespace ?? 'default',
      dbFilename: dbFile ?? undefined,
      ui: uiPort !== null,
      uiPort: uiPort ?? undefined,
      log: { format: 'pretty', level: 'warn' },
    },
  });
  let stopping: Promise<void> | null = null;
  const stopOnce = async (): Promise<void> => {
    await env.teardown();
    log.info({ address: env.address }, 'temporal dev server stopped (sdk)');
  };
  const uiUrl = uiPort === null ? null : `http://${HOST}:${uiPort}`;
  log.info({ address: env.address, uiUrl }, 'temporal dev server ready (sdk)');
  return { address: env.address, uiUrl, pid: null, stop: () => (stopping ??= stopOnce()) };
}
