import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { resolveTemporalCli, TEMPORAL_CLI_VERSION } from '../../stack/temporal-cli';

// Fake binaries are tiny shell scripts: this tests the lookup order and the build bookkeeping, not Temporal itself.
// Scripts use absolute paths because each test controls PATH completely.

const log = pino({ level: 'silent' });
let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'temporal-cli-test-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function executable(path: string, script = '#!/bin/sh\necho fake\n'): Promise<string> {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, script);
  await chmod(path, 0o755);
  return path;
}

/** A fake `go` that records its arguments, optionally sleeps or fails, and "installs" a script into $GOBIN. */
async function fakeGo(dir: string, opts: { sleepSeconds?: number; fail?: boolean } = {}): Promise<string> {
  const calls = join(root, 'go-calls.log');
  const body = opts.fail
    ? 'echo "build exploded" >&2\nexit 3\n'
    : `/bin/sleep ${opts.sleepSeconds ?? 0}\nprintf '#!/bin/sh\\necho built\\n' > "$GOBIN/temporal"\n/bin/chmod +x "$GOBIN/temporal"\n`;
  await executable(join(dir, 'go'), `#!/bin/sh\necho "$@ GOBIN=$GOBIN" >> "${calls}"\n${body}`);
  return calls;
}

async function goCalls(calls: string): Promise<string[]> {
  const text = await readFile(calls, 'utf8').catch(() => '');
  return text.split('\n').filter((l) => l !== '');
}

describe('resolveTemporalCli lookup order', () => {
  test('TEMPORAL_CLI_PATH wins over PATH', async () => {
    const fromEnv = await executable(join(root, 'env', 'temporal'));
    const pathDir = join(root, 'path');
    await executable(join(pathDir, 'temporal'));

    const cli = await resolveTemporalCli({
      dataDir: join(root, 'data'),
      log,
      env: { TEMPORAL_CLI_PATH: fromEnv, PATH: pathDir },
    });

    expect(cli).toEqual({ source: 'env', path: fromEnv });
  });

  test('PATH wins over <dataDir>/bin', async () => {
    const dataDir = join(root, 'data');
    await executable(join(dataDir, 'bin', 'temporal'));
    const pathDir = join(root, 'path');
    const onPath = await executable(join(pathDir, 'temporal'));

    const cli = await resolveTemporalCli({
      dataDir,
      log,
      env: { PATH: `${join(root, 'empty')}:${pathDir}` },
    });

    expect(cli).toEqual({ source: 'path', path: onPath });
  });

  test('an existing <dataDir>/bin/temporal is used without building', async () => {
    const dataDir = join(root, 'data');
    const built = await executable(join(dataDir, 'bin', 'temporal'));
    const toolDir = join(root, 'tools');
    const calls = await fakeGo(toolDir);

    const cli = await resolveTemporalCli({ dataDir, log, env: { PATH: toolDir } });

    expect(cli).toEqual({ source: 'built', path: built });
    expect(await goCalls(calls)).toEqual([]);
  });

  test('a TEMPORAL_CLI_PATH pointing at a missing file throws, naming the variable', async () => {
    const pathDir = join(root, 'path');
    await executable(join(pathDir, 'temporal'));

    await expect(
      resolveTemporalCli({
        dataDir: root,
        log,
        env: { TEMPORAL_CLI_PATH: join(root, 'nope', 'temporal'), PATH: pathDir },
      }),
    ).rejects.toThrow(/TEMPORAL_CLI_PATH/);
  });

  test('a TEMPORAL_CLI_PATH pointing at a non-executable file throws', async () => {
    const file = join(root, 'temporal');
    await writeFile(file, 'not executable');
    await chmod(file, 0o644);
    // root can "execute" anything with some x bit, but not a file with none.
    await expect(
      resolveTemporalCli({ dataDir: root, log, env: { TEMPORAL_CLI_PATH: file } }),
    ).rejects.toThrow(/TEMPORAL_CLI_PATH/);
  });

  test('falls back to the SDK download when there is no CLI and no Go', async () => {
    const cli = await resolveTemporalCli({
      dataDir: join(root, 'data'),
      log,
      env: { PATH: join(root, 'empty') },
    });

    expect(cli).toEqual({ source: 'sdk', path: null });
  });
});

