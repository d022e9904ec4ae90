import { newId, ID_PREFIX, randomBase62 } from '../../domain/ids';
import { periodAt } from '../../domain/billing-calendar';
import { sqlArgs } from '../../db/event-batch';
import type { Knex } from '../../db/knex';

/** A card token of the simulated acquirer: `success`, `generic_decline`, … (docs/guides/testing.md, "Test cards"). */
export const simulatedToken = (behaviour: string) => `tok_${behaviour}_${randomBase62(20)}`;

/**
 * `n` active monthly subscriptions written set-based (product, price, customers, cards,
 * subscriptions), their first period paid and due to renew at `anchor` + 1 month.
 */
export async function seedSubscriptions(
  knex: Knex,
  opts: { merchantId: string; n: number; anchor: Date; testClockId?: string | null; unitAmount?: number },
): Promise<{ priceId: string }> {
  const productId = newId(ID_PREFIX.product);
  const priceId = newId(ID_PREFIX.price);
  const base = { merchant_id: opts.merchantId, livemode: false };
  await knex('products').insert({ id: productId, ...base, name: 'Áskrift', vat_rate: 24 });
  await knex('prices').insert({
    id: priceId,
    ...base,
    product_id: productId,
    unit_amount: opts.unitAmount ?? 2990,
    type: 'recurring',
    recurring_interval: 'month',
    recurring_interval_count: 1,
  });
  const period = periodAt(opts.anchor, { interval: 'month', intervalCount: 1 }, 0);
  const batch = 5000;
  for (let offset = 0; offset < opts.n; offset += batch) {
    const size = Math.min(batch, opts.n - offset);
    const cus = Array.from({ length: size }, () => newId(ID_PREFIX.customer));
    const pms = Array.from({ length: size }, () => newId(ID_PREFIX.paymentMethod));
    const subs = Array.from({ length: size }, () => newId(ID_PREFIX.subscription));
    const tokens = Array.from({ length: size }, () => simulatedToken('success'));
    await knex.raw(
      `with c as (
         insert into customers (id, merchant_id, livemode, test_clock_id, metadata)
         select id, ?, false, ?, '{}' from unnest(?::text[]) as t(id) returning id
       ) select count(*) from c`,
      sqlArgs(opts.merchantId, opts.testClockId ?? null, cus),
    );
    await knex.raw(
      `insert into payment_methods (id, merchant_id, livemode, customer_id, acquirer_token, card_brand, card_last4,
         card_exp_month, card_exp_year)
       select t.pm, ?, false, t.cus, t.tok, 'visa', '4242', 12, 2040
         from unnest(?::text[], ?::text[], ?::text[]) as t(pm, cus, tok)`,
      sqlArgs(opts.merchantId, pms, cus, tokens),
    );
    await knex.raw(
      `insert into subscriptions (id, merchant_id, livemode, customer_id, price_id, status, payment_method_id,
         test_clock_id, billing_cycle_anchor, current_period_index, current_period_start, current_period_end)
       select t.sub, ?, false, t.cus, ?, 'active', t.pm, ?, ?, 0, ?, ?
         from unnest(?::text[], ?::text[], ?::text[]) as t(sub, cus, pm)`,
      sqlArgs(
        opts.merchantId,
        priceId,
        opts.testClockId ?? null,
        opts.anchor,
        period.start,
        period.end,
        subs,
        cus,
        pms,
      ),
    );
  }
  return { priceId };
}
