import type { WorkerMetrics } from '../stack/worker-metrics';
import { heartbeat } from '@temporalio/activity';
import type { Knex } from '../db/knex';
import type { Scope } from '../domain/scope';
import type { Logger } from '../stack/logger';
import type { SecretBox } from '../domain/secret-box';
import { createChannelRepository, type ChannelRow } from '../db/notification-channels';
import { createDeliveryRepository } from '../db/webhook-deliveries';
import { createEventRepository } from '../db/events';
import type { EventRecord } from '../domain/event-payload';
import {
  createDeliveryBatchRepository,
  type BatchOutcome,
  type ClaimedDelivery,
} from '../db/webhook-delivery-batch';
import {
  DEFAULT_AUTO_DISABLE,
  nextAttemptAt,
  WEBHOOK_ATTEMPT_TIMEOUT_MS,
  type AutoDisableRule,
} from '../domain/webhook-schedule';
import type { PostResult } from '../adapters/http/webhook-sender';
import { sendDelivery } from '../engine/webhook-request';
import { presentChannel } from '../services/channels/notification-channel-object';

export interface WebhookActivityDeps {
  knex: Knex;
  /** The worker's Prometheus metrics; unset: nothing is counted (tests, benchmarks). */
  metrics?: WorkerMetrics;
  log: Logger;
  /** Opens the signing secrets stored sealed (decision 0112). */
  secrets: SecretBox;
  /** Wakes the workflow of each channel (signal-with-start); used by the relay. */
  wakeChannels: (channelIds: string[]) => Promise<void>;
  /** Overridable for tests that need a shorter per-attempt limit; production is 30 s. */
  attemptTimeoutMs?: number;
  /** CIDR ranges the operator lets channels reach (WEBHOOK_ALLOW_PRIVATE_RANGES; decision 0111). */
  allowPrivateRanges?: readonly string[];
  /**
   * A channel is disabled when every delivery that ended in the last `windowHours` failed and at
   * least `afterFailures` did (decision 0112); `afterFailures` 0 never disables. Default 20 in 72 h.
   */
  autoDisable?: AutoDisableRule;
  /** The time attempts end at and the disabling rule reads; tests move it forward. Default: now. */
  clock?: () => Date;
}

export interface ScopedChannel {
  merchantId: string;
  livemode: boolean;
  channelId: string;
}

export type ChannelState = 'active' | 'disabled' | 'deleted';

export type AttemptOutcome = 'succeeded' | 'failed' | 'skipped' | 'interrupted';

