import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { TEST_SECRETS_KEY, type TestStack } from './stack';

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
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: root,
    env: {
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
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('"msg":"worker running"')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code}:\n${output}`));
    });
  });
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
