// Worker thread body: reads batches of units (transactions and entry shells) so that XML parsing,
// most of a bank file's cost, uses more than one core. See unit-parser-pool.ts.
import { parentPort } from 'node:worker_threads';
import type { CamtError } from './errors';
import { readUnit, type CamtUnit } from './read-unit';

parentPort?.on('message', (batch: { id: number; units: CamtUnit[] }) => {
  try {
    parentPort?.postMessage({ id: batch.id, results: batch.units.map(readUnit) });
  } catch (error) {
    const e = error as Partial<CamtError>;
    parentPort?.postMessage({
      id: batch.id,
      error: { code: e.code ?? 'malformed', message: e.message ?? String(error) },
    });
  }
});
