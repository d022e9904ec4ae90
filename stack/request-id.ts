import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The id of the API request a piece of work is done for (decision 0178): set by the API for the
 * life of a request, and by the worker for an activity whose workflow a request started or
 * signalled. The logger adds it to every line written meanwhile; the Temporal client interceptor
 * sends it on with every workflow start, signal and update.
 */
const requestIds = new AsyncLocalStorage<string>();

/** The id of the request being served here, if any. */
export function currentRequestId(): string | undefined {
  return requestIds.getStore();
}

/** Runs `fn` (and everything it starts) as work for request `id`. */
export function withRequestId<T>(id: string, fn: () => T): T {
  return requestIds.run(id, fn);
}
