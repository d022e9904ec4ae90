import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../api/app';
import { createMetrics } from '../../api/metrics';
import { createWebhookDispatcher } from '../../engine/webhook-dispatch';
import { createLogger } from '../../stack/logger';
import { freePort } from '../../stack/free-port';
import { newId, ID_PREFIX, randomBase62 } from '../../domain/ids';
import { periodAt } from '../../domain/billing-calendar';
import { sqlArgs } from '../../db/event-batch';
import type { Knex } from '../../db/knex';
import type { TestStack } from './stack';

/**
 * An API on the stack's database whose workflow starts go to the stack's own task queue (the
 * stack's built-in API starts nothing): `api` is replaced, the rest of the stack is kept.
 */
export async function withWorkflowApi(stack: TestStack): Promise<TestStack & { close(): Promise<void> }> {
  const { Connection } = await import('@temporalio/client');
  const connection = await Connection.connect({ address: process.env.SKIL_TEST_TEMPORAL_ADDRESS! });
  const dispatcher = createWebhookDispatcher({
    client: stack.client,
    knex: stack.knex,
    taskQueue: stack.taskQueue,
  });
  // A port chosen first, so the URLs the API hands out (portal links, the simulated acquirer) work.
  const port = await freePort();
  const app = createApp({
    knex: stack.knex,
    log: createLogger('test', 'silent'),
    metrics: createMetrics(stack.knex),
    temporal: connection,
    dispatcher,
    publicBaseUrl: `http://127.0.0.1:${port}`,
    bodyLimitBytes: 256 * 1024,
    taskQueue: stack.taskQueue,
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(port, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    ...stack,
    url,
    async api(key, path, init = {}) {
      const headers = new Headers(init.headers);
      if (key !== null) headers.set('authorization', `Bearer ${key}`);
      let body = init.body;
      if (init.json !== undefined) {
        headers.set('content-type', 'application/json');
        body = JSON.stringify(init.json);
      }
      const res = await fetch(url + path, { ...init, headers, ...(body !== undefined && { body }) });
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      return { status: res.status, body: parsed, headers: res.headers, text };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await connection.close();
    },
  };
}

/** A card token of the simulated acquirer: `success`, `generic_decline`, … (README, "Test cards"). */
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
