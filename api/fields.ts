import Decimal from 'decimal.js';
import { z } from 'zod';
import type { PageOptions } from '../services/lookup';
import { listQuery } from './list';
import { zInt, zMetadata } from './validation';

const NO_CONTROL = /^[^\p{Cc}]*$/u;
const hasNoNul = (s: string) => !s.includes('\u0000');
const ID_SHAPE = /^[A-Za-z0-9_]{1,64}$/;

/** One line of text: no control characters (among them NUL, which PostgreSQL text refuses). */
export const zLine = (max: number) =>
  z.string().max(max).regex(NO_CONTROL, 'must not contain control characters (such as line breaks)');

/** Free text over several lines: anything but NUL. */
export const zText = (max: number) => z.string().max(max).refine(hasNoNul, 'must not contain NUL characters');

/** A reference to an object by id (`prod_…`, `cus_…`). */
export const zId = z.string().regex(ID_SHAPE, 'must be an object id');

/** Metadata whose keys and values PostgreSQL can store (no NUL). */
export const zStoredMetadata = zMetadata.superRefine((m, ctx) => {
  for (const [key, value] of Object.entries(m)) {
    if (!hasNoNul(key) || !hasNoNul(value))
      ctx.addIssue({ code: 'custom', path: [key], message: 'must not contain NUL characters' });
  }
});

/** `limit`, `starting_after`, `ending_before`, with cursors that must look like ids. */
export const pageQuery = listQuery
  .extend({ starting_after: zId.optional(), ending_before: zId.optional() })
  .strict();

/** The largest amount accepted anywhere: 12 digits of ISK, far inside the safe integer range. */
export const MAX_AMOUNT = 999_999_999_999;

/** An ISK amount: a whole number ≥ 0, or an integer-formatted string (spec §2.1). */
export function zAmount() {
  return zInt().pipe(z.number().min(0).max(MAX_AMOUNT));
}

/** The latest time accepted anywhere: 9999-12-31T23:59:59Z, in Unix seconds (decision 0108). */
export const MAX_UNIX_TIME = 253_402_300_799;

/** A Unix timestamp in seconds, as the API returns times, up to MAX_UNIX_TIME. */
export function zUnixSeconds() {
  return zInt().pipe(z.number().min(0).max(MAX_UNIX_TIME));
}

/** A Unix timestamp in seconds, as the API returns times; converted to a Date. */
export function zUnixTime() {
  return zUnixSeconds().transform((s) => new Date(s * 1000));
}

/** ISK, the only currency (spec §1), in either letter case; answered as `ISK`. */
export const zCurrency = z
  .string()
  .regex(/^isk$/i, 'must be ISK')
  .transform(() => 'ISK' as const);

/** A percentage above 0 and at most 100 with up to two decimals, kept as decimal text. */
export const zPercent = z
  .union([z.number(), z.string().regex(/^\d{1,3}(\.\d{1,2})?$/, 'must be a number')])
  .transform((v, ctx) => {
    const d = new Decimal(v);
    if (!d.isFinite() || d.lte(0) || d.gt(100) || d.decimalPlaces() > 2) {
      ctx.addIssue({ code: 'custom', message: 'must be above 0 and at most 100, with up to two decimals' });
      return z.NEVER;
    }
    return d.toString();
  });

/** `{ interval, interval_count }` of a recurring price, with Stripe's three-year cap. */
export const zRecurring = z
  .object({
    interval: z.enum(['week', 'month', 'year']),
    interval_count: zInt().pipe(z.number().min(1)).default(1),
  })
  .strict()
  .superRefine((r, ctx) => {
    const max = { week: 156, month: 36, year: 3 }[r.interval];
    if (r.interval_count > max)
      ctx.addIssue({
        code: 'custom',
        path: ['interval_count'],
        message: `must be at most ${max} for interval ${r.interval} (three years)`,
      });
  })
  .transform((r) => ({ interval: r.interval, intervalCount: r.interval_count }));

/** The repository page options of a validated list query. */
export function pageOptions(query: {
  limit: number;
  starting_after?: string;
  ending_before?: string;
}): PageOptions {
  return {
    limit: query.limit,
    ...(query.starting_after !== undefined && { startingAfter: query.starting_after }),
    ...(query.ending_before !== undefined && { endingBefore: query.ending_before }),
  };
}
