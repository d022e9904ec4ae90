import Decimal from 'decimal.js';
import { randomBase62 } from '../../domain/ids';
import { nextBankingDay } from '../../domain/banking-days';
import type { DefaultInterestRate } from '../../domain/default-interest-rates';
import { SimulatedCollector } from '../../simulators/collector/simulated-collector';
import { createOperator } from '../helpers/accounts';
import { startTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { until } from '../helpers/until';

/**
 * Collection of overdue kröfur (decisions 0244–0247), through the API, the workflows, the simulated
 * bank and the payer page: the operator's rate table, a policy above a cap refused, a krafa on a
 * test clock from issue through warning, two interim steps and hand-off with the amount owed
 * checked against an independent computation at each step, and payments racing the steps.
 */

const CLAIMANT = '5510730339';
const PAYER = '1201603389';
const DAY = 86_400_000;

// The simulated bank's own copy of the published rates: the seed's, then what the operator adds.
const BANK_RATES: DefaultInterestRate[] = [{ from: '2025-05-01', consumer: 15.5, business: 15.5 }];
let bankNow: Date | null = null;
const collector = new SimulatedCollector();

let stack: TestStack;
let m: TestMerchant;
let operator: string;

beforeAll(async () => {
  // A stack of its own: the bank's clock is this file's, and collection runs read the whole environment.
  stack = await startTestStack({
    realBaseUrl: true,
    bank: true,
    bankOptions: { now: () => bankNow ?? new Date(), statutoryRates: BANK_RATES },
    collector,
  });
  m = await stack.merchant('Innheimta ehf.');
  await stack.knex('merchants').where({ id: m.id }).update({ kennitala: CLAIMANT });
  operator = (await createOperator(stack.knex)).token;
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const api = (p: string, json?: unknown) =>
  stack.api(m.testKey, p, json === undefined ? {} : { method: 'POST', json });
const op = (p: string, json?: unknown) =>
  stack.api(operator, p, json === undefined ? {} : { method: 'POST', json });
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const plusDays = (d: string, n: number) => day(Date.parse(`${d}T00:00:00Z`) + n * DAY);

async function newClock(at: number) {
  return (await api('/v1/test_helpers/test_clocks', { frozen_time: Math.floor(at / 1000) })).body
    .id as string;
}
async function customerOn(clock: string | null) {
  const c = await api('/v1/customers', {
    name: 'Guðrún Jónsdóttir',
    kennitala: PAYER,
    email: `gudrun-${randomBase62(6).toLowerCase()}@example.test`,
    ...(clock && { test_clock: clock }),
  });
  expect(c.status).toBe(200);
  return c.body.id as string;
}
async function issue() {
  const batch = `b-${randomBase62(6)}`;
  return stack.client.workflow.execute('claimBatch', {
    workflowId: `claim-batch/test/${batch}`,
    taskQueue: stack.taskQueue,
    args: [{ livemode: false, batch, pollMs: 50 }],
  });
}
const collect = (asOf: number, testClockId: string | null) =>
  stack.client.workflow.execute('collectionRun', {
    workflowId: `collection-run/test/t/${randomBase62(8)}`,
    taskQueue: stack.taskQueue,
    args: [{ livemode: false, asOf, testClockId }],
  });
const sync = () =>
  stack.client.workflow.execute('claimPaymentsSync', {
    workflowId: `claim-payments-sync/test/${randomBase62(8)}`,
    taskQueue: stack.taskQueue,
    args: [{}],
  });

/**
 * Default interest written here from the Act alone, not from the code under test: day by day from
 * the gjalddagi, each day at the rate in force (actual/360), and on each twelve-month anniversary
 * the interest of the year before joins the base (Act 38/2001 art. 5, 6, 12). Rounded once.
 */
function independentInterest(principal: number, from: string, to: string, rates: DefaultInterestRate[]) {
  let base = new Decimal(principal);
  let total = new Decimal(0);
  let sinceCapitalised = new Decimal(0);
  const [fy, fm, fd] = from.split('-').map(Number) as [number, number, number];
  for (let d = from; d < to; d = plusDays(d, 1)) {
    const [y, mo, da] = d.split('-').map(Number) as [number, number, number];
    if (y > fy && mo === fm && da === fd) {
      base = base.plus(sinceCapitalised);
      sinceCapitalised = new Decimal(0);
    }
    const rate = [...rates].reverse().find((r) => r.from <= d)!.consumer;
    const x = base.times(rate).div(100).div(360);
    total = total.plus(x);
    sinceCapitalised = sinceCapitalised.plus(x);
  }
  return total.toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();
}

test('operator rates and caps; a policy above a cap is refused naming it, and nothing changes', async () => {
  // Added through the operator API and, as the bank learns the same notice, to the bank's table.
  const added = await op('/v1/operator/default_interest_rates', {
    livemode: false,
    valid_from: '2027-08-01',
    consumer: 17.25,
    business: 17.25,
    source: 'FIXTURE: an invented rate for tests',
  });
  expect(added.status).toBe(200);
  BANK_RATES.push({ from: '2027-08-01', consumer: 17.25, business: 17.25 });
  expect((await op('/v1/operator/default_interest_rates', { ...added.body, object: undefined })).status).toBe(
    409,
  );
  const bad = await op('/v1/operator/default_interest_rates', {
    livemode: false,
    valid_from: '2028-03-01',
    consumer: 101,
    business: 12,
    source: 'x',
  });
  expect(bad).toMatchObject({ status: 400, body: { error: { param: 'consumer' } } });
  expect((await stack.api(m.testKey, '/v1/operator/default_interest_rates?livemode=false')).status).toBe(401);
  const table = await op('/v1/operator/default_interest_rates?livemode=false');
  expect(table.body.data.map((r: { valid_from: string }) => r.valid_from)).toEqual([
    '2025-05-01',
    '2027-08-01',
  ]);
  expect(
    (
      await op('/v1/operator/default_interest_rates', {
        livemode: false,
        valid_from: '2028-03-01',
        consumer: 14,
        business: 14,
        source: 'FIXTURE: an invented rate for tests',
      })
    ).status,
  ).toBe(200);
  BANK_RATES.push({ from: '2028-03-01', consumer: 14, business: 14 });

  const caps = await op('/v1/operator/collection_caps?livemode=false');
  expect(
    Object.fromEntries(caps.body.data.map((c: { key: string; amount: number }) => [c.key, c.amount])),
  ).toEqual({
    warning: 950,
    letter_band_1: 1300,
    letter_band_2: 2100,
    letter_band_3: 3700,
    letter_band_4: 5900,
    call: 550,
    payment_agreement: 2700,
  });

  const before = await api('/v1/collection_policy');
  expect(before.body).toMatchObject({ is_default: true, warning: { cost: 950, pay_within_days: 10 } });
  const policy = {
    warning: { pay_within_days: 10, cost: 951, waive_for_businesses: false },
    interim_steps: [{ kind: 'letter', days_after_previous: 14 }],
    final_step: { action: 'hand_off', days_after_previous: 14 },
  };
  const refused = await api('/v1/collection_policy', policy);
  expect(refused.status).toBe(400);
  expect(refused.body.error.param).toBe('warning[cost]');
  expect(refused.body.error.message).toMatch(/cap of 950 ISK/);
  const letter = await api('/v1/collection_policy', {
    ...policy,
    warning: { ...policy.warning, cost: 950 },
    interim_steps: [{ kind: 'letter', days_after_previous: 14, cost_by_band: [1300, 2100, 3701, 5900] }],
  });
  expect(letter.body.error).toMatchObject({ param: 'interim_steps[0][cost_by_band][2]' });
  expect(letter.body.error.message).toMatch(/3700 ISK/);
  const short = await api('/v1/collection_policy', {
    ...policy,
    warning: { ...policy.warning, cost: 950, pay_within_days: 9 },
  });
  expect(short.body.error).toMatchObject({ param: 'warning[pay_within_days]' });
  expect((await api('/v1/collection_policy')).body).toEqual(before.body);
});

test('on a test clock: issue, eindagi, warning, two interim steps, hand-off — owed as the law computes it, in the API, at the bank and on the payer page', async () => {
  // Warning with 10 days, a letter and a reminder, and a hand-off a year later (past twelve months
  // of interest, across two rate changes).
  const set = await api('/v1/collection_policy', {
    warning: { pay_within_days: 10, cost: 950, waive_for_businesses: false },
    interim_steps: [
      { kind: 'letter', days_after_previous: 14 },
      { kind: 'reminder', days_after_previous: 14 },
    ],
    final_step: { action: 'hand_off', days_after_previous: 365 },
  });
  expect(set.status).toBe(200);
  const clock = await newClock(Date.UTC(2027, 5, 1, 12));
  const customer = await customerOn(clock);
  const principal = 50_000;
  const created = await api('/v1/claims', {
    customer,
    amount: principal,
    due_date: '2027-06-15',
    default_interest: { reference_date: 'due_date', day_count: '360' },
    description: 'Reikningur 1001',
  });
  expect(created.status).toBe(200);
  const id = created.body.id as string;
  expect(await issue()).toMatchObject({ issued: 1 });
  const bankClaimId = (await stack.knex('claims').where({ id }).first()).bank_claim_id as string;

  const advance = async (to: string) => {
    const at = Date.parse(`${to}T12:00:00Z`);
    bankNow = new Date(at);
    expect(
      (await api(`/v1/test_helpers/test_clocks/${clock}/advance`, { frozen_time: at / 1000 })).status,
    ).toBe(200);
    await until(
      () => api(`/v1/test_helpers/test_clocks/${clock}`),
      (r) => r.body.status === 'ready',
      55_000,
    );
  };
  const check = async (date: string, kinds: string[], costs: number) => {
    const interest = independentInterest(principal, '2027-06-15', date, BANK_RATES);
    const total = principal + interest + costs;
    const c = (await api(`/v1/claims/${id}/collection`)).body;
    expect(c.steps.map((s: { kind: string }) => s.kind)).toEqual(kinds);
    expect(c.amount_owed).toMatchObject({ date, principal, interest, collection_costs: costs, total });
    const last = c.steps[c.steps.length - 1];
    expect(last).toMatchObject({ taken_on: date, amount_owed: { total } });
    // The bank shows the same figure (altered with the totals; its own interest by its own table).
    await until(
      () => stack.bank!.client().getClaim(bankClaimId),
      (b) => b.otherDefaultCostsAmountDue === costs,
    );
    const atBank = await stack.bank!.client().getClaim(bankClaimId);
    expect(atBank).toMatchObject({ totalAmountDue: total, defaultInterestAmountDue: interest });
    const page = await fetch(`${stack.url}/krafa/${id}`);
    const text = await page.text();
    expect(page.status).toBe(200);
    expect(text).toContain(`data-total="${total}"`);
    return c;
  };

  // Before the eindagi's next day nothing happens.
  await advance('2027-06-15');
  expect((await api(`/v1/claims/${id}/collection`)).body).toMatchObject({ state: 'not_overdue', steps: [] });
  await advance('2027-06-16');
  const warned = await check('2027-06-16', ['overdue', 'warning'], 950);
  expect(warned).toMatchObject({ state: 'warning', next_step: { kind: 'letter', on: '2027-06-30' } });
  const warningMail = await until(
    () => Promise.resolve(stack.mail.messages().filter((x) => x.subject.startsWith('Innheimtuviðvörun'))),
    (msgs) => msgs.length === 1,
  );
  expect(warningMail[0]!.text).toContain('kt. 551073-0339');
  expect(warningMail[0]!.text).toContain('innan 10 daga');
  expect(warningMail[0]!.text).toContain(`/krafa/${id}`);

  await advance('2027-06-30');
  await check('2027-06-30', ['overdue', 'warning', 'letter'], 950 + 3700);
  await advance('2027-07-14');
  const reminded = await check('2027-07-14', ['overdue', 'warning', 'letter', 'reminder'], 950 + 3700 + 3700);
  expect(reminded.next_step).toEqual({ kind: 'hand_off', on: '2028-07-13' });

  // A year on: interest across 2027-08-01 and 2028-03-01, capitalised on 2028-06-15.
  await advance('2028-07-13');
  const handed = await check('2028-07-13', ['overdue', 'warning', 'letter', 'reminder', 'hand_off'], 8350);
  expect(handed.state).toBe('handed_off');
  expect(independentInterest(principal, '2027-06-15', '2028-07-13', BANK_RATES)).toBeGreaterThan(
    independentInterest(principal, '2027-06-15', '2028-07-13', [
      { from: '2000-01-01', consumer: 0, business: 0 },
    ]),
  );
  const kase = await until(
    () => Promise.resolve(collector.cases.get(id)),
    (k) => k !== undefined,
  );
  expect(kase!.received[0]).toMatchObject({
    format: 'skil.collection_case.v1',
    amount_owed: { total: handed.amount_owed.total },
  });
  expect(kase!.received[0]!.history.map((h) => h.kind)).toEqual([
    'overdue',
    'warning',
    'letter',
    'reminder',
    'hand_off',
  ]);
  const events = await api(`/v1/events?limit=100`);
  const types = events.body.data.map((e: { type: string }) => e.type);
  expect(types.filter((t: string) => t === 'claim.overdue')).toHaveLength(1);
  expect(types.filter((t: string) => t === 'claim.collection_step_taken')).toHaveLength(3);
  expect(types.filter((t: string) => t === 'claim.handed_off')).toHaveLength(1);
  bankNow = null;
  // Over two minutes allowed: a year and a month of test-clock advances, each running the day's
  // collection and the simulated bank's alterations (about 50 s alone); up to three times that
  // beside the rest of the suite on two cores.
}, 240_000);

/** A krafa on its own clock (so a run scoped to the clock sees it alone), due today, issued. */
async function dueToday(n: number, opts: { partial?: boolean } = {}) {
  const today = day(Date.now());
  const out: { id: string; clock: string; bankClaimId: string; eindagi: string; overdueOn: string }[] = [];
  for (let i = 0; i < n; i++) {
    const clock = await newClock(Date.now());
    const customer = await customerOn(clock);
    const c = await api('/v1/claims', {
      customer,
      amount: 12_000,
      due_date: today,
      ...(opts.partial && { allow_partial_payment: true }),
    });
    expect(c.status).toBe(200);
    out.push({ id: c.body.id, clock, bankClaimId: '', eindagi: c.body.final_due_date, overdueOn: '' });
  }
  await issue();
  for (const k of out) {
    k.bankClaimId = (await stack.knex('claims').where({ id: k.id }).first()).bank_claim_id;
    k.overdueOn = plusDays(nextBankingDay(k.eindagi), 1);
  }
  return out;
}

test('a payment made before a step but reported after it withdraws the step; raced 50 times', async () => {
  const kröfur = await dueToday(50);
  let stepFirst = 0;
  for (const k of kröfur) {
    bankNow = new Date(`${k.eindagi}T10:00:00Z`);
    stack.bank!.bank.ledger.pay(k.bankClaimId);
    bankNow = null;
    await Promise.all([collect(Date.parse(`${k.overdueOn}T00:30:00Z`), k.clock), sync()]);
    const c = (await api(`/v1/claims/${k.id}/collection`)).body;
    expect(c.claim_status).toBe('paid');
    if (c.steps.length > 0) stepFirst += 1;
    expect(['not_overdue', 'stopped']).toContain(c.state);
    expect(c.next_step).toBeNull();
    for (const s of c.steps) expect(s.status).toBe('withdrawn');
    expect(c.amount_owed.collection_costs).toBe(0);
    // No later run takes a step on a paid krafa.
    await collect(Date.parse(`${plusDays(k.overdueOn, 30)}T00:30:00Z`), k.clock);
    expect((await api(`/v1/claims/${k.id}/collection`)).body.steps).toHaveLength(c.steps.length);
  }
  console.log(`raced 50: the step ran first ${stepFirst} times, the payment first ${50 - stepFirst}`);
  // Over two minutes allowed: fifty races, each a krafa issued at the bank, a collection run and a
  // bank sync side by side, then a later run (about 60 s alone); up to three times that beside the
  // rest of the suite.
}, 300_000);

test('a partial payment and a merchant cancelling each stop the steps; two runs at once take each step once', async () => {
  const [partial, cancelled, twice] = await dueToday(3, { partial: true });
  // Steps first, then a partial payment made on the eindagi: the steps are withdrawn and stop.
  await collect(Date.parse(`${partial!.overdueOn}T00:30:00Z`), partial!.clock);
  bankNow = new Date(`${partial!.eindagi}T10:00:00Z`);
  stack.bank!.bank.ledger.pay(partial!.bankClaimId, { amount: 5000 });
  bankNow = null;
  await sync();
  await collect(Date.parse(`${plusDays(partial!.overdueOn, 30)}T00:30:00Z`), partial!.clock);
  const p = (await api(`/v1/claims/${partial!.id}/collection`)).body;
  expect(p).toMatchObject({ claim_status: 'partially_paid', state: 'stopped', next_step: null });
  expect(p.steps.map((s: { kind: string; status: string }) => [s.kind, s.status])).toEqual([
    ['overdue', 'withdrawn'],
    ['warning', 'withdrawn'],
  ]);

  // The merchant cancels after the warning: no further step; the warning stays on record.
  await collect(Date.parse(`${cancelled!.overdueOn}T00:30:00Z`), cancelled!.clock);
  expect((await api(`/v1/claims/${cancelled!.id}/cancel`, {})).body.status).toBe('cancelled');
  await collect(Date.parse(`${plusDays(cancelled!.overdueOn, 30)}T00:30:00Z`), cancelled!.clock);
  const c = (await api(`/v1/claims/${cancelled!.id}/collection`)).body;
  expect(c).toMatchObject({ claim_status: 'cancelled', state: 'stopped', next_step: null });
  expect(c.steps.map((s: { kind: string }) => s.kind)).toEqual(['overdue', 'warning']);

  // Two runs of the same day at once (a restarted worker's and the schedule's): each step once.
  const at = Date.parse(`${twice!.overdueOn}T00:30:00Z`);
  await Promise.all([collect(at, twice!.clock), collect(at, twice!.clock), collect(at, twice!.clock)]);
  const rows = await stack.knex('claim_collection_steps').where({ claim_id: twice!.id });
  expect(rows.map((r) => r.kind).sort()).toEqual(['overdue', 'warning']);
}, 120_000);
