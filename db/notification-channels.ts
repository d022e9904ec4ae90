import type { Db } from './knex';
import type { Scope } from '../domain/scope';
import { newId, ID_PREFIX, randomBase62 } from '../domain/ids';
import { pageByCreated } from './pagination';
import { SEALED_AT, type SecretBox } from '../domain/secret-box';

export type ChannelType = 'webhook' | 'chat';
export type ChannelStatus = 'enabled' | 'disabled';
/** Who disabled a channel: the service, after its deliveries kept failing, or its merchant. */
export type DisabledReason = 'failing_deliveries' | 'requested';

export interface ChannelRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  type: ChannelType;
  url: string;
  secret: string;
  /** The secret before the last rotation, while it still signs (decision 0112); null otherwise. */
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  event_subscriptions: string[];
  status: ChannelStatus;
  disabled_reason: DisabledReason | null;
  disabled_at: Date | null;
  /** Failures before this (the last re-enabling) do not count towards disabling (decision 0112). */
  failures_counted_since: Date | null;
  description: string | null;
  metadata: Record<string, string>;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

/** A signing secret, `whsec_` + 32 base62 characters. Each channel, and so each mode, has its own. */
export function generateSigningSecret(): string {
  return `whsec_${randomBase62(32)}`;
}

export interface ChannelInput {
  type: ChannelType;
  url: string;
  eventSubscriptions: string[];
  description?: string | null;
  metadata?: Record<string, string>;
}

export interface ChannelPatch {
  url?: string;
  eventSubscriptions?: string[];
  status?: ChannelStatus;
  description?: string | null;
  metadata?: Record<string, string>;
}

/**
 * Channels. Signing secrets are stored sealed with `secrets` (decision 0112) and come out of every
 * method in the clear, ready to sign with.
 */
