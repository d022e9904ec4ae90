import path from 'node:path';
import { loadConfig } from '../../stack/config';
import { createProcessLogger } from '../../stack/logger';
import { startSimulatedAcquirer } from './service';

/**
 * The simulated acquirer as a process of its own (`npm run simulated-acquirer`), for a deployment
 * where the API and the worker run elsewhere (decision 0102): SIMULATED_ACQUIRER_PORT, HOST, its
 * state in `$DATA_DIR/simulated-acquirer`, SIMULATED_ACQUIRER_LATENCY_MS, SIMULATED_BANK_URL
 * told of captures and refunds, and SIMULATED_ACQUIRER_NOTIFY_URL (the API's
 * `/acquirer/notifications`) sent dispute notifications signed with ACQUIRER_NOTIFICATION_SECRET
 * (decision 0155). `npm start` starts the same service in its launcher instead.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createProcessLogger('simulated-acquirer', config);
  const acquirer = await startSimulatedAcquirer({
    dataDir: path.join(config.dataDir, 'simulated-acquirer'),
    port: config.SIMULATED_ACQUIRER_PORT,
    host: config.HOST,
    latencyMs: config.SIMULATED_ACQUIRER_LATENCY_MS,
    bankUrl: config.SIMULATED_BANK_URL,
    notifyUrl: config.SIMULATED_ACQUIRER_NOTIFY_URL,
    notificationSecret: config.ACQUIRER_NOTIFICATION_SECRET,
    log,
  });
  log.info({ url: acquirer.url }, 'simulated acquirer running');
  const stop = () => void acquirer.stop().finally(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