/** Side effects of webhook delivery. Every one is safe to retry: see attemptDelivery. */
export function createWebhookActivities(
  deps: Pick<
    WebhookActivityDeps,
    | 'knex'
    | 'log'
    | 'secrets'
    | 'wakeChannels'
    | 'attemptTimeoutMs'
    | 'allowPrivateRanges'
    | 'autoDisable'
    | 'clock'
    | 'metrics'
  >,
) {
  const channels = createChannelRepository(deps.knex, deps.secrets);
  const deliveries = createDeliveryRepository(deps.knex);
  const events = createEventRepository(deps.knex);
  const batches = createDeliveryBatchRepository();
  const timeoutMs = deps.attemptTimeoutMs ?? WEBHOOK_ATTEMPT_TIMEOUT_MS;
  const autoDisable = deps.autoDisable ?? DEFAULT_AUTO_DISABLE;
  const clock = deps.clock ?? (() => new Date());

  const activities = {
    /** The channel's state, the deliveries due now (at most `limit`), and when the next one is due (epoch ms). */
    async findDueDeliveries(input: ScopedChannel & { limit: number }): Promise<{
      channel: ChannelState;
      due: { id: string; attemptNumber: number }[];
      nextDueAt: number | null;
    }> {
      const scope: Scope = { merchantId: input.merchantId, livemode: input.livemode };
      const channel = await channels.findById(scope, input.channelId);
      if (!channel) return { channel: 'deleted', due: [], nextDueAt: null };
      if (channel.status !== 'enabled') return { channel: 'disabled', due: [], nextDueAt: null };
      const { due, nextDueAt } = await deliveries.findDue(scope, input.channelId, input.limit);
      return { channel: 'active', due, nextDueAt: nextDueAt?.getTime() ?? null };
    },

    /**
     * Makes attempt `attemptNumber` of one delivery, exactly once: attemptDeliveries with a batch of
     * one. Kept for activity tasks scheduled by workflow code from before batches.
     */
    async attemptDelivery(input: {
      merchantId: string;
      livemode: boolean;
      deliveryId: string;
      attemptNumber: number;
      schedule: number[];
    }): Promise<AttemptOutcome> {
      const counts = await activities.attemptDeliveries({
        merchantId: input.merchantId,
        livemode: input.livemode,
        deliveries: [{ id: input.deliveryId, attemptNumber: input.attemptNumber }],
        schedule: input.schedule,
        concurrency: 1,
      });
      return (Object.keys(counts) as AttemptOutcome[]).find((k) => counts[k] > 0) ?? 'skipped';
    },

    /**
     * Attempts a batch of due deliveries (see attemptBatch). Given its channel, it then goes on with
     * the deliveries that fell due meanwhile, for up to CONTINUE_MS, before handing back to the
     * workflow: a busy channel then costs one activity per stretch rather than two Temporal round
     * trips per batch, and a delivery committed during a stretch waits for one batch, not for the
     * workflow's next round (decision 0184).
     */
    async attemptDeliveries(input: {
      merchantId: string;
      livemode: boolean;
      deliveries: { id: string; attemptNumber: number }[];
      schedule: number[];
      concurrency: number;
      /** The channel of the deliveries, and how many to claim per further batch; unset: this batch only. */
      channelId?: string;
      limit?: number;
    }): Promise<Record<AttemptOutcome, number>> {
      const counts = await attemptBatch(input, input.deliveries);
      if (input.channelId === undefined) return counts;
      const until = Date.now() + CONTINUE_MS;
      while (Date.now() < until) {
        // Reads the channel's state too: a channel disabled or deleted meanwhile stops the stretch.
        const found = await activities.findDueDeliveries({
          merchantId: input.merchantId,
          livemode: input.livemode,
          channelId: input.channelId,
          limit: input.limit ?? input.deliveries.length,
        });
        if (found.channel !== 'active' || found.due.length === 0) break;
        const more = await attemptBatch(input, found.due);
        for (const key of Object.keys(counts) as AttemptOutcome[]) counts[key] += more[key];
      }
      return counts;
    },

    /** Signals the workflow of every channel holding overdue deliveries (lost wake-ups). */
    async wakeChannelsWithOverdueDeliveries(input: { graceMs: number; limit: number }): Promise<number> {
      const ids = await deliveries.channelsWithOverdueDeliveries(input.graceMs, input.limit);
      if (ids.length > 0) await deps.wakeChannels(ids);
      return ids.length;
    },
  };
  return activities;

  /**
   * Makes attempt `attemptNumber` of each delivery of a batch, exactly once, `concurrency` POSTs at
   * a time. The attempt rows are written and committed before any request goes out: a retried
   * batch skips deliveries whose attempt finished, and records one still in progress (the worker
   * died mid-request) as failed without sending it again, so a crash can never add an attempt
   * beyond the schedule. Claiming, reading channels and events, and recording outcomes are each a
   * few statements for the whole batch, so a delivery costs the database a share of a batch rather
   * than two transactions of its own. Heartbeats at most once a second while POSTs complete, so a
   * dead worker is noticed within the heartbeat timeout rather than the batch's whole time limit;
   * once per POST, encoding its details each time, cost 5–7 % of the worker's CPU while draining.
   */
  async function attemptBatch(
    input: { merchantId: string; livemode: boolean; schedule: number[]; concurrency: number },
    batch: { id: string; attemptNumber: number }[],
  ): Promise<Record<AttemptOutcome, number>> {
    const scope: Scope = { merchantId: input.merchantId, livemode: input.livemode };
    // Channels to wake once committed: those that hear of a channel the rule just disabled.
    const toWake: string[] = [];
    const { claimed, interrupted } = await deps.knex.transaction(async (trx) => {
      const found = await batches.claim(scope, batch, trx);
      if (found.interrupted.length > 0) {
        const at = clock();
        const outcomes = found.interrupted.map((d) => outcomeOf(d, INTERRUPTED, at, input.schedule));
        toWake.push(...(await finish(trx, scope, outcomes)));
      }
      return found;
    });

    // Each channel's secrets are opened once per batch; the events are read in one statement.
    const channelById = new Map<string, ChannelRow | undefined>();
    for (const id of new Set(claimed.map((d) => d.channel_id)))
      channelById.set(id, await channels.findById(scope, id));
    const eventById = new Map(
      (
        await events.findByIds(
          scope,
          claimed.map((d) => d.event_id),
        )
      ).map((e) => [e.id, e]),
    );

    const outcomes: Outcome[] = [];
    let next = 0;
    let lastHeartbeat = 0;
    const lane = async () => {
      while (next < claimed.length) {
        const delivery = claimed[next++]!;
        const channel = channelById.get(delivery.channel_id);
        const event = eventById.get(delivery.event_id);
        const result: PostResult =
          !channel || !event
            ? { status: null, latencyMs: 0, error: channel ? 'event missing' : 'channel deleted' }
            : await sendDelivery({
                channel,
                event,
                deliveryId: delivery.id,
                timeoutMs,
                allowPrivateRanges: deps.allowPrivateRanges ?? [],
              });
        outcomes.push(outcomeOf(delivery, result, clock(), input.schedule));
        observe(delivery, result, event);
        if (Date.now() - lastHeartbeat >= HEARTBEAT_EVERY_MS) {
          lastHeartbeat = Date.now();
          heartbeat(outcomes.length);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(input.concurrency, claimed.length)) }, lane));
    toWake.push(...(await recordOutcomes(scope, outcomes)));
    if (toWake.length > 0) await deps.wakeChannels(toWake);

    const succeeded = outcomes.filter((o) => o.succeeded).length;
    deps.log.info(
      {
        merchantId: scope.merchantId,
        attempts: outcomes.length,
        succeeded,
        failed: outcomes.length - succeeded,
      },
      'webhook batch',
    );
    return {
      succeeded,
      failed: outcomes.length - succeeded,
      skipped: batch.length - claimed.length - interrupted.length,
      interrupted: interrupted.length,
    };
  }

  /**
   * Records a batch's outcomes, retrying the transaction a few times: the requests went out, and an
   * outcome lost here would make the batch's retry record them as interrupted and send them again.
   */
  async function recordOutcomes(scope: Scope, outcomes: Outcome[]): Promise<string[]> {
    for (let tries = 1; ; tries++) {
      try {
        return await deps.knex.transaction((trx) => finish(trx, scope, outcomes));
      } catch (err) {
        if (tries >= RECORD_TRIES) throw err;
        deps.log.warn({ err, tries }, 'could not record webhook outcomes; trying again');
        await new Promise((resolve) => setTimeout(resolve, 500 * tries));
      }
    }
  }

  /**
   * Records attempts' outcomes. A delivery that failed for good may disable its channel (decision
   * 0112); then `notification_channel.disabled` is recorded in the same transaction, and the
   * channels that will hear of it are returned, to be woken after the commit.
   */
  async function finish(trx: Knex.Transaction, scope: Scope, outcomes: Outcome[]): Promise<string[]> {
    await batches.finish(scope, outcomes, trx);
    if (autoDisable.afterFailures <= 0) return [];
    // The rule is read once per channel, at the latest end among the batch's failures for good.
    const lastFailure = new Map<string, Date>();
    for (const o of outcomes) {
      if (o.succeeded || o.nextAt !== null) continue;
      const seen = lastFailure.get(o.channelId);
      if (!seen || seen < o.at) lastFailure.set(o.channelId, o.at);
    }
    const toWake: string[] = [];
    for (const [channelId, at] of lastFailure) {
      const disabled = await channels.disableIfFailing(
        scope,
        channelId,
        { now: at, windowMs: autoDisable.windowHours * 3600_000, minFailures: autoDisable.afterFailures },
        trx,
      );
      if (!disabled) continue;
      deps.log.warn(
        { channelId: disabled.id, afterFailures: autoDisable.afterFailures },
        'notification channel disabled: its deliveries keep failing',
      );
      const { channelIds } = await events.record(
        scope,
        { type: 'notification_channel.disabled', data: presentChannel(disabled, false) },
        trx,
      );
      toWake.push(...channelIds);
    }
    return toWake;
  }

  /**
   * Counts one attempt that was made, and logs it when it failed. A success is a row in
   * webhook_attempts and a count in its batch's line: a line for each was a tenth of the cost of
   * sending it, hundreds of lines a second on a busy channel.
   */
  function observe(delivery: ClaimedDelivery, result: PostResult, event: EventRecord | undefined): void {
    if (deps.metrics) {
      deps.metrics.webhookAttempts.inc({ result: result.error === null ? 'succeeded' : 'failed' });
      if (result.status !== null) deps.metrics.webhookAttemptSeconds.observe(result.latencyMs / 1000);
      if (result.error === null && event)
        deps.metrics.webhookDeliverySeconds.observe(
          (Date.now() - new Date(event.createdAt).getTime()) / 1000,
        );
    }
    if (result.error === null) return;
    deps.log.info(
      {
        deliveryId: delivery.id,
        attempt: delivery.attemptNumber,
        status: result.status,
        latencyMs: result.latencyMs,
        error: result.error,
      },
      'webhook attempt failed',
    );
  }
}

