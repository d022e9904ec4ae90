import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Bounds how far the API process's old generation grows with garbage before V8 collects it
 * (bench/journal-export.ts: a journal of a million payments downloaded). A long download
 * promotes a steady trickle of short-lived rows and strings to the old generation. V8 lets the
 * old generation reach a first limit sized from the machine's memory before its first full
 * collection, and after each one grows the limit by a factor of up to four of what survived: the
 * API's old generation went from 85 to 160 MB of mostly garbage (RSS +56–76 MB) during the
 * export, and fell back to 80 MB at the collection.
 *
 * So, once started: the growing factor is held to 1.2 (`--heap-growing-percent`, read at each
 * limit's computation), and one full collection is run so the limit is computed from what the
 * started API keeps rather than the first, memory-sized one. V8 offers no other way to collect
 * on request than its `gc` function, which `--expose-gc` puts in contexts made after it; the
 * process's own context does not get it. The cost is a full collection every fifth more of live
 * heap, tens of milliseconds, mostly on V8's background threads.
 */
export function boundOldGeneration(): void {
  setFlagsFromString('--heap-growing-percent=20');
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('typeof gc === "function" ? gc : undefined') as (() => void) | undefined;
  gc?.();
}
