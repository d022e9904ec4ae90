import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { TEST_SECRETS_KEY, type TestStack } from './stack';
import { WORKER_NODE_FLAGS } from '../../stack/worker-node-flags';
import { READY_MESSAGES } from '../../stack/log-format';

/**
 * The real worker entry point (`worker/main.ts`, or `entry`) as a child process on the stack's
 * database, task queue and shared simulated acquirer, so a test can kill it the way a crash would:
 * SIGKILL, no shutdown hooks.
 */
export async function spawnWorker(
  stack: TestStack,
  opts: { entry?: string; extraEnv?: Record<string, string> } = {},
): Promise<ChildProcess> {
  const root = path.resolve(__dirname, '..', '..');
  const entry = opts.entry ?? path.join(root, 'worker', 'main.ts');
  // `node --import tsx`, not the tsx CLI: the CLI runs the program in a grandchild that SIGKILL would miss.
  const child = spawn(process.execPath, [...WORKER_NODE_FLAGS, '--import', 'tsx', entry], {
    cwd: root,
    env: {
      // Receivers in tests listen on 127.0.0.1, as in `npm start` (decision 0225).
      WEBHOOK_ALLOW_LOOPBACK: 'true',
      ...process.env,
      DATABASE_URL: stack.db.url,
      TEMPORAL_ADDRESS: process.env.SKIL_TEST_TEMPORAL_ADDRESS,
      TEMPORAL_TASK_QUEUE: stack.taskQueue,
      WORKFLOW_BUNDLE_PATH: process.env.SKIL_TEST_WORKFLOW_BUNDLE,
      SIMULATED_ACQUIRER_URL: stack.acquirer.url,
      LOG_LEVEL: 'info',
      SECRETS_ENCRYPTION_KEY: TEST_SECRETS_KEY,
      ...opts.extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Read until the worker says it runs, then let go: kept and searched for the worker's whole life,
  // its output grew with every log line and each chunk searched all of it again (in a renewal day of
  // 1,000,000 that was half a core of the benchmark's own process).
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const stop = () => {
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.stderr.off('data', onData);
      child.off('exit', onExit);
    };
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`worker did not start:\n${output}`));
    }, 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(`"msg":"${READY_MESSAGES.worker}"`)) {
        stop();
        resolve();
      }
    };
    const onExit = (code: number | null) => {
      stop();
      reject(new Error(`worker exited with ${code}:\n${output}`));
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', onExit);
  });
  // Nobody reads the rest; keep the pipes drained so the worker never blocks on a full one.
  child.stdout.resume();
  child.stderr.resume();
  return child;
}

/** SIGKILL and wait for the process to be gone. */
export function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
