import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { SecretBox } from '../../domain/secret-box';
import { createChannelRepository } from '../../db/notification-channels';
import { createDeliveryRepository } from '../../db/webhook-deliveries';

/** A notification channel as its workflow names it. */
export interface ScopedChannel {
  merchantId: string;
  livemode: boolean;
  channelId: string;
}

export type ChannelState = 'active' | 'disabled' | 'deleted';

export interface DueDeliveries {
  channel: ChannelState;
  due: { id: string; attemptNumber: number }[];
  /** When the next delivery is due (epoch ms); null: none is waiting. */
  nextDueAt: number | null;
}

/** What a channel's workflow asks before it attempts anything: what is due, and whether to go on. */
export function createDueDeliveries(deps: {
  knex: Knex;
  /** Opens the signing secrets stored sealed (decision 0112). */
  secrets: SecretBox;
  /** Wakes the workflow of each channel (signal-with-start). */
  wakeChannels: (channelIds: string[]) => Promise<void>;
}) {
  const channels = createChannelRepository(deps.knex, deps.secrets);
  const deliveries = createDeliveryRepository(deps.knex);

  return {
    /** The channel's state, the deliveries due now (at most `limit`), and when the next one is due. */
    async find(input: ScopedChannel & { limit: number }): Promise<DueDeliveries> {
      const scope: Scope = { merchantId: input.merchantId, livemode: input.livemode };
      const channel = await channels.findById(scope, input.channelId);
      if (!channel) return { channel: 'deleted', due: [], nextDueAt: null };
      if (channel.status !== 'enabled') return { channel: 'disabled', due: [], nextDueAt: null };
      const { due, nextDueAt } = await deliveries.findDue(scope, input.channelId, input.limit);
      return { channel: 'active', due, nextDueAt: nextDueAt?.getTime() ?? null };
    },

    /** Signals the workflow of every channel holding overdue deliveries (lost wake-ups); how many. */
    async wakeOverdue(input: { graceMs: number; limit: number }): Promise<number> {
      const ids = await deliveries.channelsWithOverdueDeliveries(input.graceMs, input.limit);
      if (ids.length > 0) await deps.wakeChannels(ids);
      return ids.length;
    },
  };
}

export type DueDeliveryService = ReturnType<typeof createDueDeliveries>;
