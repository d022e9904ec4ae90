import { chmod, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Connection } from '@temporalio/client';
import pg from 'pg';
import pino from 'pino';
import { startEmbeddedPostgres } from '../../stack/embedded-postgres';
import { startTemporalDevServer } from '../../stack/temporal-server';

// Starts the real local stack pieces. The Temporal CLI is resolved like `npm start` does (TEMPORAL_CLI_PATH, PATH,
// .data/bin, building it with Go once), so the first run on a machine without a CLI can take a few minutes.

const log = pino({ level: process.env.LOG_LEVEL ?? 'silent' });
const repoDataDir = resolve(__dirname, '..', '..', '.data');
let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'dev-stack-test-'));
  // mkdtemp makes 0700 dirs; when tests run as root, Postgres runs as the postgres user and must traverse this one.
  await chmod(tmp, 0o755);
});

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('embedded postgres starts, answers queries and cleans up a non-persistent cluster', async () => {
  const dataDir = join(tmp, 'postgres');
  const server = await startEmbeddedPostgres({ dataDir, persistent: false, log });
  let stopped = false;
  try {
    expect(server.url).toMatch(
      new RegExp(`^postgres://postgres:[^@]+@127\\.0\\.0\\.1:${server.port}/postgres$`),
    );
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      const result = await client.query<{ one: number; listen: string }>(
        "select 1 as one, current_setting('listen_addresses') as listen",
      );
      expect(result.rows).toEqual([{ one: 1, listen: '127.0.0.1' }]);
    } finally {
      await client.end();
    }

    await server.stop();
    stopped = true;
    await expect(stat(dataDir)).rejects.toMatchObject({ code: 'ENOENT' });
    const after = new pg.Client({ connectionString: server.url, connectionTimeoutMillis: 2_000 });
    await expect(after.connect()).rejects.toThrow();
  } finally {
    if (!stopped) await server.stop();
  }
});

test(
  'temporal dev server starts headless in memory, answers getSystemInfo and its process is gone after stop',
  async () => {
    const server = await startTemporalDevServer({ dataDir: repoDataDir, dbFile: null, uiPort: null, log });
    let stopped = false;
    try {
      expect(server.uiUrl).toBeNull();
      expect(server.address).toMatch(/^127\.0\.0\.1:\d+$/);
      const connection = await Connection.connect({ address: server.address });
      try {
        const info = await connection.workflowService.getSystemInfo({});
        expect(info.serverVersion).toBeTruthy();
      } finally {
        await connection.close();
      }

      const pid = server.pid;
      expect(pid).not.toBeNull();
      expect(isAlive(pid!)).toBe(true);
      await server.stop();
      stopped = true;
      expect(isAlive(pid!)).toBe(false);
    } finally {
      if (!stopped) await server.stop();
    }
    // Generous: on a machine without a Temporal CLI the first run builds one with Go (~3 min cold).
  },
  6 * 60_000,
);
