import os from 'node:os';
import { withStack } from './harness';
import { seedSubscriptions } from '../test/helpers/subscriptions';
import type { Knex } from '../db/knex';

/**
 * A year of monthly renewals on a test clock: N subscriptions (default 1,000) anchored on Jan 31,
 * the clock advanced a year through the API; timed from the advance request to the clock's `ready`
 * (the subscriptions' creation is not timed). Exactly once: 12 paid renewals, 12 succeeded payment
 * intents and 12 `subscription.renewed` events per subscription, else the run fails.
 * Run: npx tsx bench/test-clock-year.ts [n=1000] [rounds=3]
 */
const T0 = Date.UTC(2027, 0, 31, 12, 0, 0);
const YEAR_MS = 365 * 86_400_000;

async function counts(knex: Knex, merchantId: string) {
  const { rows } = await knex.raw<{ rows: Record<string, string>[] }>(
    `select (select count(*) from renewals where merchant_id = :m and status = 'paid') as renewals,
            (select count(*) from renewals where merchant_id = :m) as all_renewals,
            (select count(distinct (subscription_id, period_index)) from renewals where merchant_id = :m) as periods,
            (select count(*) from payment_intents where merchant_id = :m and status = 'succeeded') as intents,
            (select count(*) from events where merchant_id = :m and type = 'subscription.renewed') as renewed`,
    { m: merchantId },
  );
  return Object.fromEntries(Object.entries(rows[0]!).map(([k, v]) => [k, Number(v)]));
}

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 1000);
  const rounds = Number(process.argv[3] ?? 3);
  await withStack({}, async (stack) => {
    for (let round = 1; round <= rounds; round++) {
      const m = await stack.merchant();
      const clock = await stack.api(m.testKey, '/v1/test_helpers/test_clocks', {
        method: 'POST',
        json: { frozen_time: T0 / 1000, name: 'year' },
      });
      await seedSubscriptions(stack.knex, {
        merchantId: m.id,
        n,
        anchor: new Date(T0),
        testClockId: clock.body.id,
      });
      const loadBefore = os.loadavg()[0]!;
      const start = performance.now();
      const adv = await stack.api(m.testKey, `/v1/test_helpers/test_clocks/${clock.body.id}/advance`, {
        method: 'POST',
        json: { frozen_time: (T0 + YEAR_MS) / 1000 },
      });
      if (adv.status !== 200) throw new Error(adv.text);
      for (;;) {
        const c = await stack.api(m.testKey, `/v1/test_helpers/test_clocks/${clock.body.id}`);
        if (c.body.status === 'ready') break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const seconds = (performance.now() - start) / 1000;
      const got = await counts(stack.knex, m.id);
      // Periods 1..12 of a Jan 31 anchor begin inside the year (the 12th at its last instant).
      const want = {
        renewals: 12 * n,
        all_renewals: 12 * n,
        periods: 12 * n,
        intents: 12 * n,
        renewed: 12 * n,
      };
      const wrong = Object.entries(want).filter(([k, v]) => got[k] !== v);
      console.log(
        JSON.stringify({
          bench: 'test-clock-year',
          round,
          subscriptions: n,
          renewals: got.renewals,
          seconds: Number(seconds.toFixed(1)),
          exactly_once: wrong.length === 0 ? 'ok' : wrong.map(([k, v]) => `${k}: ${got[k]}, want ${v}`),
          load_before: Number(loadBefore.toFixed(1)),
          date: new Date().toISOString(),
        }),
      );
      if (wrong.length > 0) process.exitCode = 1;
    }
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
