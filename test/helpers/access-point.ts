/**
 * The simulated access point as the tests run it (decision 0216): every document it receives is
 * validated with the official artefacts (CEN's EN 16931 and OpenPEPPOL's BIS 3 with TS-236) under
 * Saxon, the test of record (decision 0208). Documents arriving within a short window share one
 * Saxon run, which costs a JVM per artefact whatever the number of documents.
 */
import type { RefusalReason } from '../../adapters/access-point/access-point';
import { startSimulatedAccessPoint, type SimulatedAccessPoint } from '../../simulators/access-point/service';
import { validateEInvoices } from './official-einvoice-validation';

const WINDOW_MS = 150;

export function officialValidator(): (xml: string) => Promise<RefusalReason[]> {
  let batch: { xml: string; resolve: (r: RefusalReason[]) => void; reject: (e: unknown) => void }[] = [];
  let timer: NodeJS.Timeout | null = null;
  const run = async () => {
    const docs = batch;
    batch = [];
    timer = null;
    try {
      const reports = await validateEInvoices(docs.map((d) => d.xml));
      reports.forEach((r, i) =>
        docs[i]!.resolve(
          [...r.en16931.fatal, ...r.peppol.fatal].map((f) => ({ rule: f.id, message: f.text })),
        ),
      );
    } catch (err) {
      for (const d of docs) d.reject(err);
    }
  };
  return (xml) =>
    new Promise((resolve, reject) => {
      batch.push({ xml, resolve, reject });
      timer ??= setTimeout(() => void run(), WINDOW_MS);
    });
}

/** A simulated access point that validates with the official artefacts. */
export function startTestAccessPoint(): Promise<SimulatedAccessPoint> {
  return startSimulatedAccessPoint({ validate: officialValidator() });
}
