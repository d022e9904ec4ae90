/**
 * Rate limits (decision 0110): at most `max` requests per fixed window of `windowMs`, the windows
 * aligned to the clock, counted in PostgreSQL so every API process shares one count.
 */
export interface RateLimit {
  max: number;
  windowMs: number;
}

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000 } as const;

/**
 * A limit as configured: `<max>/<n><s|m|h>` (`100/1s`, `10/1m`, `5/1h`), or `off` for none.
 * Throws with the expected shape on anything else.
 */
export function parseRateLimit(text: string): RateLimit | null {
  const t = text.trim();
  if (t === 'off') return null;
  const m = /^(\d{1,9})\/(\d{1,4})([smh])$/.exec(t);
  const max = Number(m?.[1]);
  const windowMs = Number(m?.[2]) * UNIT_MS[(m?.[3] ?? 's') as keyof typeof UNIT_MS];
  if (!m || max < 1 || windowMs < 1000 || windowMs > 24 * 3_600_000) {
    throw new Error('must be <requests>/<n>s|m|h (a window of 1 s to 24 h), e.g. 100/1s, or off');
  }
  return { max, windowMs };
}

/** How a limit reads in the RateLimit-Policy header and in messages: `100;w=1` (window in seconds). */
export function policyOf(limit: RateLimit): string {
  return `${limit.max};w=${limit.windowMs / 1000}`;
}

/**
 * The least token-endpoint limit per client address that never refuses a CLI polling at
 * `pollIntervalSeconds`: with windows aligned to the clock, polls that far apart fall at most
 * ceil(window / interval) to a window. Twice that leaves room for a client that polls too early to
 * hear the device flow's own `slow_down`, rather than a 429.
 */
export function leastDeviceTokenLimit(pollIntervalSeconds: number, windowMs: number): number {
  return 2 * Math.ceil(windowMs / (pollIntervalSeconds * 1000));
}
