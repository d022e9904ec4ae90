/**
 * The periods the merchant's home page compares (decision 0230): whole UTC days, which are
 * Iceland's, each against the one just before it of the same length; a calendar month against the
 * whole month before.
 */
export const PERIODS = ['today', '7d', '30d', 'month'] as const;
export type Period = (typeof PERIODS)[number];

export function isPeriod(value: unknown): value is Period {
  return typeof value === 'string' && (PERIODS as readonly string[]).includes(value);
}

/** A half-open range of instants, [from, to). */
export interface Range {
  from: Date;
  to: Date;
}

const DAY = 86_400_000;

/** The current period at `now` and the previous one it is compared with. */
export function periodRanges(period: Period, now: Date): { current: Range; previous: Range } {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  if (period === 'month') {
    const from = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
    const to = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    const before = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1);
    return {
      current: { from: new Date(from), to: new Date(to) },
      previous: { from: new Date(before), to: new Date(from) },
    };
  }
  const days = period === 'today' ? 1 : period === '7d' ? 7 : 30;
  const to = today + DAY;
  const from = to - days * DAY;
  return {
    current: { from: new Date(from), to: new Date(to) },
    previous: { from: new Date(from - days * DAY), to: new Date(from) },
  };
}

/** The UTC dates (yyyy-mm-dd) of a range's days, oldest first. */
export function daysOf(range: Range): string[] {
  const out: string[] = [];
  for (let t = range.from.getTime(); t < range.to.getTime(); t += DAY)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/**
 * The instants the MRR chart samples: the start of each of the twelve months before `now`'s month
 * and `now` itself, oldest first (thirteen points, twelve months apart at most).
 */
export function mrrSamplePoints(now: Date): Date[] {
  const points: Date[] = [];
  for (let back = 12; back >= 1; back--)
    points.push(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back + 1, 1)));
  points.push(now);
  return points;
}

/**
 * The change from `before` to `now` in per mille of `before` (whole per mille, half away from
 * zero), or null when `before` is zero and nothing can be compared.
 */
export function changePerMille(now: number, before: number): number | null {
  if (before === 0) return null;
  const exact = ((now - before) * 1000) / Math.abs(before);
  return Math.sign(exact) * Math.round(Math.abs(exact));
}
