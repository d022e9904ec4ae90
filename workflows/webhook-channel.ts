import {
  allHandlersFinished,
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { createWebhookActivities } from '../activities/webhooks';
import { deliveriesDueSignal } from './contract';

type WebhookActivities = ReturnType<typeof createWebhookActivities>;

// Reads are quick and harmless to repeat: retry them for as long as the database is away.
const { findDueDeliveries } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

// A call is batches of at most `batchSize` POSTs of at most 30 s each, `concurrency` at a time, for
// about 10 s, plus one batch's worth of time limits (30 s per wave of POSTs). Each delivery
// attempt inside is idempotent per (delivery, attempt number), so Temporal may retry the batch
// without ever sending twice; heartbeats reveal a dead worker within a minute.
const { attemptDeliveries } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

export interface WebhookChannelInput {
  merchantId: string;
  livemode: boolean;
  channelId: string;
  /** Delays before attempts 1..n in ms (domain/webhook-schedule.ts); tests pass a scaled copy. */
  schedule: number[];
  /** Deliveries fetched per round. */
  batchSize?: number;
  /** Requests in flight at once to this channel's endpoint. */
  concurrency?: number;
}

/** Rounds of work before the history is cut with continue-as-new, whatever the server suggests. */
const ROUNDS_PER_RUN = 500;

/**
 * The delivery loop of one notification channel (`webhooks/{nc_id}`): attempt what is due, then sleep
 * until the next attempt falls due or a signal says new deliveries arrived. Postgres holds every
 * delivery and attempt, so the workflow carries no state across continue-as-new but its input.
 */
export async function webhookChannel(input: WebhookChannelInput): Promise<void> {
  let woken = false;
  setHandler(deliveriesDueSignal, () => {
    woken = true;
  });
  const scope = { merchantId: input.merchantId, livemode: input.livemode, channelId: input.channelId };
  // A batch costs the database a few statements whatever its size, so a large one spreads that
  // cost; POSTs stay bounded per channel by `concurrency` (decision 0183).
  const batchSize = input.batchSize ?? 200;
  const concurrency = input.concurrency ?? 16;

  for (let round = 0; ; round++) {
    if (round >= ROUNDS_PER_RUN || workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      return continueAsNew<typeof webhookChannel>(input);
    }
    woken = false;
    const { channel, due, nextDueAt } = await findDueDeliveries({ ...scope, limit: batchSize });
    if (channel === 'deleted') return;
    if (channel === 'disabled') {
      await condition(() => woken);
      continue;
    }
    if (due.length > 0) {
      await attemptDeliveries({
        merchantId: input.merchantId,
        livemode: input.livemode,
        deliveries: due,
        schedule: input.schedule,
        concurrency,
        // The activity goes on with what falls due on the channel meanwhile (decision 0184).
        channelId: input.channelId,
        limit: batchSize,
      });
      continue;
    }
    if (nextDueAt === null) {
      await condition(() => woken);
    } else {
      await condition(() => woken, Math.max(1, nextDueAt - Date.now()));
    }
  }
}
