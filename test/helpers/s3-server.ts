import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '../../stack/free-port';

/**
 * A real S3-compatible server for tests: gofakes3 (github.com/johannesboyne/gofakes3, its
 * `cmd/gofakes3`), built from the Go module proxy at a pinned version into `.data/bin` the first
 * time, or taken from $S3_TEST_SERVER_PATH. It serves the S3 REST API (path-style, in memory); it
 * does not check request signatures, which test/unit/sigv4.test.ts checks against AWS's published
 * example instead.
 */
export const GOFAKES3_VERSION = 'v1.2.0';

function serverBinary(): string {
  const fromEnv = process.env.S3_TEST_SERVER_PATH;
  if (fromEnv) return fromEnv;
  const bin = path.resolve(__dirname, '..', '..', '.data', 'bin');
  const exe = path.join(bin, 'gofakes3');
  if (!existsSync(exe))
    execFileSync('go', ['install', `github.com/johannesboyne/gofakes3/cmd/gofakes3@${GOFAKES3_VERSION}`], {
      env: { ...process.env, GOBIN: bin },
      stdio: 'pipe',
      timeout: 600_000,
    });
  return exe;
}

export interface S3TestServer {
  endpoint: string;
  bucket: string;
  stop(): Promise<void>;
}

/** Starts the server on a free port with one bucket. */
export async function startS3TestServer(bucket = 'skil-raw-files'): Promise<S3TestServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    serverBinary(),
    ['-backend', 'memory', '-host', `127.0.0.1:${port}`, '-initialbucket', bucket, '-quiet'],
    { stdio: 'ignore' },
  );
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`gofakes3 exited with ${child.exitCode}`);
    const up = await fetch(`${endpoint}/${bucket}`).then(
      (r) => r.status < 500,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('gofakes3 did not start');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    endpoint,
    bucket,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
