import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { runWorker } from '../worker/main';
import { createInProcessAcquirer } from './in-process-acquirer';

/**
 * The worker process of the renewal-day benchmark: the real worker, charging through the in-process
 * acquirer at SIMULATED_ACQUIRER_LATENCY_MS instead of the shared simulated acquirer (decision 0102),
 * so the figures measure Skil's batch renewals, comparable with bench/RESULTS.md. With
 * RENEWAL_WORKER_CPU_PROFILE set, the worker's main thread is profiled into that .cpuprofile file.
 */
async function main(): Promise<void> {
  const profileFile = process.env.RENEWAL_WORKER_CPU_PROFILE;
  const session = profileFile ? new Session() : null;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  await runWorker({
    acquirer: createInProcessAcquirer({
      latencyMs: Number(process.env.SIMULATED_ACQUIRER_LATENCY_MS ?? 0) || 0,
      journalFile: process.env.SIMULATED_ACQUIRER_JOURNAL,
    }),
  });
  if (session && profileFile) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(profileFile, JSON.stringify(profile));
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
