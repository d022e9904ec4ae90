import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from './config';
import { createProcessLogger } from './logger';
import { startCluster, type Cluster } from './cluster';
import { TEMPORAL_SERVER_VERSION } from './temporal-server-binaries';

/**
 * `npm run start:cluster`: the cluster of stack/cluster.ts with the configuration of `npm start` (PORT is the load
 * balancer's, TEMPORAL_PORT the frontend's, TEMPORAL_UI_PORT the Web UI's) and CLUSTER_HISTORY_SHARDS (default 4).
 * Ctrl-C stops everything.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createProcessLogger('skil-cluster', config);
  await mkdir(config.dataDir, { recursive: true });
  const shards = Number(process.env.CLUSTER_HISTORY_SHARDS ?? 4);
  if (!Number.isInteger(shards) || shards < 1)
    throw new Error('CLUSTER_HISTORY_SHARDS must be a positive integer');

  let cluster: Cluster | null = null;
  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    log.info('stopping the cluster');
    await cluster?.stop();
    process.exit(code);
  };
  process.once('SIGINT', () => void shutdown(0));
  process.once('SIGTERM', () => void shutdown(0));

  try {
    cluster = await startCluster({ config, log, historyShards: shards });
  } catch (err) {
    log.error({ err }, 'cluster start-up failed');
    process.exit(1);
  }
  const c = cluster;
  const lines = [
    '',
    'Skil cluster is running.',
    `  API            ${config.publicBaseUrl}  (load balancer → ${c.apis.length} API processes)`,
    `  Workers        ${c.workers.length} processes`,
    `  Temporal       ${c.temporalAddress}  (server ${TEMPORAL_SERVER_VERSION} on PostgreSQL, ${shards} history shards)`,
    `  Temporal UI    ${c.temporalUiUrl}`,
    `  Demo merchant  ${c.demo.merchantId}`,
    `  Test API key   ${c.demo.testKey}   (also in ${path.join(c.dir, 'demo.env')})`,
    `  Dashboard      ${config.publicBaseUrl}/dashboard  (sign in as ${c.demo.dashboardEmail} / ${c.demo.dashboardPassword})`,
    `  Mail           ${c.world.mailPage ?? 'SMTP_URL'}`,
    `  Logs           ${path.join(c.dir, 'logs')}, ${path.join(c.dir, 'temporal')}`,
    '',
    `  curl -H "Authorization: Bearer ${c.demo.testKey}" ${config.publicBaseUrl}/v1/events`,
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

void main();
