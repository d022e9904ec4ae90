/**
 * Polls `what` every 100 ms until `ok` accepts its value, and returns that value; fails after `ms`
 * with the last value seen. For states that workflows reach asynchronously (a run paid, a clock ready).
 */
export async function until<T>(what: () => Promise<T>, ok: (v: T) => boolean, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await what();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out; last value ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
