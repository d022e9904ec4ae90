import { condition, setHandler } from '@temporalio/workflow';
import { clockTickUpdate } from './contract';

/** A test clock a workflow is bound to, and the clock's time when the workflow (re)started. */
export interface BoundClock {
  id: string;
  now: number;
}

export interface WorkflowTime {
  /** Epoch ms: workflow time, or the bound clock's frozen time. */
  now(): number;
  /** Sleeps until `at`, or until `wake()` turns true. */
  sleepUntil(at: number, wake: () => boolean): Promise<void>;
  /** The workflow is about to finish: ticks in flight may return. */
  finish(): void;
}

/**
 * The one time helper of the architecture: a real timer, or, for objects bound to a test clock,
 * the clock's ticks (Temporal's dev server cannot skip time). `register` records the wait where the
 * clock looks for what is due.
 */
export function workflowTime(
  clock: BoundClock | null,
  /** Records the wait; answers the clock's time then, if known (histories before it answer nothing). */
  register: (at: number) => Promise<number | null | void>,
): WorkflowTime {
  let clockNow = clock?.now ?? 0;
  let waitingUntil: number | null = null;
  let finished = false;
  if (clock) {
    setHandler(
      clockTickUpdate,
      async (now) => {
        if (now > clockNow) clockNow = now;
        await condition(() => finished || (waitingUntil !== null && waitingUntil > now));
      },
      {
        validator: (now) => {
          if (!Number.isFinite(now)) throw new Error('the clock time must be a finite number of ms');
        },
      },
    );
  }
  return {
    now: () => (clock ? clockNow : Date.now()),
    async sleepUntil(at, wake) {
      if (!clock) {
        if (at > Date.now()) await condition(wake, Math.max(1, at - Date.now()));
        return;
      }
      if (at <= clockNow) return;
      const clockTime = await register(at);
      // The clock may have advanced past `at` before the wait was recorded: no tick would come.
      if (typeof clockTime === 'number' && clockTime > clockNow) clockNow = clockTime;
      if (at <= clockNow) return;
      waitingUntil = at;
      await condition(() => wake() || clockNow >= at);
      waitingUntil = null;
    },
    finish() {
      finished = true;
    },
  };
}
