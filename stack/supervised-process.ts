import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import type { Logger } from './logger';
import { type Exit, finishesWithin, waitForExit } from './child-process';

/** A child process that is started again whenever it dies without being asked to (what systemd or Kubernetes do). */
export interface SupervisedProcess {
  readonly name: string;
  /** The pid of the current incarnation, undefined between a death and the restart. */
  pid(): number | undefined;
  /** How many times it was started (1 after the first start). */
  starts(): number;
  /** Resolves once the current incarnation passed its readiness check. */
  ready(): Promise<void>;
  /** Stops it for good: SIGTERM (or `stopSignal`), SIGKILL after the grace period. Safe to call twice. */
  stop(): Promise<void>;
  /** Stops the current incarnation gracefully and starts a new one; resolves when it is ready. */
  restart(): Promise<void>;
}

export type SupervisedProcessOptions = {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Every line of its stdout and stderr is appended here. */
  logFile: string;
  log: Logger;
  /** Resolves when the incarnation serves; rejects (or never resolves) otherwise. Default: at once. */
  readiness?: (exited: Promise<Exit>) => Promise<void>;
  /** Wait before a restart after a crash; default 1 s. */
  restartDelayMs?: number;
  stopSignal?: NodeJS.Signals;
  stopGraceMs?: number;
};

/** Starts `command` and resolves once its first incarnation is ready; restarts it after every unasked-for exit. */
export async function startSupervised(opts: SupervisedProcessOptions): Promise<SupervisedProcess> {
  const { log, name } = opts;
  const out: WriteStream = createWriteStream(opts.logFile, { flags: 'a' });
  let child: ChildProcess | null = null;
  let exited: Promise<Exit> = Promise.resolve({ code: null, signal: null });
  let readyPromise: Promise<void> = Promise.resolve();
  let count = 0;
  let stopped = false;
  // A graceful restart stops the child on purpose; its exit must not schedule a second start.
  let planned = false;

  const launch = (): void => {
    count += 1;
    const c = spawn(opts.command, opts.args, {
      env: opts.env ?? process.env,
      cwd: opts.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = c;
    c.stdout?.pipe(out, { end: false });
    c.stderr?.pipe(out, { end: false });
    exited = waitForExit(c);
    const thisExit = exited;
    readyPromise = (opts.readiness ?? (() => Promise.resolve()))(thisExit);
    // Readiness failures surface to whoever awaits ready(); a crash loop is handled by the exit below.
    readyPromise.catch(() => undefined);
    log.info({ process: name, pid: c.pid, start: count }, 'process started');
    void thisExit.then((exit) => {
      if (stopped || planned) return;
      log.warn(
        { process: name, pid: c.pid, code: exit.code, signal: exit.signal },
        'process died; starting it again',
      );
      setTimeout(() => {
        if (!stopped && !planned) launch();
      }, opts.restartDelayMs ?? 1_000);
    });
  };

  const terminate = async (): Promise<void> => {
    const c = child;
    if (c === null || c.exitCode !== null || c.signalCode !== null) return;
    c.kill(opts.stopSignal ?? 'SIGTERM');
    if (!(await finishesWithin(exited, opts.stopGraceMs ?? 15_000))) {
      log.warn({ process: name, pid: c.pid }, 'process ignored the stop signal; sending SIGKILL');
      c.kill('SIGKILL');
      await exited;
    }
  };

  const killOnExit = (): void => {
    child?.kill('SIGKILL');
  };
  process.on('exit', killOnExit);

  let stopping: Promise<void> | null = null;
  const handle: SupervisedProcess = {
    name,
    pid: () => {
      const c = child;
      return c !== null && c.exitCode === null && c.signalCode === null ? c.pid : undefined;
    },
    starts: () => count,
    ready: () => readyPromise,
    stop: () =>
      (stopping ??= (async () => {
        stopped = true;
        process.off('exit', killOnExit);
        await terminate();
        await new Promise<void>((r) => out.end(r));
        log.info({ process: name }, 'process stopped');
      })()),
    restart: async () => {
      planned = true;
      try {
        await terminate();
      } finally {
        planned = false;
      }
      if (stopped) return;
      launch();
      await readyPromise;
    },
  };
  launch();
  try {
    await readyPromise;
  } catch (err) {
    await handle.stop();
    throw err;
  }
  return handle;
}
