import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startSimulatedAcquirer, type SimulatedAcquirer } from '../../simulators/acquirer/service';
import type { CardAcquirer } from '../../adapters/acquirers/card-acquirer';
import { createHttpCardAcquirer } from '../../adapters/acquirers/http-card-acquirer';

export interface TestAcquirer {
  /** Base URL of the acquirer's HTTP protocol; the same after a restart. */
  url: string;
  dataDir: string;
  /** Its HTTP client, as the API and the worker use it. */
  client: CardAcquirer;
  /** Stops the service and starts it again on the same port and state, as a process restart would. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The shared simulated acquirer (decision 0102) on a free port with its state in a fresh temporary
 * directory, removed on stop. `bankUrl`: the simulated bank told of captures and refunds.
 */
export async function startTestAcquirer(
  opts: {
    bankUrl?: string | undefined;
    latencyMs?: number;
    /** Where dispute notifications go (decision 0155); a function when the API starts later. */
    notifyUrl?: () => string | undefined;
    notificationSecret?: string;
  } = {},
): Promise<TestAcquirer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'skil-acquirer-'));
  const start = (port: number) =>
    startSimulatedAcquirer({
      dataDir,
      port,
      bankUrl: opts.bankUrl,
      notifyUrl: opts.notifyUrl,
      notificationSecret: opts.notificationSecret,
      ...(opts.latencyMs !== undefined && { latencyMs: opts.latencyMs }),
    });
  let running: SimulatedAcquirer | null = await start(0);
  const port = running.port;
  return {
    url: running.url,
    dataDir,
    client: createHttpCardAcquirer({ baseUrl: running.url }),
    async restart() {
      await running?.stop();
      running = null;
      running = await start(port);
    },
    async stop() {
      await running?.stop();
      running = null;
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