describe('resolveTemporalCli building with go', () => {
  test('builds the pinned version into <dataDir>/bin via a temp GOBIN and leaves nothing else behind', async () => {
    const dataDir = join(root, 'data');
    const toolDir = join(root, 'tools');
    const calls = await fakeGo(toolDir);

    const cli = await resolveTemporalCli({ dataDir, log, env: { PATH: toolDir } });

    const binDir = join(dataDir, 'bin');
    expect(cli).toEqual({ source: 'built', path: join(binDir, 'temporal') });
    const recorded = await goCalls(calls);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toContain(`install github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`);
    // Built somewhere else first, then renamed into place.
    expect(recorded[0]).toMatch(new RegExp(`GOBIN=${binDir}/\\.build-`));
    expect((await stat(join(binDir, 'temporal'))).mode & 0o111).not.toBe(0);
    expect((await readFile(join(binDir, 'temporal.version'), 'utf8')).trim()).toBe(TEMPORAL_CLI_VERSION);
    expect((await readdir(binDir)).sort()).toEqual(['temporal', 'temporal.version']);
  });

  test('concurrent lookups build only once; the others wait for the lock', async () => {
    const dataDir = join(root, 'data');
    const toolDir = join(root, 'tools');
    const calls = await fakeGo(toolDir, { sleepSeconds: 1 });

    const results = await Promise.all(
      [1, 2, 3].map(() => resolveTemporalCli({ dataDir, log, env: { PATH: toolDir } })),
    );

    expect(results.map((r) => r.source)).toEqual(['built', 'built', 'built']);
    expect(await goCalls(calls)).toHaveLength(1);
  });

  test('a failed build throws with its output and leaves no binary', async () => {
    const dataDir = join(root, 'data');
    const toolDir = join(root, 'tools');
    await fakeGo(toolDir, { fail: true });

    await expect(resolveTemporalCli({ dataDir, log, env: { PATH: toolDir } })).rejects.toThrow(
      /build exploded/,
    );
    expect(await readdir(join(dataDir, 'bin'))).toEqual([]);
  });

  test('a stale lock from a dead process is removed', async () => {
    const dataDir = join(root, 'data');
    const lockDir = join(dataDir, 'bin', '.temporal-build.lock');
    await mkdir(lockDir, { recursive: true });
    // pid_max on Linux is at most 2^22, so this pid cannot exist.
    await writeFile(
      join(lockDir, 'owner.json'),
      JSON.stringify({ pid: 2 ** 23, host: hostname(), startedAt: Date.now() }),
    );
    const toolDir = join(root, 'tools');
    const calls = await fakeGo(toolDir);

    const cli = await resolveTemporalCli({ dataDir, log, env: { PATH: toolDir } });

    expect(cli.source).toBe('built');
    expect(await goCalls(calls)).toHaveLength(1);
  });

  test('a binary we built for another pinned version is rebuilt', async () => {
    const dataDir = join(root, 'data');
    await executable(join(dataDir, 'bin', 'temporal'));
    await writeFile(join(dataDir, 'bin', 'temporal.version'), 'v0.0.1\n');
    const toolDir = join(root, 'tools');
    const calls = await fakeGo(toolDir);

    await resolveTemporalCli({ dataDir, log, env: { PATH: toolDir } });

    expect(await goCalls(calls)).toHaveLength(1);
    expect((await readFile(join(dataDir, 'bin', 'temporal.version'), 'utf8')).trim()).toBe(
      TEMPORAL_CLI_VERSION,
    );
  });
});
