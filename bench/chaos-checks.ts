import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Knex } from '../db/knex';
import { AcquirerStore } from '../simulators/acquirer/store';
import { checkLedger } from '../test/helpers/ledger-invariant';

/** One check of the chaos run: what was expected, what was found. */
export type Check = { name: string; ok: boolean; expected: unknown; found: unknown };

const check = (name: string, expected: unknown, found: unknown): Check => ({
  name,
  ok: JSON.stringify(expected) === JSON.stringify(found),
  expected,
  found,
});

async function one<T>(knex: Knex, sql: string, args: unknown[]): Promise<T> {
  return (await knex.raw<{ rows: T[] }>(sql, args as never)).rows[0]!;
}

/**
 * What the books say after the run, read from Skil's tables: renewals of the period, payments of the subscriptions,
 * events and their deliveries, the settlement run, and the ledger invariant (test/helpers/ledger-invariant.ts).
 */
export async function checkBooks(
  knex: Knex,
  opts: { merchantId: string; n: number; unitAmount: number; runId: string | null },
): Promise<{ checks: Check[]; authorizations: string[] }> {
  const { merchantId: m, n, unitAmount } = opts;
  const renewals = await one<{ rows: string; subs: string; paid: string }>(
    knex,
    `select count(*) as rows, count(distinct subscription_id) as subs,
            count(*) filter (where status = 'paid') as paid
       from renewals where merchant_id = ? and livemode = false and period_index = 1`,
    [m],
  );
  const intents = await one<{ rows: string; subs: string; captured: string }>(
    knex,
    `select count(*) as rows, count(distinct subscription_id) as subs, coalesce(sum(amount_captured), 0) as captured
       from payment_intents where merchant_id = ? and livemode = false and status = 'succeeded'`,
    [m],
  );
  const events = await one<{ n: string }>(
    knex,
    `select count(*) as n from events where merchant_id = ? and livemode = false
        and type in ('subscription.renewed', 'payment_intent.captured')`,
    [m],
  );
  const deliveries = await one<{ rows: string; events: string; succeeded: string }>(
    knex,
    `select count(*) as rows, count(distinct event_id) as events,
            count(*) filter (where status = 'succeeded') as succeeded
       from webhook_deliveries where merchant_id = ? and livemode = false`,
    [m],
  );
  const run =
    opts.runId === null
      ? null
      : await one<{ status: string; lines: string; gross: string }>(
          knex,
          `select r.status, (select count(*) from settlement_lines l where l.settlement_run_id = r.id and l.kind = 'payment') as lines,
                  r.gross
             from settlement_runs r where r.id = ?`,
          [opts.runId],
        );
  const ledger = await checkLedger(knex);
  const authorizations = (
    await knex.raw<{ rows: { a: string }[] }>(
      `select acquirer_authorization as a from payment_intents
        where merchant_id = ? and livemode = false and status = 'succeeded'`,
      [m],
    )
  ).rows.map((r) => r.a);
  const checks = [
    check(
      'renewals of the period',
      { rows: n, subscriptions: n, paid: n },
      {
        rows: Number(renewals.rows),
        subscriptions: Number(renewals.subs),
        paid: Number(renewals.paid),
      },
    ),
    check(
      'succeeded payment intents',
      { rows: n, subscriptions: n, captured: n * unitAmount },
      {
        rows: Number(intents.rows),
        subscriptions: Number(intents.subs),
        captured: Number(intents.captured),
      },
    ),
    check('subscribed events (renewed + captured)', 2 * n, Number(events.n)),
    check(
      'deliveries: one per subscribed event, every one succeeded',
      {
        rows: 2 * n,
        events: 2 * n,
        succeeded: 2 * n,
      },
      {
        rows: Number(deliveries.rows),
        events: Number(deliveries.events),
        succeeded: Number(deliveries.succeeded),
      },
    ),
    check(
      'settlement run: a line per payment, gross of them all',
      { lines: n, gross: n * unitAmount },
      run === null ? null : { lines: Number(run.lines), gross: Number(run.gross) },
    ),
    check('ledger invariant violations', [], ledger.violations),
  ];
  return { checks, authorizations };
}

/** The Temporal server's history shards, from its own `shards` table (one row per shard it has owned). */
export async function checkShards(temporalDb: Knex, expected: number): Promise<Check> {
  const row = await one<{ n: string }>(temporalDb, 'select count(*) as n from shards', []);
  return check('temporal history shards', expected, Number(row.n));
}

/**
 * The acquirer's side, from its own journal (simulators/acquirer/store.ts), after it stopped: every capture it
 * made is one succeeded payment intent of ours and the reverse, so no payment was lost or taken twice.
 */
export async function checkAcquirer(
  acquirerDir: string,
  ours: string[],
  opts: { n: number; unitAmount: number },
): Promise<Check[]> {
  // Opening the store compacts its journal into the state file, which is then read as the acquirer wrote it.
  await (await AcquirerStore.open(acquirerDir)).close();
  const state = JSON.parse(await readFile(path.join(acquirerDir, 'acquirer-state.json'), 'utf8')) as {
    authorizations: { id: string; amount_captured: number }[];
  };
  const captured = state.authorizations.filter((a) => a.amount_captured > 0);
  const theirs = new Set(captured.map((a) => a.id));
  const mine = new Set(ours);
  return [
    check(
      'acquirer captures',
      { count: opts.n, amount: opts.n * opts.unitAmount },
      {
        count: captured.length,
        amount: captured.reduce((s, a) => s + a.amount_captured, 0),
      },
    ),
    check(
      'captures without a payment intent, payment intents without a capture',
      { orphanCaptures: 0, uncaptured: 0 },
      {
        orphanCaptures: [...theirs].filter((id) => !mine.has(id)).length,
        uncaptured: [...mine].filter((id) => !theirs.has(id)).length,
      },
    ),
  ];
}
