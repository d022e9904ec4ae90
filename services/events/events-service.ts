import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import { createEventRepository } from '../../db/events';
import { NotFoundError } from '../../domain/errors';
import { findReference } from '../lookup';
import { presentEvent, type EventObject } from './event-object';

/** The event ledger (spec §4.4), oldest first. */
export function createEventService(knex: Knex) {
  const events = createEventRepository(knex);
  return {
    /**
     * `after` keeps events created after a time; `startingAfter` continues after an event id;
     * `objectId` keeps the events about one object (and its refunds).
     */
    async list(
      scope: Scope,
      opts: { limit: number; after?: Date; startingAfter?: string; type?: string; objectId?: string },
    ) {
      const cursor = opts.startingAfter;
      if (cursor !== undefined)
        await findReference('event', cursor, 'starting_after', () => events.findById(scope, cursor));
      const page = await events.list(scope, opts);
      return { data: page.data.map(presentEvent), hasMore: page.hasMore };
    },

    async retrieve(scope: Scope, id: string): Promise<EventObject> {
      const event = await events.findById(scope, id);
      if (!event) throw new NotFoundError(`No such event: '${id}'`, 'id');
      return presentEvent(event);
    },
  };
}

export type EventService = ReturnType<typeof createEventService>;
