import type { Logger } from '../../stack/logger';
import type { Scope } from '../../domain/scope';
import type { WebhookDispatcher } from '../../engine/webhook-dispatch';
import type { ChannelRepository, ChannelRow } from '../../db/notification-channels';
import { NotFoundError } from '../../domain/errors';

/** Finds a channel in the caller's scope, or a 404 that says when it exists in the other mode. */
export function createChannelLookup(channels: ChannelRepository) {
  return async function findChannel(scope: Scope, id: string): Promise<ChannelRow> {
    const row = await channels.findById(scope, id);
    if (row) return row;
    if (await channels.existsInOtherMode(scope, id)) {
      const [used, other] = scope.livemode ? ['live', 'test'] : ['test', 'live'];
      throw new NotFoundError(
        `No such notification channel: '${id}'; a similar object exists in ${other} mode, but a ${used} mode key was used to make this request.`,
        'id',
      );
    }
    throw new NotFoundError(`No such notification channel: '${id}'`, 'id');
  };
}

/**
 * Wakes channel workflows after a commit. A failure is logged, not raised: the change is committed
 * and its deliveries are safe in Postgres, and the relay schedule wakes the channel within minutes.
 */
export function createChannelWaker(dispatcher: WebhookDispatcher, log: Logger) {
  return async function wake(channelIds: string[]): Promise<void> {
    try {
      await dispatcher.wake(channelIds);
    } catch (err) {
      log.warn({ err, channelIds }, 'could not signal channel workflows; the relay will retry');
    }
  };
}
