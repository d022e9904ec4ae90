import type { Client } from '@temporalio/client';
import type { Counter } from 'prom-client';
import { WEBHOOK_RETRY_DELAYS_MS } from '../domain/webhook-schedule';
import type { Knex } from '../db/knex';
import { findChannelOwners } from '../db/notification-channels';
import { splitWakes, startInvoiceDeliveries } from './invoice-delivery-starter';
import { WorkflowType, deliveriesDueSignal, webhookWorkflowId, type Workflows } from '../workflows/contract';

export interface WebhookDispatcherDeps {
  client: Client;
  knex: Knex;
  taskQueue: string;
  /** Attempt delays; production uses the spec's schedule, tests a scaled copy. */
  schedule?: readonly number[];
  workflowStarts?: Counter<'workflow'>;
  /** Least time between the end of one signal to a channel and the next; default SIGNAL_GAP_MS. */
  signalGapMs?: number;
}

/**
 * Wakes channel workflows after their deliveries were committed. Signal-with-start both starts a
 * channel's loop the first time and wakes a sleeping one, under the channel's fixed workflow id.
 *
 * Wake-ups of one channel are coalesced: while a signal to it is on its way, every further wake-up
 * waits for one more signal, sent when that one is done. That signal still goes out after each
 * waiting caller's commit, which is all a wake-up promises, so a burst of commits (hundreds a
 * second) costs the Temporal server a few signals instead of one each.
 */
export function createWebhookDispatcher(deps: WebhookDispatcherDeps) {
  const schedule = [...(deps.schedule ?? WEBHOOK_RETRY_DELAYS_MS)];
  // A channel's merchant and environment never change: each is read once per process.
  const owners = new Map<string, ChannelOwner>();
  const running = new Map<string, Promise<void>>();
  const queued = new Map<string, Promise<void>>();

  const signal = async (owner: ChannelOwner): Promise<void> => {
    await deps.client.workflow.signalWithStart<Workflows['webhookChannel'], []>(WorkflowType.webhookChannel, {
      workflowId: webhookWorkflowId(owner.id),
      taskQueue: deps.taskQueue,
      args: [{ merchantId: owner.merchant_id, livemode: owner.livemode, channelId: owner.id, schedule }],
      signal: deliveriesDueSignal,
      signalArgs: [],
    });
    deps.workflowStarts?.inc({ workflow: WorkflowType.webhookChannel });
  };

  // The channel's slot is held `gap` ms past each signal: at high commit rates that bounds the
  // signals per channel, which cost the server a workflow task each while the channel's activity is
  // busy anyway; a wake-up waits at most that long for its signal.
  const gap = deps.signalGapMs ?? SIGNAL_GAP_MS;
  const start = (owner: ChannelOwner): Promise<void> => {
    const sent = signal(owner);
    const slot: Promise<void> = sent
      .catch(() => undefined)
      .then(() => (gap > 0 ? new Promise<void>((r) => setTimeout(r, gap).unref()) : undefined))
      .finally(() => {
        if (running.get(owner.id) === slot) running.delete(owner.id);
      });
    running.set(owner.id, slot);
    return sent;
  };

  /** A signal to `owner` sent after this call: a new one, or the one already waiting its turn. */
  const wakeOne = (owner: ChannelOwner): Promise<void> => {
    const waiting = queued.get(owner.id);
    if (waiting) return waiting;
    const current = running.get(owner.id);
    if (!current) return start(owner);
    const next = current
      .catch(() => undefined)
      .then(() => {
        queued.delete(owner.id);
        return start(owner);
      });
    queued.set(owner.id, next);
    return next;
  };

  return {
    /**
     * Wakes the channels, and starts the invoice deliveries the list carries (decision 0217), after
     * the caller's commit.
     */
    async wake(wakeIds: readonly string[]): Promise<void> {
      const { channels: channelIds, deliveries } = splitWakes(wakeIds);
      if (deliveries.length > 0) await startInvoiceDeliveries(deps.client, deps.taskQueue, deliveries);
      const unique = [...new Set(channelIds)];
      if (unique.length === 0) return;
      const unknown = unique.filter((id) => !owners.has(id));
      if (unknown.length > 0) {
        if (owners.size > MAX_OWNERS) owners.clear();
        for (const row of await findChannelOwners(deps.knex, unknown)) owners.set(row.id, row);
      }
      const known = unique.map((id) => owners.get(id)).filter((o): o is ChannelOwner => o !== undefined);
      await Promise.all(known.map(wakeOne));
    },
  };
}

type ChannelOwner = { id: string; merchant_id: string; livemode: boolean };

/** Least time between signals to one channel (decision 0185). */
const SIGNAL_GAP_MS = 25;

/** Channels whose owners are remembered before the memory is cleared and read again. */
const MAX_OWNERS = 10_000;

export type WebhookDispatcher = ReturnType<typeof createWebhookDispatcher>;
