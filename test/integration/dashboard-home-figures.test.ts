/**
 * The home page's figures for each period (decision 0230) equal a computation made here, apart
 * from the service: the merchant's rows read one by one and counted in JavaScript. The data is
 * made through the API: card payments, a refund, a dispute, customers, subscriptions weekly,
 * monthly and yearly (one on a test clock started weeks ago and cancelled since), a krafa; and
 * another merchant's payment, which no figure may count.
 */
import Decimal from 'decimal.js';
import { startTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { WebClient, createMerchantUser } from '../helpers/accounts';
import { until } from '../helpers/until';
import { PERIODS, periodRanges, type Period } from '../../domain/dashboard-periods';

let stack: TestStack;
let m: TestMerchant;
let web: WebClient;

const card = { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' };
const DAY = 86_400_000;
const unixOf = (ms: number) => Math.floor(ms / 1000);
const dayAhead = (n: number) => new Date(Date.now() + n * DAY).toISOString().slice(0, 10);

beforeAll(async () => {
  // A real base URL: the API tokenizes the test card at its simulated acquirer over HTTP.
  stack = await startTestStack({ realBaseUrl: true });
  m = await stack.merchant('Tölur ehf.');
  const other = await stack.merchant('Annar ehf.');
  const api = (path: string, json?: unknown, method = 'POST') =>
    stack.api(m.testKey, path, json === undefined ? {} : { method, json });
  const ok = async (p: Promise<{ status: number; body: any }>) => {
    const r = await p;
    if (r.status !== 200) throw new Error(`${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };

  await ok(api('/v1/merchant', { kennitala: '4709063520', bank_account: '0101-26-123456' }, 'PATCH'));
  const product = await ok(api('/v1/products', { name: 'Áskrift', vat_rate: 24 }));
  const price = (unit_amount: number, interval: string, interval_count = 1) =>
    ok(api('/v1/prices', { product: product.id, unit_amount, recurring: { interval, interval_count } }));
  const monthly = await price(2990, 'month');
  const weekly = await price(1000, 'week');
  const yearly = await price(12000, 'year');
  const quarterly = await price(9000, 'month', 3);

  // A subscription on a clock twenty days back, cancelled three days back: churn in 7 and 30 days.
  const clock = await ok(
    api('/v1/test_helpers/test_clocks', { frozen_time: unixOf(Date.now() - 20 * DAY), name: 'home' }),
  );
  const clocked = await ok(api('/v1/customers', { name: 'Klukka', test_clock: clock.id }));
  const clockedCard = await ok(api('/v1/payment-methods', { card, customer: clocked.id }));
  const early = await ok(
    api('/v1/subscriptions', {
      customer: clocked.id,
      price: monthly.id,
      default_payment_method: clockedCard.id,
    }),
  );
  await until(
    () => api(`/v1/subscriptions/${early.id}`, undefined),
    (r) => r.body.status === 'active',
  );
  await ok(
    api(`/v1/test_helpers/test_clocks/${clock.id}/advance`, { frozen_time: unixOf(Date.now() - 3 * DAY) }),
  );
  await until(
    () => api(`/v1/test_helpers/test_clocks/${clock.id}`, undefined),
    (r) => r.body.status === 'ready',
    60_000,
  );
  await ok(api(`/v1/subscriptions/${early.id}`, {}, 'DELETE'));

  const gudrun = await ok(
    api('/v1/customers', { name: 'Guðrún', email: 'gudrun@example.test', kennitala: '0101302989' }),
  );
  await ok(api('/v1/customers', { name: 'Jón' }));
  const pm = await ok(api('/v1/payment-methods', { card, customer: gudrun.id }));
  for (const [p, quantity] of [
    [monthly, 2],
    [weekly, 1],
    [yearly, 1],
    [quarterly, 1],
  ] as const) {
    const sub = await ok(
      api('/v1/subscriptions', { customer: gudrun.id, price: p.id, quantity, default_payment_method: pm.id }),
    );
    await until(
      () => api(`/v1/subscriptions/${sub.id}`, undefined),
      (r) => r.body.status === 'active',
    );
  }
  const paid = [];
  for (const amount of [4900, 12000])
    paid.push(await ok(api('/v1/payment-intents', { amount, card, confirm: true, customer: gudrun.id })));
  await ok(api('/v1/refunds', { payment_intent: paid[0].id, amount: 1000 }));
  const disputed = await ok(
    api('/v1/payment-intents', {
      amount: 3000,
      card: { ...card, number: '4000000000000259' },
      confirm: true,
    }),
  );
  await until(
    () => api(`/v1/disputes?payment_intent=${disputed.id}`, undefined),
    (r) => r.body.data?.length === 1,
    20_000,
  );
  await ok(api('/v1/claims', { payer_kennitala: '0101302989', amount: 5000, due_date: dayAhead(20) }));
  // Another merchant's money: in no figure of this one.
  const theirs = await stack.api(other.testKey, '/v1/payment-intents', {
    method: 'POST',
    json: { amount: 7777, card, confirm: true },
  });
  expect(theirs.body.status).toBe('succeeded');

  const user = await createMerchantUser(stack.knex, m.id);
  web = new WebClient(stack.url);
  expect((await web.signIn(user.email, user.password)).status).toBe(303);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

/** The figures as the page shows them: each card's value now and before, by its test id. */
function shown(page: string): Record<string, { now: number; before: number }> {
  const out: Record<string, { now: number; before: number }> = {};
  for (const [, id, now, before] of page.matchAll(
    /data-testid="([a-z-]+)" data-value="(-?\d+)" data-before="(-?\d+)"/g,
  ))
    out[id!] = { now: Number(now), before: Number(before) };
  return out;
}

const attr = (page: string, id: string, name: string) =>
  Number(new RegExp(`data-testid="${id}"[^>]*data-${name}="(-?\\d+)"`).exec(page)?.[1]);

/** The figures computed here from the merchant's rows, read one by one (no aggregate SQL). */
async function expected(period: Period, now: Date) {
  const scope = { merchant_id: m.id, livemode: false };
  const [intents, refunds, disputes, customers, subs, prices, claims] = await Promise.all([
    stack.knex('payment_intents').where(scope),
    stack.knex('refunds').where(scope),
    stack.knex('disputes').where(scope),
    stack.knex('customers').where(scope),
    stack.knex('subscriptions').where(scope),
    stack.knex('prices').where(scope),
    stack.knex('claims').where(scope),
  ]);
  const priceOf = new Map(prices.map((p: any) => [p.id, p]));
  const { current, previous } = periodRanges(period, now);
  const inRange = (d: Date | null, r: { from: Date; to: Date }) => d !== null && d >= r.from && d < r.to;
  const totals = (r: { from: Date; to: Date }) => {
    const captured = intents.filter((i: any) => inRange(i.captured_at, r));
    const gross = captured.reduce((s: number, i: any) => s + Number(i.amount_captured), 0);
    const fees = captured.reduce((s: number, i: any) => s + Number(i.fee_amount), 0);
    const okRefunds = refunds.filter((x: any) => x.status === 'succeeded' && inRange(x.created_at, r));
    const theDisputes = disputes.filter((x: any) => inRange(x.created_at, r));
    return {
      gross,
      net: gross - fees,
      refunds: okRefunds.reduce((s: number, x: any) => s + Number(x.amount), 0),
      disputes: theDisputes.reduce((s: number, x: any) => s + Number(x.amount), 0),
      'new-customers': customers.filter((c: any) => c.deleted_at === null && inRange(c.created_at, r)).length,
    };
  };
  const counts = (s: any, at: Date) =>
    !['incomplete', 'incomplete_expired', 'unpaid'].includes(s.status) &&
    !s.paused &&
    (s.trial_start ?? s.billing_cycle_anchor) <= at &&
    (s.trial_end === null || s.trial_end <= at) &&
    (s.ended_at === null || s.ended_at > at);
  const monthly = (s: any) => {
    const p: any = priceOf.get(s.price_id);
    const per = { week: new Decimal(52).div(12), month: new Decimal(1), year: new Decimal(1).div(12) }[
      p.recurring_interval as 'week' | 'month' | 'year'
    ];
    return new Decimal(p.unit_amount).mul(s.quantity).mul(per).div(p.recurring_interval_count);
  };
  const mrrAt = (at: Date) =>
    subs
      .filter((s: any) => counts(s, at))
      .reduce((sum: Decimal, s: any) => sum.add(monthly(s)), new Decimal(0))
      .toDecimalPlaces(0, Decimal.ROUND_HALF_UP)
      .toNumber();
  const end = current.to < now ? current.to : now;
  const churn = (from: Date, to: Date) => {
    const atStart = subs.filter((s: any) => counts(s, from));
    return {
      start: atStart.length,
      ended: atStart.filter((s: any) => inRange(s.ended_at, { from, to })).length,
    };
  };
  const today = now.toISOString().slice(0, 10);
  const open = claims.filter((c: any) => ['pending', 'issued', 'partially_paid'].includes(c.status));
  const overdue = open.filter((c: any) => c.final_due_date < today);
  const owed = (cs: any[]) => cs.reduce((s, c) => s + Number(c.amount) - Number(c.amount_paid), 0);
  const a = totals(current);
  const b = totals(previous);
  return {
    figures: {
      gross: { now: a.gross, before: b.gross },
      net: { now: a.net, before: b.net },
      refunds: { now: a.refunds, before: b.refunds },
      disputes: { now: a.disputes, before: b.disputes },
      'new-customers': { now: a['new-customers'], before: b['new-customers'] },
      mrr: { now: mrrAt(end), before: mrrAt(previous.to) },
      'active-subscriptions': {
        now: subs.filter((s: any) => counts(s, end)).length,
        before: subs.filter((s: any) => counts(s, previous.to)).length,
      },
    },
    churn: churn(current.from, end),
    claims: {
      count: open.length,
      amount: owed(open),
      overdueCount: overdue.length,
      overdueAmount: owed(overdue),
    },
  };
}

test.each(PERIODS)('period %s: every figure equals the computation from the rows', async (period) => {
  const res = await web.get(`/dashboard/home?period=${period}&lang=en`);
  expect(res.status).toBe(200);
  const want = await expected(period, new Date());
  const figures = shown(res.text);
  expect(figures).toEqual(want.figures);
  expect({ start: attr(res.text, 'churn', 'start'), ended: attr(res.text, 'churn', 'ended') }).toEqual(
    want.churn,
  );
  expect({
    count: attr(res.text, 'claims-outstanding', 'count'),
    amount: attr(res.text, 'claims-outstanding', 'value'),
    overdueCount: attr(res.text, 'claims-overdue', 'count'),
    overdueAmount: attr(res.text, 'claims-overdue', 'value'),
  }).toEqual(want.claims);
});

test('the figures are not empty: the data above is in them, and the other merchant is not', async () => {
  const res = await web.get('/dashboard/home?period=30d&lang=en');
  const f = shown(res.text);
  // 4900 + 12000 + 3000 today, and the clocked subscription's first charge of 2990 twenty days ago.
  expect(f.gross!.now).toBe(4900 + 12000 + 3000 + 2990 + 2 * 2990 + 1000 + 12000 + 9000);
  expect(f.refunds!.now).toBe(1000);
  expect(f.disputes!.now).toBe(3000);
  // 2 × 2990 + 1000 × 52 / 12 + 12000 / 12 + 9000 / 3 = 5980 + 4333.33 + 1000 + 3000.
  expect(f.mrr!.now).toBe(14313);
  // The clocked subscription began before the last 7 days and ended in them: one of those counted.
  const week = await web.get('/dashboard/home?period=7d&lang=en');
  expect({ ended: attr(week.text, 'churn', 'ended'), start: attr(week.text, 'churn', 'start') }).toEqual({
    ended: 1,
    start: 1,
  });
  expect(attr(res.text, 'claims-outstanding', 'value')).toBe(5000);
  // The day chart's series carry the same gross, split by kind.
  const series = JSON.parse(
    /id="volume-chart"[^>]*data-series="([^"]+)"/.exec(res.text)![1]!.replace(/&quot;/g, '"'),
  );
  expect(
    series.card.reduce((s: number, v: number) => s + v, 0) +
      series.krafa.reduce((s: number, v: number) => s + v, 0),
  ).toBe(f.gross!.now);
  expect(series.card).toHaveLength(30);
});

test('a period that is not one of the four falls back to 30 days; the page never fails', async () => {
  const res = await web.get('/dashboard/home?period=%27%3B--&lang=is');
  expect(res.status).toBe(200);
  expect(res.text).toMatch(/period=30d" aria-current="page"\s*>Síðustu 30 dagar/);
});
