import type { Client } from '@temporalio/client';
import type { Knex } from '../../db/knex';
import { createWebhookDispatcher } from '../../engine/webhook-dispatch';

jest.mock('../../db/notification-channels', () => ({
  findChannelOwners: jest.fn((_db: unknown, ids: string[]) =>
    Promise.resolve(ids.map((id) => ({ id, merchant_id: 'mer_1', livemode: false }))),
  ),
}));

// Wake-ups of one channel coalesce while a signal to it is on its way (decision 0185): each caller
// still resolves only after a signal that started after its call.
test('wake-ups during a signal share one further signal, sent after it', async () => {
  const started: { channel: string; at: number; finish: () => void }[] = [];
  const client = {
    workflow: {
      signalWithStart: jest.fn(
        (_type: string, opts: { workflowId: string }) =>
          new Promise<void>((resolve) => {
            started.push({ channel: opts.workflowId, at: started.length, finish: resolve });
          }),
      ),
    },
  } as unknown as Client;
  const dispatcher = createWebhookDispatcher({ client, knex: {} as Knex, taskQueue: 'q', signalGapMs: 0 });
  const settle = () => new Promise((r) => setImmediate(r));

  const first = dispatcher.wake(['nc_a']);
  await settle();
  expect(started).toHaveLength(1);
  let laterDone = 0;
  const later = [1, 2, 3].map(() => dispatcher.wake(['nc_a']).then(() => (laterDone += 1)));
  const other = dispatcher.wake(['nc_b']);
  await settle();
  // Another channel is not held up; the same channel waits for the signal in flight.
  expect(started.map((s) => s.channel)).toEqual(['webhooks/nc_a', 'webhooks/nc_b']);
  started[1]!.finish();
  await other;

  started[0]!.finish();
  await first;
  await settle();
  expect(laterDone).toBe(0);
  // One more signal for the three wake-ups asked for while the first was on its way.
  expect(started.map((s) => s.channel)).toEqual(['webhooks/nc_a', 'webhooks/nc_b', 'webhooks/nc_a']);
  started[2]!.finish();
  await Promise.all(later);
  expect(laterDone).toBe(3);

  // With nothing in flight, a wake-up signals at once.
  const alone = dispatcher.wake(['nc_a']);
  await settle();
  expect(started).toHaveLength(4);
  started[3]!.finish();
  await alone;
});

test('a failed signal reaches the callers that shared it, and the next wake-up signals again', async () => {
  let calls = 0;
  const client = {
    workflow: {
      signalWithStart: jest.fn(() => {
        calls += 1;
        return calls === 1 ? Promise.reject(new Error('temporal unavailable')) : Promise.resolve();
      }),
    },
  } as unknown as Client;
  const dispatcher = createWebhookDispatcher({ client, knex: {} as Knex, taskQueue: 'q', signalGapMs: 0 });
  await expect(dispatcher.wake(['nc_a'])).rejects.toThrow('temporal unavailable');
  await dispatcher.wake(['nc_a']);
  expect(calls).toBe(2);
});

test('the next signal to a channel waits the gap after the one before', async () => {
  const at: number[] = [];
  const client = {
    workflow: {
      signalWithStart: jest.fn(() => {
        at.push(Date.now());
        return Promise.resolve();
      }),
    },
  } as unknown as Client;
  const dispatcher = createWebhookDispatcher({ client, knex: {} as Knex, taskQueue: 'q', signalGapMs: 40 });
  await dispatcher.wake(['nc_a']);
  // Resolved at once: the caller does not wait for the gap after its own signal.
  await Promise.all([dispatcher.wake(['nc_a']), dispatcher.wake(['nc_a'])]);
  expect(at).toHaveLength(2);
  expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(35);
});
