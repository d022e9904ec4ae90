import { runWorker } from '../worker/main';
import { createInProcessAcquirer } from './in-process-acquirer';

/**
 * The worker process of the renewal-day benchmark: the real worker, charging through the in-process
 * acquirer at SIMULATED_ACQUIRER_LATENCY_MS instead of the shared simulated acquirer (decision 0102),
 * so the figures measure Skil's batch renewals, comparable with bench/RESULTS.md.
 */
runWorker({
  acquirer: createInProcessAcquirer({
    latencyMs: Number(process.env.SIMULATED_ACQUIRER_LATENCY_MS ?? 0) || 0,
  }),
}).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
