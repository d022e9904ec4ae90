import { z } from 'zod';
import { zInt } from './validation';

/** `limit`, `starting_after`, `ending_before` (architecture, "API conventions"). */
export const listQuery = z
  .object({
    limit: zInt().pipe(z.number().min(1).max(100)).default(25),
    starting_after: z.string().min(1).max(64).optional(),
    ending_before: z.string().min(1).max(64).optional(),
  })
  .strict();

/** The list envelope `{ object: "list", data, has_more, url }`, for documentation. */
export function listOf<T extends z.ZodType>(item: T) {
  return z.object({ object: z.literal('list'), data: z.array(item), has_more: z.boolean(), url: z.string() });
}

/** Builds a list response. */
export function listResponse<T>(url: string, data: T[], hasMore: boolean) {
  return { object: 'list' as const, data, has_more: hasMore, url };
}
