import { z } from 'zod';
import type { TestClockRow } from '../../db/test-clocks';
import { unix } from '../../domain/unix-time';

// The test clock object (Stripe's `test_helpers.test_clock`), from presentTestClock only.

export const TestClockSchema = z.object({
  id: z.string(),
  object: z.literal('test_helpers.test_clock'),
  livemode: z.literal(false),
  name: z.string().nullable(),
  frozen_time: z.number(),
  status: z.enum(['ready', 'advancing']),
  status_details: z.object({ advancing: z.object({ target_frozen_time: z.number() }).nullable() }),
  created_at: z.number(),
});

export const DeletedTestClockSchema = z.object({
  id: z.string(),
  object: z.literal('test_helpers.test_clock'),
  deleted: z.literal(true),
});

/** What a delete answers. */
export function presentDeletedTestClock(id: string) {
  return { id, object: 'test_helpers.test_clock' as const, deleted: true as const };
}

export function presentTestClock(row: TestClockRow) {
  return {
    id: row.id,
    object: 'test_helpers.test_clock' as const,
    livemode: false as const,
    name: row.name,
    frozen_time: unix(row.frozen_time),
    status: row.status,
    status_details: { advancing: row.advancing_to ? { target_frozen_time: unix(row.advancing_to) } : null },
    created_at: unix(row.created_at),
  };
}

export type TestClock = ReturnType<typeof presentTestClock>;
