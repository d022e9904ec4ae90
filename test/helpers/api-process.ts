import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../../stack/free-port';
import { TEST_SECRETS_KEY, type TestStack } from './stack';

export interface ApiProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * The real API entry point (`api/main.ts`) as a child process on a stack's database and task
 * queue (or another database's), configured through its environment as an operator would (`extraEnv`). Several of them on
 * one database are several API processes behind one load balancer.
 */
export async function spawnApi(
  target: TestStack | { databaseUrl: string; taskQueue: string; acquirerUrl: string },
  extraEnv: Record<string, string> = {},
): Promise<ApiProcess> {
  const root = path.resolve(__dirname, '..', '..');
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'api', 'main.ts')], {
    cwd: root,
    env: {
      // Receivers in tests listen on 127.0.0.1, as in `npm start` (decision 0225).
      WEBHOOK_ALLOW_LOOPBACK: 'true',
      ...process.env,
      DATABASE_URL: 'db' in target ? target.db.url : target.databaseUrl,
      TEMPORAL_ADDRESS: process.env.SKIL_TEST_TEMPORAL_ADDRESS,
      TEMPORAL_TASK_QUEUE: target.taskQueue,
      // The card acquirer every API process shares (decision 0102).
      SIMULATED_ACQUIRER_URL: 'db' in target ? target.acquirer.url : target.acquirerUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      SECRETS_ENCRYPTION_KEY: TEST_SECRETS_KEY,
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the API exited with ${child.exitCode}:\n${output}`);
    const up = await fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the API did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
