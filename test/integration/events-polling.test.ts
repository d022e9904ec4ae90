/**
 * Polling `GET /v1/events?after=` (decision 0106): a client that polls with the
 * last event's `created_at` sees every event exactly once and in order, even when a transaction
 * stamps its event and commits only later, after events stamped after it are already committed.
 * Writers are transactions held open after stamping their events, as a slow request or a long
 * billing page is; the poller is a client of the real API.
 */
import { sharedTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { createEventRepository } from '../../db/events';
import { createKnex, type Knex } from '../../db/knex';

let stack: TestStack;
// The writers' own pool, so that 40 open transactions do not starve the API the poller calls.
let writers: Knex;

beforeAll(async () => {
  stack = await sharedTestStack();
  writers = createKnex(stack.db.url, { poolMax: 50 });
});
afterAll(async () => {
  await writers?.destroy();
  await stack?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Seen {
  id: string;
  created_at: string;
}

/**
 * A client polling the ledger as the spec says: `after` = the last event's created_at, and
 * `starting_after` to finish a page that has more. Runs until `stop()` says so, then polls once more
 * after everything has committed.
 */
function startPoller(m: TestMerchant) {
  const seen: Seen[] = [];
  let running = true;
  let after: string | null = null;
  const pollOnce = async () => {
    let startingAfter: string | null = null;
    for (;;) {
      const q = new URLSearchParams({ limit: '100' });
      if (after !== null) q.set('after', after);
      if (startingAfter !== null) q.set('starting_after', startingAfter);
      const res = await stack.api(m.testKey, `/v1/events?${q.toString()}`);
      expect(res.status).toBe(200);
      const page = res.body.data as Seen[];
      seen.push(...page.map((e) => ({ id: e.id, created_at: e.created_at })));
      if (page.length > 0) after = page[page.length - 1]!.created_at;
      if (!res.body.has_more) return;
      startingAfter = page[page.length - 1]!.id;
    }
  };
  const loop = (async () => {
    while (running) {
      await pollOnce();
      await sleep(5);
    }
  })();
  return {
    seen,
    async stop() {
      running = false;
      await loop;
      // Everything has committed: a last poll (after the hold-back has passed) sees the rest.
      await sleep(20);
      await pollOnce();
      return seen;
    },
  };
}

/** One writer: a transaction that records events, then stays open `holdMs` before committing. */
async function writer(
  m: TestMerchant,
  opts: { before?: number; events: number; holdMs: number; firstWriteEarly?: boolean; rollback?: boolean },
): Promise<string[]> {
  const events = createEventRepository(writers);
  const ids: string[] = [];
  const work = writers.transaction(async (trx: Knex.Transaction) => {
    // A transaction that wrote something else first has its transaction id long before its event
    // is stamped (an API change, a billing page): ordering by transaction id is not ordering by time.
    if (opts.firstWriteEarly) await trx.raw('select pg_current_xact_id()');
    if (opts.before) await sleep(opts.before);
    for (let i = 0; i < opts.events; i++) {
      const { event } = await events.record(
        { merchantId: m.id, livemode: false },
        { type: 'claim.paid', data: { id: `clm_${Math.random().toString(36).slice(2)}` } },
        trx,
      );
      ids.push(event.id);
    }
    await sleep(opts.holdMs);
    if (opts.rollback) throw new Error('rolled back on purpose');
  });
  await work.catch((err: unknown) => {
    if (!(err instanceof Error) || err.message !== 'rolled back on purpose') throw err;
  });
  return opts.rollback ? [] : ids;
}

/** The merchant's committed events in the ledger's order. */
async function ledgerOrder(m: TestMerchant): Promise<string[]> {
  return stack
    .knex('events')
    .where({ merchant_id: m.id, livemode: false })
    .orderBy([{ column: 'created_at' }, { column: 'seq' }])
    .pluck('id');
}

function expectExactlyOnceInOrder(seen: Seen[], committed: string[], order: string[]) {
  const ids = seen.map((s) => s.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect([...ids].sort()).toEqual([...committed].sort());
  expect(ids).toEqual(order);
  for (let i = 1; i < seen.length; i++) expect(seen[i]!.created_at >= seen[i - 1]!.created_at).toBe(true);
}

test('an event stamped first but committed last is not skipped by a client polling with after', async () => {
  const m = await stack.merchant('Hæg færsla ehf.');
  const poller = startPoller(m);
  // The slow writer stamps its event first and holds its transaction open; a quick one stamps
  // later and commits at once, and the poller sees it while the slow one is still open.
  const slow = writer(m, { events: 1, holdMs: 400 });
  await sleep(50);
  const quick = await writer(m, { events: 1, holdMs: 0 });
  const committed = [...(await slow), ...quick];
  const seen = await poller.stop();
  expectExactlyOnceInOrder(seen, committed, await ledgerOrder(m));
});

test('a transaction that took its id early and stamps late does not hide one that stamped before it', async () => {
  const m = await stack.merchant('Snemma auðkenni ehf.');
  const poller = startPoller(m);
  // A has the older transaction id but stamps at 60 ms and commits at once; B has a newer id,
  // stamps at 20 ms and commits at 400 ms. A listing of "transactions older than the oldest one
  // still running" would show A's event while B's earlier one is still to come.
  const a = writer(m, { firstWriteEarly: true, before: 60, events: 1, holdMs: 0 });
  await sleep(20);
  const b = writer(m, { events: 1, holdMs: 400 });
  const committed = [...(await a), ...(await b)];
  const seen = await poller.stop();
  expectExactlyOnceInOrder(seen, committed, await ledgerOrder(m));
});

test('40 concurrent writers holding their transactions open: the poller sees every event once, in order', async () => {
  const m = await stack.merchant('Margir ritarar ehf.');
  const poller = startPoller(m);
  const rand = (n: number) => Math.floor(Math.random() * n);
  const writers = Array.from({ length: 40 }, (_, i) =>
    (async () => {
      await sleep(rand(300));
      return writer(m, {
        firstWriteEarly: i % 3 === 0,
        before: rand(40),
        events: 1 + rand(3),
        holdMs: rand(250),
        rollback: i % 10 === 9,
      });
    })(),
  );
  const committed = (await Promise.all(writers)).flat();
  const seen = await poller.stop();
  expect(committed.length).toBeGreaterThan(40);
  expectExactlyOnceInOrder(seen, committed, await ledgerOrder(m));
});
