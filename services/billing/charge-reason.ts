/** Why a period is charged; it decides the events and what a failure means. */
export type ChargeReason = 'renewal' | 'first' | 'trial_end' | 'retry';

/** A subscription whose lifecycle workflow must look at it (after a failed renewal). */
export interface LifecycleRef {
  merchantId: string;
  livemode: boolean;
  subscriptionId: string;
  testClockId: string | null;
  /** The time of the change, epoch ms (clock time for clock-bound subscriptions). */
  at: number;
}

export interface ChargeSummary {
  processed: number;
  paid: number;
  failed: number;
}