/** An attempt's outcome with the channel it went to (which the disabling rule reads). */
type Outcome = BatchOutcome & { channelId: string };

const INTERRUPTED: PostResult = {
  status: null,
  latencyMs: 0,
  error: 'interrupted: the worker stopped before the outcome was recorded',
};

/** How long one activity goes on attempting what falls due on its channel before it returns. */
const CONTINUE_MS = 10_000;

/** Tries at recording a batch's outcomes before the activity fails (and Temporal retries it). */
const RECORD_TRIES = 3;

/** A batch heartbeats at most this often; the channel workflow's heartbeat timeout is a minute. */
const HEARTBEAT_EVERY_MS = 1_000;

/**
 * Where a delivery goes after an attempt that ended at `at`: failed for good when the schedule is
 * spent, or when a resend's single extra attempt is used; else due again by the schedule.
 */
function outcomeOf(delivery: ClaimedDelivery, result: PostResult, at: Date, schedule: number[]): Outcome {
  const succeeded = result.error === null;
  const nextAt =
    succeeded || delivery.attemptNumber >= delivery.max_attempts
      ? null
      : nextAttemptAt(schedule, delivery.attemptNumber, new Date());
  return {
    deliveryId: delivery.id,
    channelId: delivery.channel_id,
    attemptNumber: delivery.attemptNumber,
    succeeded,
    responseStatus: result.status,
    latencyMs: result.latencyMs,
    error: result.error,
    at,
    nextAt,
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
