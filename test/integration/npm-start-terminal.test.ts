import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { freePort } from '../../stack/free-port';
import { createTestDatabase, type TestDatabase } from '../helpers/database';
import { TEST_SECRETS_KEY } from '../helpers/stack';

// `npm start` as a newcomer runs it: in a terminal. `script` (util-linux) gives it a
// pseudo-terminal, so stdout is a TTY exactly as in a shell, and Ctrl-C typed into it stops the
// whole service the way a person stops it. The database and Temporal are the test run's (set
// through DATABASE_URL and TEMPORAL_ADDRESS, as an operator would), so the start is quick.

const root = path.resolve(__dirname, '..', '..');
const BANNER_LAST_LINE = /curl -H "Authorization: Bearer sk_test_\w+" http:\/\/localhost:\d+\/v1\/events/;

let db: TestDatabase;
let dataDir: string;

beforeAll(async () => {
  db = await createTestDatabase();
  dataDir = await mkdtemp(path.join(tmpdir(), 'npm-start-'));
  await chmod(dataDir, 0o755);
});

afterAll(async () => {
  await db.drop();
  await rm(dataDir, { recursive: true, force: true });
});

test('in a terminal, npm start prints readable log lines, no JSON, and its banner on its own; Ctrl-C stops it', async () => {
  const port = await freePort();
  const child = spawn('script', ['-qfec', 'npm start', '/dev/null'], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'development',
      LOG_FORMAT: 'auto',
      LOG_LEVEL: 'info',
      DATA_DIR: dataDir,
      DATABASE_URL: db.url,
      TEMPORAL_ADDRESS: process.env.SKIL_TEST_TEMPORAL_ADDRESS,
      TEMPORAL_TASK_QUEUE: `npm-start-${process.pid}`,
      WORKFLOW_BUNDLE_PATH: process.env.SKIL_TEST_WORKFLOW_BUNDLE,
      SECRETS_ENCRYPTION_KEY: TEST_SECRETS_KEY,
      PORT: String(port),
      SIMULATED_BANK_PORT: '0',
      SIMULATED_BANK_SFTP_PORT: '0',
      SIMULATED_ACQUIRER_PORT: '0',
      SIMULATED_CARRIERS_PORT: '0',
      SIMULATED_ACCESS_POINT_PORT: '0',
      MAIL_CATCHER_SMTP_PORT: '0',
      MAIL_CATCHER_PORT: '0',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  try {
    const deadline = Date.now() + 60_000;
    while (!BANNER_LAST_LINE.test(output)) {
      if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${output}`);
      if (Date.now() > deadline) throw new Error(`no banner within 60 s:\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }

    // npm draws its own progress spinner (a braille glyph) in a terminal until the script's first
    // output, when `CI` is not set; it can land at the start of Skil's first line. It is npm's.
    const lines = stripVTControlCharacters(output)
      .replace(/\r/g, '')
      .split('\n')
      .map((l) => l.replace(/^[\u2800-\u28ff]+/, ''));
    const last = lines.findIndex((l) => BANNER_LAST_LINE.test(l));
    const first = lines.findIndex((l) => l === 'Skil is running.');
    const upToBanner = lines.slice(0, last + 1);
    // Not one JSON line, from this process or its children, before the banner's last line.
    expect(upToBanner.filter((l) => /^\s*\{.*\}\s*$/.test(l))).toEqual([]);
    // What they logged is there, readable: time, level, which process, the message.
    const logLines = upToBanner.slice(0, first);
    expect(logLines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\[\d\d:\d\d:\d\d\] INFO: \(skil\) schema up to date$/),
        expect.stringMatching(/^\[\d\d:\d\d:\d\d\] INFO: \(skil-api\) API listening \{"port":\d+\}$/),
        expect.stringMatching(/^\[\d\d:\d\d:\d\d\] INFO: \(skil-worker\) worker running /),
      ]),
    );
    // The banner stands on its own: a blank line before it, no log line inside it.
    expect(first).toBeGreaterThan(0);
    expect(lines[first - 1]).toBe('');
    const banner = lines.slice(first, last + 1);
    expect(banner.filter((l) => /^\[\d\d:\d\d:\d\d\] [A-Z]+:/.test(l))).toEqual([]);
    expect(banner).toEqual(
      expect.arrayContaining([expect.stringMatching(/^ {2}API {12}http:\/\/localhost:\d+/)]),
    );
    const ready = await fetch(`http://127.0.0.1:${port}/ready`);
    expect(ready.status).toBe(200);

    // Ctrl-C at the terminal: the terminal's SIGINT reaches npm, the starter and both parts. npm
    // answers it the shell's way, 128 + SIGINT.
    child.stdin.write('\x03');
    const code = await Promise.race([
      exited,
      new Promise((r) => setTimeout(() => r('timeout'), 20_000).unref()),
    ]);
    expect(code).toBe(130);
    const stopBy = Date.now() + 20_000;
    while (
      await fetch(`http://127.0.0.1:${port}/health`).then(
        () => true,
        () => false,
      )
    ) {
      if (Date.now() > stopBy) throw new Error(`the API still answers after Ctrl-C:\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(stripVTControlCharacters(output)).toMatch(/INFO: \(skil\) stopping/);
  } finally {
    child.stdin.end();
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}, 110_000);
