import { spawn } from 'node:child_process';
import { constants as fsConstants } from 'node:fs';
import { access, mkdir, mkdtemp, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import type { Logger } from './logger';
import { forwardLines, isErrnoException } from './child-process';

/** Pinned so every developer and CI run the same dev server; bump deliberately. */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';

const CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal';
const EXE_SUFFIX = process.platform === 'win32' ? '.exe' : '';
const CLI_NAME = `temporal${EXE_SUFFIX}`;
// Written next to a binary we built, so bumping TEMPORAL_CLI_VERSION rebuilds instead of silently reusing the old one.
const VERSION_MARKER = 'temporal.version';
const LOCK_NAME = '.temporal-build.lock';
const LOCK_OWNER_FILE = 'owner.json';
// A cold build takes ~3 min; anything far beyond that is a build that died without cleaning up (even on another host).
const LOCK_MAX_AGE_MS = 20 * 60_000;
// The owner file is written right after mkdir; a lock dir without one for this long lost its owner in between.
const LOCK_OWNERLESS_GRACE_MS = 30_000;
const LOCK_POLL_MS = 1_000;

export type TemporalCliSource = 'env' | 'path' | 'built' | 'sdk';

/** Where the Temporal CLI comes from; `path: null` (source 'sdk') means the Temporal SDK downloads it itself. */
export type TemporalCli = { source: TemporalCliSource; path: string | null };

export type ResolveTemporalCliOptions = {
  /** Project data dir; a built CLI lives in `<dataDir>/bin`. */
  dataDir: string;
  log: Logger;
  /** Environment to read TEMPORAL_CLI_PATH and PATH from (and to pass to `go`); defaults to process.env. */
  env?: NodeJS.ProcessEnv;
};

/**
 * Finds the Temporal CLI: $TEMPORAL_CLI_PATH, then `temporal` on PATH, then `<dataDir>/bin/temporal` (built with
 * `go install` when Go is available), else the SDK's own download.
 */
export async function resolveTemporalCli(opts: ResolveTemporalCliOptions): Promise<TemporalCli> {
  const cli = await lookup(opts);
  opts.log.info(
    { source: cli.source, path: cli.path, version: TEMPORAL_CLI_VERSION },
    'temporal CLI resolved',
  );
  return cli;
}

async function lookup({ dataDir, log, env = process.env }: ResolveTemporalCliOptions): Promise<TemporalCli> {
  const fromEnv = env.TEMPORAL_CLI_PATH;
  if (fromEnv !== undefined && fromEnv !== '') {
    const cliPath = resolve(fromEnv);
    if (!(await isExecutableFile(cliPath))) {
      throw new Error(
        `TEMPORAL_CLI_PATH is set to ${fromEnv}, which is not an executable file; fix or unset TEMPORAL_CLI_PATH`,
      );
    }
    return { source: 'env', path: cliPath };
  }

  const onPath = await findOnPath(CLI_NAME, env.PATH);
  if (onPath !== null) return { source: 'path', path: onPath };

  const built = await builtCli(resolve(dataDir, 'bin'), log, env);
  if (built !== null) return { source: 'built', path: built };

  return { source: 'sdk', path: null };
}

/** Returns the first executable file called `name` in the PATH-style list `pathList`, or null. */
export async function findOnPath(name: string, pathList: string | undefined): Promise<string | null> {
  for (const dir of (pathList ?? '').split(delimiter)) {
    // Empty or relative PATH entries mean "relative to cwd", which is a footgun we do not want to honour here.
    if (dir === '' || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return null;
}

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    const info = await stat(file);
    if (!info.isFile()) return false;
    await access(file, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Returns `<binDir>/temporal`, building it first when missing (or of another version) and Go is available. */
async function builtCli(binDir: string, log: Logger, env: NodeJS.ProcessEnv): Promise<string | null> {
  const cliPath = join(binDir, CLI_NAME);
  const existing = await builtState(binDir);
  if (existing === 'current') return cliPath;

  const go = await findOnPath(`go${EXE_SUFFIX}`, env.PATH);
  if (go === null) {
    if (existing === 'other-version') {
      log.warn(
        { path: cliPath, wanted: TEMPORAL_CLI_VERSION },
        'temporal CLI in data dir is another version and Go is not available to rebuild it; using it anyway',
      );
      return cliPath;
    }
    return null;
  }

  await mkdir(binDir, { recursive: true });
  const isCurrent = async (): Promise<boolean> => (await builtState(binDir)) === 'current';
  await withBuildLock(binDir, log, isCurrent, async () => {
    // Whoever held the lock before us may have just built it.
    if (await isCurrent()) return;
    await removeBuildLeftovers(binDir);
    await goInstall(go, binDir, log, env);
  });
  return cliPath;
}

type BuiltState = 'missing' | 'current' | 'other-version';

async function builtState(binDir: string): Promise<BuiltState> {
  if (!(await isExecutableFile(join(binDir, CLI_NAME)))) return 'missing';
  const marker = await readFile(join(binDir, VERSION_MARKER), 'utf8').catch(() => null);
  // No marker: someone put a binary there by hand; trust them.
  if (marker === null || marker.trim() === TEMPORAL_CLI_VERSION) return 'current';
  return 'other-version';
}

/** Builds into a fresh temp dir and renames into place, so a killed build never leaves a half-written binary. */
async function goInstall(go: string, binDir: string, log: Logger, env: NodeJS.ProcessEnv): Promise<void> {
  const target = `${CLI_MODULE}@${TEMPORAL_CLI_VERSION}`;
  const tmpBin = await mkdtemp(join(binDir, '.build-'));
  const started = Date.now();
  log.info(
    { target, binDir },
    'building temporal CLI with go install (about 3 min cold, 30 s with a warm Go cache)',
  );
  try {
    const tail: string[] = [];
    const result = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
      (resolvePromise, reject) => {
        // cwd is the temp dir so an enclosing go.mod/go.work can never influence `go install pkg@version`.
        const child = spawn(go, ['install', target], {
          cwd: tmpBin,
          env: { ...env, GOBIN: tmpBin },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        const onLine = (line: string): void => {
          tail.push(line);
          if (tail.length > 30) tail.shift();
          log.info({ go: 'install' }, line);
        };
        forwardLines(child.stdout, onLine);
        forwardLines(child.stderr, onLine);
        child.once('error', reject);
        child.once('close', (code, signal) => resolvePromise({ code, signal }));
      },
    );
    if (result.code !== 0) {
      throw new Error(
        `go install ${target} failed (exit ${result.code ?? 'none'}, signal ${result.signal ?? 'none'}):\n${tail.join('\n')}`,
      );
    }
    await rename(join(tmpBin, CLI_NAME), join(binDir, CLI_NAME));
    await writeFile(join(binDir, VERSION_MARKER), `${TEMPORAL_CLI_VERSION}\n`);
    log.info(
      { path: join(binDir, CLI_NAME), seconds: Math.round((Date.now() - started) / 1000) },
      'temporal CLI built',
    );
  } finally {
    await rm(tmpBin, { recursive: true, force: true });
  }
}

/** Temp dirs from builds that were killed; only called while holding the lock, so none of them is in use. */
async function removeBuildLeftovers(binDir: string): Promise<void> {
  const entries = await readdir(binDir);
  await Promise.all(
    entries
      .filter((e) => e.startsWith('.build-'))
      .map((e) => rm(join(binDir, e), { recursive: true, force: true })),
  );
}

type LockOwner = { pid: number; host: string; startedAt: number };

/**
 * Runs `fn` while holding a mkdir-based lock in `binDir`, so parallel test runs build the CLI once; the others wait
 * until `done()` says the holder's work is there (then skip `fn`), or until they get the lock themselves.
 * The lock is only an optimisation: the rename into place is atomic, so even two builds racing is harmless.
 */
async function withBuildLock(
  binDir: string,
  log: Logger,
  done: () => Promise<boolean>,
  fn: () => Promise<void>,
): Promise<void> {
  const lockDir = join(binDir, LOCK_NAME);
  let announcedWait = false;
  for (;;) {
    try {
      await mkdir(lockDir);
      break;
    } catch (err) {
      if (!isErrnoException(err) || err.code !== 'EEXIST') throw err;
    }
    if (await done()) return;
    const staleReason = await lockStaleReason(lockDir);
    if (staleReason !== null) {
      log.warn({ lockDir, reason: staleReason }, 'removing stale temporal CLI build lock');
      await rm(lockDir, { recursive: true, force: true });
      continue;
    }
    if (!announcedWait) {
      log.info({ lockDir }, 'another process is building the temporal CLI; waiting for it');
      announcedWait = true;
    }
    await sleep(LOCK_POLL_MS);
  }

  try {
    const owner: LockOwner = { pid: process.pid, host: hostname(), startedAt: Date.now() };
    await writeFile(join(lockDir, LOCK_OWNER_FILE), JSON.stringify(owner));
    await fn();
  } finally {
    await rm(lockDir, { recursive: true, force: true });
  }
}

async function lockStaleReason(lockDir: string): Promise<string | null> {
  const raw = await readFile(join(lockDir, LOCK_OWNER_FILE), 'utf8').catch(() => null);
  if (raw === null) {
    const info = await stat(lockDir).catch(() => null);
    // Vanished meanwhile: not stale, just retry the mkdir.
    if (info === null) return null;
    return Date.now() - info.mtimeMs > LOCK_OWNERLESS_GRACE_MS ? 'lock has no owner file' : null;
  }
  let owner: Partial<LockOwner>;
  try {
    owner = JSON.parse(raw) as Partial<LockOwner>;
  } catch {
    return 'owner file is unreadable';
  }
  if (typeof owner.startedAt === 'number' && Date.now() - owner.startedAt > LOCK_MAX_AGE_MS)
    return 'lock is too old';
  if (owner.host === hostname() && typeof owner.pid === 'number' && !isProcessAlive(owner.pid)) {
    return `owner pid ${owner.pid} is gone`;
  }
  return null;
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return isErrnoException(err) && err.code === 'EPERM';
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
