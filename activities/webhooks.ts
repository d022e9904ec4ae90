import type { WorkerMetrics } from '../stack/worker-metrics';
import { heartbeat } from '@temporalio/activity';
import type { Knex } from '../db/knex';
import type { Scope } from '../domain/scope';
import type { Logger } from '../stack/logger';
import type { SecretBox } from '../domain/secret-box';
import { createChannelRepository } from '../db/notification-channels';
import { createDeliveryRepository } from '../db/webhook-deliveries';
import { createEventRepository } from '../db/events';
import { chatLine, toEventPayload } from '../domain/event-payload';
import { signWebhookBody } from '../domain/webhook-signature';
import {
  DEFAULT_AUTO_DISABLE,
  nextAttemptAt,
  WEBHOOK_ATTEMPT_TIMEOUT_MS,
  type AutoDisableRule,
} from '../domain/webhook-schedule';
import { postWebhook, type PostResult } from '../engine/webhook-sender';
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
     * Makes attempt `attemptNumber` of a delivery, exactly once. The attempt row is written before
     * the request goes out: a retry that finds it already finished does nothing, and one that finds
     * it still in progress (the worker died mid-request) records it as failed without sending again,
     * so a crash can never add an attempt beyond the schedule.
     */
    async attemptDelivery(input: {
      merchantId: string;
      livemode: boolean;
      deliveryId: string;
      attemptNumber: number;
      schedule: number[];
    }): Promise<AttemptOutcome> {
      const scope: Scope = { merchantId: input.merchantId, livemode: input.livemode };
      // Channels to wake once committed: those that hear of a channel the rule just disabled.
      const toWake: string[] = [];
      const start = await deps.knex.transaction(async (trx) => {
        const delivery = await deliveries.lock(scope, input.deliveryId, trx);
        if (!delivery || delivery.status !== 'pending' || delivery.attempt_count >= input.attemptNumber)
          return 'skip' as const;
        const previous = await deliveries.findAttempt(scope, input.deliveryId, input.attemptNumber, trx);
        if (previous) {
          const failure: PostResult = {
            status: null,
            latencyMs: 0,
            error: 'interrupted: the worker stopped before the outcome was recorded',
          };
          toWake.push(...(await finish(trx, scope, delivery, input, failure)));
          return 'interrupted' as const;
        }
        await deliveries.insertAttempt(scope, input.deliveryId, input.attemptNumber, trx);
        return delivery;
      });
      if (start === 'skip') return 'skipped';
      if (start === 'interrupted') {
        if (toWake.length > 0) await deps.wakeChannels(toWake);
        return 'interrupted';
      }

      const delivery = start;
      const channel = await channels.findById(scope, delivery.channel_id);
      const event = await events.findById(scope, delivery.event_id);
      let result: PostResult;
      if (!channel || !event) {
        result = { status: null, latencyMs: 0, error: channel ? 'event missing' : 'channel deleted' };
      } else {
        const payload = toEventPayload(event);
        const body = JSON.stringify(channel.type === 'chat' ? { text: chatLine(payload) } : payload);
        result = await postWebhook({
          url: channel.url,
          body,
          timeoutMs,
          livemode: channel.livemode,
          allowPrivateRanges: deps.allowPrivateRanges ?? [],
          headers: {
            'x-service-signature': signWebhookBody(channel.secret, body),
            // During a rotation's overlap the previous secret signs too, in a header of its own:
            // X-Service-Signature holds exactly one value (spec §6.3; decision 0112).
            ...(channel.previous_secret !== null &&
              channel.previous_secret_expires_at !== null &&
              channel.previous_secret_expires_at.getTime() > Date.now() && {
                'x-service-signature-previous': signWebhookBody(channel.previous_secret, body),
              }),
            'x-service-event': event.type,
            'x-service-delivery-id': delivery.id,
          },
        });
      }
      toWake.push(...(await deps.knex.transaction((trx) => finish(trx, scope, delivery, input, result))));
      if (toWake.length > 0) await deps.wakeChannels(toWake);
      if (deps.metrics) {
        deps.metrics.webhookAttempts.inc({ result: result.error === null ? 'succeeded' : 'failed' });
        if (result.status !== null) deps.metrics.webhookAttemptSeconds.observe(result.latencyMs / 1000);
        if (result.error === null && event)
          deps.metrics.webhookDeliverySeconds.observe(
            (Date.now() - new Date(event.createdAt).getTime()) / 1000,
          );
      }
      deps.log.info(
        {
          deliveryId: delivery.id,
          attempt: input.attemptNumber,
          status: result.status,
          latencyMs: result.latencyMs,
          error: result.error,
        },
        'webhook attempt',
      );
      return result.error === null ? 'succeeded' : 'failed';
    },

    /**
     * Attempts a batch of due deliveries, `concurrency` at a time, each through attemptDelivery's
     * exactly-once rule. One activity per batch keeps Temporal's per-task overhead off every POST; a
     * retried batch skips what it already did. Heartbeats after each delivery so a dead worker is
     * noticed within the heartbeat timeout rather than the batch's whole time limit.
     */
    async attemptDeliveries(input: {
      merchantId: string;
      livemode: boolean;
      deliveries: { id: string; attemptNumber: number }[];
      schedule: number[];
      concurrency: number;
    }): Promise<Record<AttemptOutcome, number>> {
      const counts: Record<AttemptOutcome, number> = { succeeded: 0, failed: 0, skipped: 0, interrupted: 0 };
      let next = 0;
      const lane = async () => {
        while (next < input.deliveries.length) {
          const d = input.deliveries[next++]!;
          const outcome = await activities.attemptDelivery({
            merchantId: input.merchantId,
            livemode: input.livemode,
            deliveryId: d.id,
            attemptNumber: d.attemptNumber,
            schedule: input.schedule,
          });
          counts[outcome] += 1;
          heartbeat(next);
        }
      };
      await Promise.all(
        Array.from({ length: Math.max(1, Math.min(input.concurrency, input.deliveries.length)) }, lane),
      );
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
   * Records an attempt's outcome. A delivery that failed for good may disable its channel (decision
   * 0112); then `notification_channel.disabled` is recorded in the same transaction, and the
   * channels that will hear of it are returned, to be woken after the commit.
   */
  async function finish(
    trx: Knex.Transaction,
    scope: Scope,
    delivery: { id: string; channel_id: string; max_attempts: number },
    input: { attemptNumber: number; schedule: number[] },
    result: PostResult,
  ): Promise<string[]> {
    const succeeded = result.error === null;
    const at = clock();
    // Failed for good when the schedule is spent, or when a resend's single extra attempt is used.
    const next =
      succeeded || input.attemptNumber >= delivery.max_attempts
        ? null
        : nextAttemptAt(input.schedule, input.attemptNumber, new Date());
    await deliveries.finishAttempt(
      scope,
      delivery.id,
      input.attemptNumber,
      { succeeded, responseStatus: result.status, latencyMs: result.latencyMs, error: result.error },
      next,
      at,
      trx,
    );
    if (succeeded || next !== null || autoDisable.afterFailures <= 0) return [];
    const disabled = await channels.disableIfFailing(
      scope,
      delivery.channel_id,
      { now: at, windowMs: autoDisable.windowHours * 3600_000, minFailures: autoDisable.afterFailures },
      trx,
    );
    if (!disabled) return [];
    deps.log.warn(
      { channelId: disabled.id, afterFailures: autoDisable.afterFailures },
      'notification channel disabled: its deliveries keep failing',
    );
    const { channelIds } = await events.record(
      scope,
      { type: 'notification_channel.disabled', data: presentChannel(disabled, false) },
      trx,
    );
    return channelIds;
  }
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
