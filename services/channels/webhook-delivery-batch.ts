import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { Logger } from '../../stack/logger';
import type { SecretBox } from '../../domain/secret-box';
import type { WorkerMetrics } from '../../stack/worker-metrics';
import type { EventRecord } from '../../domain/event-payload';
import type { PostResult } from '../../adapters/http/webhook-sender';
import { createChannelRepository, type ChannelRow } from '../../db/notification-channels';
import { createEventRepository } from '../../db/events';
import { createDeliveryBatchRepository, type ClaimedDelivery } from '../../db/webhook-delivery-batch';
import {
  DEFAULT_AUTO_DISABLE,
  WEBHOOK_ATTEMPT_TIMEOUT_MS,
  type AutoDisableRule,
} from '../../domain/webhook-schedule';
import { sendDelivery } from '../../engine/webhook-request';
import type { DueDeliveryService } from './due-deliveries';
import { createWebhookOutcomes, INTERRUPTED, outcomeOf, type Outcome } from './webhook-outcomes';

export type AttemptOutcome = 'succeeded' | 'failed' | 'skipped' | 'interrupted';

/** One delivery's attempt to make: attempt `attemptNumber` of delivery `id`. */
export interface DueAttempt {
  id: string;
  attemptNumber: number;
}

export interface AttemptBatchInput {
  merchantId: string;
  livemode: boolean;
  deliveries: DueAttempt[];
  schedule: number[];
  concurrency: number;
  /** The channel of the deliveries, and how many to claim per further batch; unset: this batch only. */
  channelId?: string;
  limit?: number;
}

export interface WebhookDeliveryBatchDeps {
  knex: Knex;
  log: Logger;
  /** The worker's Prometheus metrics; unset: nothing is counted (tests, benchmarks). */
  metrics?: WorkerMetrics | undefined;
  /** Opens the signing secrets stored sealed (decision 0112). */
  secrets: SecretBox;
  /** Wakes the workflow of each channel (signal-with-start). */
  wakeChannels: (channelIds: string[]) => Promise<void>;
  /** What the channel's workflow reads between batches; a stretch reads it too. */
  dueDeliveries: Pick<DueDeliveryService, 'find'>;
  /** Overridable for tests that need a shorter per-attempt limit; production is 30 s. */
  attemptTimeoutMs?: number | undefined;
  /** CIDR ranges the operator lets channels reach (WEBHOOK_ALLOW_PRIVATE_RANGES; decision 0111). */
  allowPrivateRanges?: readonly string[] | undefined;
  /** Whether test channels may reach loopback (WEBHOOK_ALLOW_LOOPBACK; decision 0225); unset: no. */
  allowLoopback?: boolean | undefined;
  /**
   * A channel is disabled when every delivery that ended in the last `windowHours` failed and at
   * least `afterFailures` did (decision 0112); `afterFailures` 0 never disables. Default 20 in 72 h.
   */
  autoDisable?: AutoDisableRule | undefined;
  /** The time attempts end at and the disabling rule reads; tests move it forward. Default: now. */
  clock?: (() => Date) | undefined;
}

/** How long one activity goes on attempting what falls due on its channel before it returns. */
const CONTINUE_MS = 10_000;

/** A batch heartbeats at most this often; the channel workflow's heartbeat timeout is a minute. */
const HEARTBEAT_EVERY_MS = 1_000;

/** Webhook delivery in batches (decision 0183), each attempt made exactly once: see `attemptBatch`. */
export function createWebhookDeliveryBatches(deps: WebhookDeliveryBatchDeps) {
  const channels = createChannelRepository(deps.knex, deps.secrets);
  const events = createEventRepository(deps.knex);
  const batches = createDeliveryBatchRepository();
  const outcomesOf = createWebhookOutcomes({
    ...deps,
    autoDisable: deps.autoDisable ?? DEFAULT_AUTO_DISABLE,
  });
  const timeoutMs = deps.attemptTimeoutMs ?? WEBHOOK_ATTEMPT_TIMEOUT_MS;
  const clock = deps.clock ?? (() => new Date());

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
    batch: DueAttempt[],
    heartbeat: (details: number) => void,
  ): Promise<Record<AttemptOutcome, number>> {
    const scope: Scope = { merchantId: input.merchantId, livemode: input.livemode };
    // Channels to wake once committed: those that hear of a channel the rule just disabled.
    const toWake: string[] = [];
    const { claimed, interrupted } = await deps.knex.transaction(async (trx) => {
      const found = await batches.claim(scope, batch, trx);
      if (found.interrupted.length > 0) {
        const at = clock();
        const outcomes = found.interrupted.map((d) => outcomeOf(d, INTERRUPTED, at, input.schedule));
        toWake.push(...(await outcomesOf.finish(trx, scope, outcomes)));
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
                allowLoopback: deps.allowLoopback ?? false,
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
    toWake.push(...(await outcomesOf.record(scope, outcomes)));
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

  return {
    /**
     * Attempts a batch of due deliveries (see attemptBatch). Given its channel, it then goes on with
     * the deliveries that fell due meanwhile, for up to CONTINUE_MS: a busy channel then costs one
     * activity per stretch rather than two Temporal round trips per batch, and a delivery committed
     * during a stretch waits for one batch, not for the workflow's next round (decision 0184).
     * `heartbeat` hears how many attempts of the current batch have ended.
     */
    async attempt(
      input: AttemptBatchInput,
      heartbeat: (details: number) => void = () => undefined,
    ): Promise<Record<AttemptOutcome, number>> {
      const counts = await attemptBatch(input, input.deliveries, heartbeat);
      if (input.channelId === undefined) return counts;
      const until = Date.now() + CONTINUE_MS;
      while (Date.now() < until) {
        // Reads the channel's state too: a channel disabled or deleted meanwhile stops the stretch.
        const found = await deps.dueDeliveries.find({
          merchantId: input.merchantId,
          livemode: input.livemode,
          channelId: input.channelId,
          limit: input.limit ?? input.deliveries.length,
        });
        if (found.channel !== 'active' || found.due.length === 0) break;
        const more = await attemptBatch(input, found.due, heartbeat);
        for (const key of Object.keys(counts) as AttemptOutcome[]) counts[key] += more[key];
      }
      return counts;
    },
  };
}

export type WebhookDeliveryBatches = ReturnType<typeof createWebhookDeliveryBatches>;