export function createChannelRepository(db: Db, secrets: SecretBox) {
  const scoped = (scope: Scope, trx: Db) =>
    trx<ChannelRow>('notification_channels')
      .where({ merchant_id: scope.merchantId, livemode: scope.livemode })
      .whereNull('deleted_at');
  const opened = (row: ChannelRow): ChannelRow => ({
    ...row,
    secret: secrets.open(row.secret, SEALED_AT.channelSecret(row.id)),
    previous_secret:
      row.previous_secret === null
        ? null
        : secrets.open(row.previous_secret, SEALED_AT.channelPreviousSecret(row.id)),
  });
  const openedOrNone = (row: ChannelRow | undefined) => row && opened(row);

  return {
    async create(scope: Scope, input: ChannelInput, trx: Db = db): Promise<ChannelRow> {
      const id = newId(ID_PREFIX.notificationChannel);
      const [row] = await trx<ChannelRow>('notification_channels')
        .insert({
          id,
          merchant_id: scope.merchantId,
          livemode: scope.livemode,
          type: input.type,
          url: input.url,
          secret: secrets.seal(generateSigningSecret(), SEALED_AT.channelSecret(id)),
          event_subscriptions: input.eventSubscriptions,
          status: 'enabled',
          description: input.description ?? null,
          metadata: input.metadata ?? {},
        })
        .returning('*');
      return opened(row!);
    },

    async findById(scope: Scope, id: string, trx: Db = db): Promise<ChannelRow | undefined> {
      return openedOrNone(await scoped(scope, trx).where({ id }).first());
    },

    /** Whether the id names a channel of this merchant in the other mode (for a helpful 404). */
    async existsInOtherMode(scope: Scope, id: string, trx: Db = db): Promise<boolean> {
      const row: unknown = await trx('notification_channels')
        .where({ id, merchant_id: scope.merchantId, livemode: !scope.livemode })
        .whereNull('deleted_at')
        .first('id');
      return row !== undefined;
    },

    async list(
      scope: Scope,
      opts: { limit: number; startingAfter?: string; endingBefore?: string },
      trx: Db = db,
    ): Promise<{ data: ChannelRow[]; hasMore: boolean }> {
      const page = await pageByCreated<ChannelRow>(scoped(scope, trx), 'notification_channels', scope, opts);
      return { ...page, data: page.data.map(opened) };
    },

    async update(
      scope: Scope,
      id: string,
      patch: ChannelPatch,
      trx: Db = db,
    ): Promise<ChannelRow | undefined> {
      const [row] = await scoped(scope, trx)
        .where({ id })
        .update({
          ...(patch.url !== undefined && { url: patch.url }),
          ...(patch.eventSubscriptions !== undefined && { event_subscriptions: patch.eventSubscriptions }),
          // Disabling by request keeps an earlier reason; enabling clears it and starts the count of
          // failures afresh, so the failures that disabled a channel do not disable it again.
          ...(patch.status === 'disabled' && {
            status: 'disabled',
            disabled_reason: trx.raw(
              `case when status = 'disabled' then disabled_reason else 'requested' end`,
            ),
            disabled_at: trx.raw(`case when status = 'disabled' then disabled_at else now() end`),
          }),
          ...(patch.status === 'enabled' && {
            status: 'enabled',
            disabled_reason: null,
            disabled_at: null,
            failures_counted_since: trx.raw(
              `case when status = 'enabled' then failures_counted_since else now() end`,
            ),
          }),
          ...(patch.description !== undefined && { description: patch.description }),
          ...(patch.metadata !== undefined && { metadata: patch.metadata }),
          updated_at: trx.fn.now(),
        })
        .returning('*');
      return openedOrNone(row);
    },

    /**
     * A new signing secret. With `overlapSeconds` > 0 the current one becomes the previous secret
     * until then (replacing any earlier previous one); with 0 it is dropped at once.
     */
    async rotateSecret(
      scope: Scope,
      id: string,
      overlapSeconds: number,
      trx: Db,
    ): Promise<ChannelRow | undefined> {
      const current = await scoped(scope, trx).where({ id }).forUpdate().first();
      if (!current) return undefined;
      const secret = secrets.open(current.secret, SEALED_AT.channelSecret(id));
      const [row] = await scoped(scope, trx)
        .where({ id })
        .update({
          secret: secrets.seal(generateSigningSecret(), SEALED_AT.channelSecret(id)),
          previous_secret:
            overlapSeconds > 0 ? secrets.seal(secret, SEALED_AT.channelPreviousSecret(id)) : null,
          previous_secret_expires_at:
            overlapSeconds > 0 ? trx.raw(`now() + (? * interval '1 second')`, [overlapSeconds]) : null,
          updated_at: trx.fn.now(),
        })
        .returning('*');
      return openedOrNone(row);
    },

    /**
     * Disables the channel when every delivery that ended within `windowMs` before `now` (and since
     * it was last re-enabled) failed, and at least `minFailures` did (decision 0112). One statement,
     * so concurrent attempts disable a channel once; returns it only when this call disabled it.
     */
    async disableIfFailing(
      scope: Scope,
      id: string,
      rule: { now: Date; windowMs: number; minFailures: number },
      trx: Db,
    ): Promise<ChannelRow | undefined> {
      const since = new Date(rule.now.getTime() - rule.windowMs);
      const [row] = await scoped(scope, trx)
        .where({ id, status: 'enabled' })
        .whereNotExists(
          trx('webhook_deliveries as d')
            .whereRaw('d.channel_id = notification_channels.id')
            .where('d.status', 'succeeded')
            .whereRaw(
              `d.last_attempt_at > greatest(?::timestamptz, notification_channels.failures_counted_since)`,
              [since],
            ),
        )
        .whereRaw(
          `(select count(*) from (select 1 from webhook_deliveries d
              where d.channel_id = notification_channels.id and d.status = 'failed'
                and d.last_attempt_at > greatest(?::timestamptz, notification_channels.failures_counted_since)
              limit ?) f) >= ?`,
          [since, rule.minFailures, rule.minFailures],
        )
        .update({
          status: 'disabled',
          disabled_reason: 'failing_deliveries',
          disabled_at: rule.now,
          updated_at: trx.fn.now(),
        })
        .returning('*');
      return openedOrNone(row);
    },

    /** Soft delete: past deliveries keep their channel; pending ones are given up. */
    async delete(scope: Scope, id: string, trx: Db = db): Promise<ChannelRow | undefined> {
      const [row] = await scoped(scope, trx)
        .where({ id })
        .update({ deleted_at: trx.fn.now() })
        .returning('*');
      if (row) {
        await trx('webhook_deliveries')
          .where({ channel_id: id, status: 'pending' })
          .update({ status: 'failed', next_attempt_at: null, updated_at: trx.fn.now() });
      }
      return openedOrNone(row);
    },
  };
}

export type ChannelRepository = ReturnType<typeof createChannelRepository>;

/** Each existing channel of `ids` with its merchant and environment: whose delivery loop to wake. */
export async function findChannelOwners(
  db: Db,
  ids: readonly string[],
): Promise<{ id: string; merchant_id: string; livemode: boolean }[]> {
  return db('notification_channels')
    .whereIn('id', ids)
    .select<{ id: string; merchant_id: string; livemode: boolean }[]>('id', 'merchant_id', 'livemode');
}
