import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { Logger } from '../../stack/logger';
import type { SecretBox } from '../../domain/secret-box';
import type { PostResult } from '../../adapters/http/webhook-sender';
import { createChannelRepository } from '../../db/notification-channels';
import { createEventRepository } from '../../db/events';
import {
  createDeliveryBatchRepository,
  type BatchOutcome,
  type ClaimedDelivery,
} from '../../db/webhook-delivery-batch';
import { nextAttemptAt, type AutoDisableRule } from '../../domain/webhook-schedule';
import { presentChannel } from './notification-channel-object';

/** An attempt's outcome with the channel it went to (which the disabling rule reads). */
export type Outcome = BatchOutcome & { channelId: string };

/** The outcome of an attempt a worker began and died in: failed, never sent again. */
export const INTERRUPTED: PostResult = {
  status: null,
  latencyMs: 0,
  error: 'interrupted: the worker stopped before the outcome was recorded',
};

/** Tries at recording a batch's outcomes before the activity fails (and Temporal retries it). */
const RECORD_TRIES = 3;

/**
 * Where a delivery goes after an attempt that ended at `at`: failed for good when the schedule is
 * spent, or when a resend's single extra attempt is used; else due again by the schedule.
 */
export function outcomeOf(
  delivery: ClaimedDelivery,
  result: PostResult,
  at: Date,
  schedule: number[],
): Outcome {
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

/** Recording attempts' outcomes, and the rule that disables a channel whose deliveries keep failing. */
export function createWebhookOutcomes(deps: {
  knex: Knex;
  log: Logger;
  secrets: SecretBox;
  autoDisable: AutoDisableRule;
}) {
  const { autoDisable } = deps;
  const channels = createChannelRepository(deps.knex, deps.secrets);
  const events = createEventRepository(deps.knex);
  const batches = createDeliveryBatchRepository();

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

  return {
    finish,

    /**
     * Records a batch's outcomes, retrying the transaction a few times: the requests went out, and an
     * outcome lost here would make the batch's retry record them as interrupted and send them again.
     */
    async record(scope: Scope, outcomes: Outcome[]): Promise<string[]> {
      for (let tries = 1; ; tries++) {
        try {
          return await deps.knex.transaction((trx) => finish(trx, scope, outcomes));
        } catch (err) {
          if (tries >= RECORD_TRIES) throw err;
          deps.log.warn({ err, tries }, 'could not record webhook outcomes; trying again');
          await new Promise((resolve) => setTimeout(resolve, 500 * tries));
        }
      }
    },
  };
}

export type WebhookOutcomes = ReturnType<typeof createWebhookOutcomes>;
