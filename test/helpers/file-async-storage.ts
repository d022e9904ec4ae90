import asyncHooks from 'node:async_hooks';

/*
 * The AsyncLocalStorage instances a test file's modules make, so the file's test environment can
 * disable them when the file ends (test/helpers/shared-stack-environment.ts).
 *
 * Node 20 keeps every AsyncLocalStorage that has once run in a process-wide list until it is
 * disabled, and walks that list for every promise and async resource the process makes. Jest loads
 * each file's modules afresh, and jest-circus alone makes and runs one per file (its test context),
 * so a jest worker that had run 76 files awaited fifteen times slower than a fresh one (300,000
 * awaits: 3.4 s against 0.22 s), and every file after the first paid for the ones before it
 * (decision 0266). A storage is the file's when it is made while a module of the file's registry is
 * being evaluated (jest-runtime's module execution on the stack); the worker's shared stack loads
 * its modules outside any registry, so its storages are never the file's.
 */

const Original = asyncHooks.AsyncLocalStorage;
let current: Set<InstanceType<typeof Original>> | null = null;

/**
 * Made while jest evaluates a module of the file's registry (jest-circus's per-file test context is
 * one, loaded through the file's runtime). Not by code merely called from a test: the shared stack's
 * modules are loaded from a test's `beforeAll`, and their storages serve the files after it.
 */
function madeByFileModule(): boolean {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 50;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  return stack.includes('/jest-runtime/build/');
}

class TrackedAsyncLocalStorage<T> extends Original<T> {
  constructor() {
    super();
    if (current && madeByFileModule()) current.add(this);
  }
}

let installed = false;

/** Starts collecting the storages a file's modules make; call at the file's environment setup. */
export function collectFileStorages(): void {
  if (!installed) {
    // Modules read the class from the module object when they make a storage, so replacing the
    // export reaches them; `instanceof AsyncLocalStorage` still holds for what they make.
    (asyncHooks as { AsyncLocalStorage: typeof Original }).AsyncLocalStorage = TrackedAsyncLocalStorage;
    installed = true;
  }
  current = new Set();
}

/** Disables what the ending file's modules made: nothing of the file runs after its teardown. */
export function disableFileStorages(): number {
  const made = current ?? new Set();
  current = null;
  for (const storage of made) storage.disable();
  return made.size;
}
