import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Logger } from './logger';
import { forwardLines, remember, waitForExit } from './child-process';
import { findOnPath } from './temporal-cli';

/**
 * The Temporal server the pinned CLI (TEMPORAL_CLI_VERSION v1.5.1) embeds in `start-dev`: its go.mod requires
 * go.temporal.io/server v1.29.1 and github.com/temporalio/ui-server/v2 v2.42.1. The cluster runs the same
 * versions as separate binaries, so `npm start` and `npm run start:cluster` run the same server code; bump together.
 */
export const TEMPORAL_SERVER_VERSION = 'v1.29.1';
export const TEMPORAL_UI_SERVER_VERSION = 'v2.42.1';

/** The three binaries of a self-hosted Temporal: the server (all four services), its SQL schema tool, the Web UI. */
export interface TemporalServerBinaries {
  server: string;
  sqlTool: string;
  uiServer: string;
}

// One `go install` each; the server and its SQL tool come from one module and are built in one go.
const BUILDS = [
  {
    module: 'go.temporal.io/server',
    version: TEMPORAL_SERVER_VERSION,
    packages: [
      { pkg: 'cmd/server', built: 'server', name: 'temporal-server' },
      { pkg: 'cmd/tools/sql', built: 'sql', name: 'temporal-sql-tool' },
    ],
  },
  {
    module: 'github.com/temporalio/ui-server/v2',
    version: TEMPORAL_UI_SERVER_VERSION,
    packages: [{ pkg: 'cmd/server', built: 'server', name: 'temporal-ui-server' }],
  },
] as const;

const MARKER = 'temporal-server.version';

/**
 * Returns the binaries under `<dataDir>/bin`, building them from the Go module proxy at the pinned versions when
 * missing or of another version (a cold build took about 23 minutes on two busy cores; under a minute with Go's build cache warm).
 * Needs Go; there is no download fallback, as no release archive of these versions is fetched by this project.
 */
export async function resolveTemporalServerBinaries(opts: {
  dataDir: string;
  log: Logger;
  env?: NodeJS.ProcessEnv;
}): Promise<TemporalServerBinaries> {
  const env = opts.env ?? process.env;
  const binDir = resolve(opts.dataDir, 'bin');
  const paths: TemporalServerBinaries = {
    server: join(binDir, 'temporal-server'),
    sqlTool: join(binDir, 'temporal-sql-tool'),
    uiServer: join(binDir, 'temporal-ui-server'),
  };
  const wanted = `${TEMPORAL_SERVER_VERSION} ${TEMPORAL_UI_SERVER_VERSION}`;
  const marker = (await readFile(join(binDir, MARKER), 'utf8').catch(() => '')).trim();
  if (marker === wanted) return paths;

  const go = await findOnPath('go', env.PATH);
  if (go === null) {
    throw new Error(
      `the cluster needs the Temporal server ${TEMPORAL_SERVER_VERSION} and UI server ${TEMPORAL_UI_SERVER_VERSION} in ${binDir}; install Go so that they can be built (docs/guides/self-hosting.md, "The cluster")`,
    );
  }
  await mkdir(binDir, { recursive: true });
  for (const build of BUILDS) {
    // A fresh GOBIN per build: both modules name their binary `server`.
    const gobin = await mkdtemp(join(binDir, '.build-'));
    try {
      const targets = build.packages.map((p) => `${build.module}/${p.pkg}@${build.version}`);
      opts.log.info(
        { targets },
        'building the Temporal server binaries with go install (minutes the first time)',
      );
      await goInstall(go, targets, gobin, env, opts.log);
      for (const p of build.packages) await rename(join(gobin, p.built), join(binDir, p.name));
    } finally {
      await rm(gobin, { recursive: true, force: true });
    }
  }
  await writeFile(join(binDir, MARKER), `${wanted}\n`);
  return paths;
}

async function goInstall(
  go: string,
  targets: string[],
  gobin: string,
  env: NodeJS.ProcessEnv,
  log: Logger,
): Promise<void> {
  const child = spawn(go, ['install', ...targets], {
    env: { ...env, GOBIN: gobin, GOFLAGS: [env.GOFLAGS, '-buildvcs=false'].filter(Boolean).join(' ') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail: string[] = [];
  const onLine = (line: string): void => {
    remember(tail, line);
    log.debug({ go: 'install' }, line);
  };
  forwardLines(child.stdout, onLine);
  forwardLines(child.stderr, onLine);
  const exit = await waitForExit(child);
  if (exit.error !== undefined || exit.code !== 0) {
    throw new Error(`go install ${targets.join(' ')} failed:\n${tail.join('\n')}`);
  }
}
