import globalSetup from '../test/helpers/global-setup';
import globalTeardown from '../test/helpers/global-teardown';
import { startTestStack, type TestStack, type TestStackOptions } from '../test/helpers/stack';

/** The test stack (real PostgreSQL, Temporal dev server, worker, API) for a benchmark run. */
export async function withStack<T>(
  opts: TestStackOptions,
  run: (stack: TestStack) => Promise<T>,
): Promise<T> {
  await globalSetup();
  const stack = await startTestStack(opts);
  try {
    return await run(stack);
  } finally {
    await stack.stop();
    await globalTeardown();
  }
}

/** Percentile of sorted numbers. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
