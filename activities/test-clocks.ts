import { heartbeat } from '@temporalio/activity';
import type { ClockAdvance } from '../services/test-clocks/clock-advance';

/** Side effects of advancing a test clock (services/test-clocks/clock-advance.ts). */
export function createTestClockActivities(deps: { clock: ClockAdvance }) {
  return {
    /**
     * The next instant in (after, to] at which something bound to the clock is due: a renewal or a
     * workflow's wait. `to` when nothing is due before it.
     */
    nextClockInstant: (input: { testClockId: string; after: number; to: number }): Promise<number> =>
      deps.clock.nextInstant(input),

    setClockTime: (input: { testClockId: string; at: number; ready: boolean }): Promise<void> =>
      deps.clock.setTime(input),

    /**
     * Ticks every workflow waiting on the clock up to `now` and waits until each has done what was
     * due, heartbeating after each. Returns how many were ticked.
     */
    tickClockWaits: (input: { testClockId: string; now: number }): Promise<number> =>
      deps.clock.tickDue(input, (done) => heartbeat(done)),
  };
}

export type TestClockActivities = ReturnType<typeof createTestClockActivities>;
