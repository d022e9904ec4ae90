import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from './logger';
import { type Exit, finishesWithin } from './child-process';
import { startSupervised, type SupervisedProcess } from './supervised-process';

const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 60_000;

/**
 * Starts Temporal's Web UI (github.com/temporalio/ui-server, the same server the CLI's dev server embeds) against a
 * frontend, on loopback, without sign-in: it is an operator's tool on the machine, like the dev server's UI.
 */
export async function startTemporalUiServer(opts: {
  binary: string;
  dir: string;
  temporalAddress: string;
  port: number;
  namespace: string;
  log: Logger;
}): Promise<{ url: string; process: SupervisedProcess }> {
  const configDir = join(opts.dir, 'config');
  await mkdir(configDir, { recursive: true });
  const config = {
    temporalGrpcAddress: opts.temporalAddress,
    host: HOST,
    port: opts.port,
    enableUi: true,
    defaultNamespace: opts.namespace,
    refreshInterval: '1m',
    notifyOnNewVersion: false,
    auth: { enabled: false },
  };
  // JSON is YAML; the UI server reads `<root>/config/base.yaml` and then `<env>.yaml`.
  await writeFile(join(configDir, 'base.yaml'), '{}\n');
  await writeFile(join(configDir, 'cluster.yaml'), JSON.stringify(config, null, 2) + '\n');
  const url = `http://${HOST}:${opts.port}`;
  const proc = await startSupervised({
    name: 'temporal-ui',
    command: opts.binary,
    args: ['--root', opts.dir, '--config', 'config', '--env', 'cluster', 'start'],
    logFile: join(opts.dir, 'temporal-ui.log'),
    log: opts.log,
    readiness: (exited) => untilAnswering(`${url}/api/v1/settings`, exited),
  });
  return { url, process: proc };
}

async function untilAnswering(url: string, exited: Promise<Exit>): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (gone) throw new Error('temporal UI server exited while starting');
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`temporal UI server at ${url} not ready`);
    await finishesWithin(exited, 250);
  }
}
