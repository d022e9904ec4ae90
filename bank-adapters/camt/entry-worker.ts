// Worker thread body: parses batches of <Ntry> chunks so that parsing uses more than one core.
// The main thread keeps the streaming, ordering and control totals; see entry-parser-pool.ts.
import { parentPort } from 'node:worker_threads';
import type { CamtError } from './errors';
import { readEntry } from './read-entry';
import { parseFragment } from './xml-values';

interface Batch {
  id: number;
  statementId: string;
  firstIndex: number;
  xml: string[];
}

parentPort?.on('message', (batch: Batch) => {
  try {
    const entries = batch.xml.map((xml, i) =>
      readEntry(parseFragment(xml, 'Ntry').Ntry, batch.firstIndex + i, batch.statementId),
    );
    parentPort?.postMessage({ id: batch.id, entries });
  } catch (error) {
    const e = error as Partial<CamtError>;
    parentPort?.postMessage({
      id: batch.id,
      error: { code: e.code ?? 'malformed', message: e.message ?? String(error) },
    });
  }
});
