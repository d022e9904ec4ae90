/**
 * The merchant's books (decisions 0238–0241). A two-month VAT period built through the real
 * paths — hosted checkout sales at 24 %, 11 % and 0 %, a checkout paid by krafa and paid at the
 * simulated bank, till sales in cash with a partial and a full refund, card refunds partial and full,
 * a lost dispute, a subscription with a coupon renewed on a test clock — and every box of
 * `GET /v1/reports/vat` checked against a computation of this file's own from the invoices', credit
 * notes' and till sales' lines; the drill-down adds up to the boxes, the CSV too, and bad periods
 * are 400s naming `period`.
 */
import { randomBase62 } from '../../domain/ids';
import { claimBatchWorkflowId } from '../../workflows/contract';
import { sharedTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { setPos, setUpTill } from '../helpers/pos';
import { until } from '../helpers/until';
import { createMerchantUser } from '../helpers/accounts';
import { launchChromium, openPage } from '../helpers/browser';
import { accessibilityFindings } from '../helpers/accessibility';
import { sidewaysOverflow } from '../helpers/page-checks';
import { formatIsk } from '../../domain/isk';
// The work tree's SDK (the package name resolves to the main checkout's through node_modules).
import { Skil } from '../../sdk';
import {
  boxesOfJournal,
  dayImbalance,
  journalOf,
  periodOf,
  registeredSeller,
  zero,
  type Boxes,
} from '../helpers/books';

let stack: TestStack;
/** The merchant whose period the first test builds, for the dashboard test. */
let built: { m: TestMerchant; period: string; boxes: Boxes } | undefined;

beforeAll(async () => {
  stack = await sharedTestStack();
});
afterAll(async () => {
  await stack?.stop();
});

const PERSON = '1201603389';
const card = (number: string) => ({ number, exp_month: 12, exp_year: 2034, cvc: '123' });
const unixOf = (ms: number) => Math.floor(ms / 1000);

/** VAT in a VAT-inclusive amount, half up, in integers (independent of domain/vat.ts). */
const vatIn = (gross: number, rate: number) =>
  Number((BigInt(gross) * BigInt(rate) * 2n + BigInt(100 + rate)) / (2n * BigInt(100 + rate)));

/** Adds a document given by its gross per rate: VAT once per rate, sign −1 for a credit. */
function addDocument(into: Boxes, grossPerRate: Map<number, number>, sign: 1 | -1, registered = true) {
  for (const [rate, gross] of grossPerRate) {
    const vat = vatIn(gross, rate);
    const net = gross - vat;
    if (rate === 24) {
      into.A += sign * net;
      into.vat_24 += sign * vat;
    } else if (rate === 11) {
      into.B += sign * net;
      into.vat_11 += sign * vat;
    } else if (registered) into.C += sign * net;
    else into.out_of_scope += sign * net;
  }
  into.D = into.vat_24 + into.vat_11;
}

const perRate = (lines: { vat_rate: number; amount: number }[]) => {
  const m = new Map<number, number>();
  for (const l of lines) m.set(l.vat_rate, (m.get(l.vat_rate) ?? 0) + l.amount);
  return m;
};

function client(m: TestMerchant) {
  const get = async (path: string) => {
    const r = await stack.api(m.testKey, path);
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.text}`);
    return r.body;
  };
  const post = (path: string, json: unknown = {}) => stack.api(m.testKey, path, { method: 'POST', json });
  const all = async <T>(path: string): Promise<T[]> => {
    const out: T[] = [];
    let after = '';
    for (;;) {
      const sep = path.includes('?') ? '&' : '?';
      const page = await get(`${path}${sep}limit=100${after && `&starting_after=${after}`}`);
      out.push(...(page.data as T[]));
      if (!page.has_more) return out;
      after = (out[out.length - 1] as { id: string }).id;
    }
  };
  return { get, post, all };
}

async function payCheckout(m: TestMerchant, items: unknown[]) {
  const { post } = client(m);
  const s = await post('/v1/checkout/sessions', { items });
  expect(s.status).toBe(200);
  const done = await post(`/v1/test_helpers/checkout/sessions/${s.body.id}/complete`, {});
  expect(done.status).toBe(200);
  return done.body.payment_intent as string;
}

interface Doc {
  id: string;
  issued_at?: number;
  created: number;
  lines: { vat_rate: number; vat_category?: string; amount: number }[];
  pos_sale?: string | null;
  pos_refund?: string | null;
}

const outside = (l: { vat_category?: string }) => l.vat_category === 'E' || l.vat_category === 'O';

/** Adds a document's lines: those outside the scope at their amount, the others by rate. */
function addLines(into: Boxes, lines: Doc['lines'], sign: 1 | -1) {
  addDocument(into, perRate(lines.filter((l) => !outside(l))), sign);
  for (const l of lines.filter(outside)) into.out_of_scope += sign * l.amount;
}

test('a two-month period through checkout, krafa, till, refunds, a lost dispute and a renewal with a coupon: every box equals an independent computation', async () => {
  const m = await stack.merchant('Bókabúðin ehf.');
  await registeredSeller(stack, m);
  const { get, post, all } = client(m);
  const period = periodOf(Date.now());

  // Card sales on the hosted checkout at 24 %, 11 % and 0 % (zero-rated: an export).
  const pi24 = await payCheckout(m, [
    { description: 'Kaffivél', unit_amount: 24_990, vat_rate: 24 },
    { description: 'Bók', unit_amount: 4_490, quantity: 2, vat_rate: 11 },
  ]);
  const pi11 = await payCheckout(m, [{ description: 'Kaffibaunir', unit_amount: 3_333, vat_rate: 11 }]);
  const pi0 = await payCheckout(m, [{ description: 'Útflutningur', unit_amount: 50_000, vat_rate: 0 }]);
  // Outside the scope of VAT (category O, decision 0234): on no box of the return, shown beside it.
  await payCheckout(m, [{ description: 'Gjafabréf', unit_amount: 10_000, vat_rate: 0, vat_category: 'O' }]);
  // Refunds: part of the mixed sale (shared among its rates), all of the 11 % one.
  expect((await post('/v1/refunds', { payment_intent: pi24, amount: 7_001 })).status).toBe(200);
  expect((await post('/v1/refunds', { payment_intent: pi11 })).status).toBe(200);
  void pi0;

  // A lost dispute on a card payment: the sale stands for VAT; the loss is the journal's business.
  const disputed = await post('/v1/payment-intents', {
    amount: 4_000,
    card: card('4000000000000259'),
    confirm: true,
  });
  expect(disputed.body.status).toBe('succeeded');
  const dispute = await until(
    () => stack.api(m.testKey, `/v1/disputes?payment_intent=${disputed.body.id}`),
    (r) => r.body.data?.length === 1,
  );
  expect((await post(`/v1/disputes/${dispute.body.data[0].id}/close`)).body.status).toBe('lost');

  // A checkout paid by krafa: invoiced when the bank accepts it, then paid at the bank.
  const krafaSession = await post('/v1/checkout/sessions', {
    currency: 'ISK',
    items: [{ description: 'Námskeið', unit_amount: 19_900, vat_rate: 24 }],
  });
  const form = await fetch(`${stack.url}/checkout/${krafaSession.body.id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      action: 'claim',
      f_name: 'Jóna Jónsdóttir',
      f_email: 'jona@example.is',
      claim_kennitala: PERSON,
    }).toString(),
    redirect: 'manual',
  });
  expect(form.status).toBe(200);
  await stack.client.workflow
    .getHandle(claimBatchWorkflowId(false, `checkout-${krafaSession.body.id}`))
    .result();
  const claims = (await get('/v1/claims?limit=100')).data as {
    id: string;
    metadata: Record<string, string>;
  }[];
  const claimId = claims.find((c) => c.metadata.checkout_session === krafaSession.body.id)!.id;
  const claim = await get(`/v1/claims/${claimId}`);
  stack.bank!.bank.ledger.pay(
    `${claim.claim_key.claimant_id}${claim.claim_key.account}+${claim.claim_key.due_date.replaceAll('-', '')}`,
  );
  await until(
    async () => {
      await stack.client.workflow.execute('claimPaymentsSync', {
        workflowId: `claim-payments-sync/test/${randomBase62(6)}`,
        taskQueue: stack.taskQueue,
        args: [{}],
      });
      return get(`/v1/claims/${claimId}`);
    },
    (c) => c.status === 'paid',
  );

  // A subscription with a coupon on a test clock, first charged and then renewed in the period.
  const product = await post('/v1/products', { name: 'Tímaritið', vat_rate: 11 });
  const price = await post('/v1/prices', {
    product: product.body.id,
    unit_amount: 2_990,
    recurring: { interval: 'month' },
  });
  const coupon = await post('/v1/coupons', { percent_off: 15, duration: 'forever' });
  const clock = await post('/v1/test_helpers/test_clocks', {
    frozen_time: unixOf(period.start + 4 * 86_400_000 + 43_200_000),
  });
  const customer = await post('/v1/customers', { name: 'Áskrifandi', test_clock: clock.body.id });
  const pm = await post('/v1/payment-methods', {
    card: card('4242424242424242'),
    customer: customer.body.id,
  });
  const sub = await post('/v1/subscriptions', {
    customer: customer.body.id,
    price: price.body.id,
    default_payment_method: pm.body.id,
    coupon: coupon.body.id,
  });
  expect(sub.status).toBe(200);
  const nextMonth = new Date(period.start);
  nextMonth.setUTCMonth(nextMonth.getUTCMonth() + 1);
  expect(
    (
      await post(`/v1/test_helpers/test_clocks/${clock.body.id}/advance`, {
        frozen_time: unixOf(nextMonth.getTime() + 4 * 86_400_000 + 46_800_000),
      })
    ).status,
  ).toBe(200);
  await until(
    () => all<{ subscription: string | null }>('/v1/invoices'),
    (list) => list.filter((i) => i.subscription === sub.body.id).length === 2,
    60_000,
  );

  // Till: a mixed cash sale refunded in full, and a single-rate one refunded in part.
  await setPos(stack, m.id, true);
  const till = await setUpTill(stack, m.testKey);
  const device = (path: string, json?: unknown) =>
    stack.api(till.credential, path, json === undefined ? {} : { method: 'POST', json });
  expect((await device('/v1/pos/sign_in', { staff: till.manager.id, pin: till.managerPin })).status).toBe(
    200,
  );
  expect(
    (await device(`/v1/pos/registers/${till.register.id}/shift/open`, { opening_float: 10_000 })).status,
  ).toBe(200);
  const sale = async (
    lines: { description: string; unit_amount: number; vat_rate: number; quantity: number }[],
  ) => {
    const total = lines.reduce((s, l) => s + l.unit_amount * l.quantity, 0);
    const r = await device(`/v1/pos/registers/${till.register.id}/sales`, {
      lines,
      payments: [{ method: 'cash', amount: total }],
    });
    expect(r.status).toBe(200);
    return r.body.id as string;
  };
  const mixed = await sale([
    { description: 'Kaffi', unit_amount: 650, vat_rate: 11, quantity: 3 },
    { description: 'Krús', unit_amount: 2_490, vat_rate: 24, quantity: 1 },
  ]);
  const single = await sale([{ description: 'Kort', unit_amount: 1_999, vat_rate: 24, quantity: 1 }]);
  await sale([{ description: 'Samloka', unit_amount: 1_290, vat_rate: 11, quantity: 2 }]);
  expect((await device(`/v1/pos/sales/${mixed}/refunds`, { method: 'cash' })).status).toBe(200);
  // A till sale to a business buyer is invoiced with the sale, and its refund credited (decision
  // 0235): one sale and one refund for the return, not two of each.
  const buyer = await post('/v1/customers', {
    name: 'Bókhaldsstofan ehf.',
    email: 'reikningar@bokhald.example.is',
    kennitala: '4101692659',
    address: { line1: 'Hverfisgata 4', postal_code: '101', city: 'Reykjavík', country: 'IS' },
  });
  const invoicedSale = await device(`/v1/pos/registers/${till.register.id}/sales`, {
    customer: buyer.body.id,
    lines: [{ description: 'Pappír', unit_amount: 3_100, vat_rate: 24, quantity: 2 }],
    payments: [{ method: 'cash', amount: 6_200 }],
  });
  expect(invoicedSale.body.invoice).toMatch(/^in_/);
  expect(
    (await device(`/v1/pos/sales/${invoicedSale.body.id}/refunds`, { method: 'cash', amount: 1_550 })).status,
  ).toBe(200);
  expect((await device(`/v1/pos/sales/${single}/refunds`, { method: 'cash', amount: 999 })).status).toBe(200);

  // The independent computation, from the documents as the API lists them.
  const inPeriod = (unix: number) => unix * 1000 >= period.start && unix * 1000 < period.end;
  const expected = zero();
  const credits = zero();
  // The till's invoice and credit note are its sale and refund, counted below as those.
  const invoices = (await all<Doc>('/v1/invoices')).filter(
    (d) => inPeriod(d.issued_at ?? d.created) && !d.pos_sale,
  );
  const notes = (await all<Doc>('/v1/credit-notes')).filter(
    (d) => inPeriod(d.issued_at ?? d.created) && !d.pos_refund,
  );
  // 5 checkout sales, the krafa's, and the subscription's two periods.
  expect(invoices).toHaveLength(7);
  expect(notes).toHaveLength(2);
  // They are the sales and refunds made above: their totals are this file's own amounts.
  const total = (d: Doc) => d.lines.reduce((sum, l) => sum + l.amount, 0);
  expect(notes.map(total).sort((a, b) => a - b)).toEqual([3_333, 7_001]);
  expect(invoices.map(total)).toEqual(
    expect.arrayContaining([24_990 + 2 * 4_490, 3_333, 50_000, 10_000, 19_900]),
  );
  for (const i of invoices) addLines(expected, i.lines, 1);
  for (const n of notes) {
    addLines(expected, n.lines, -1);
    addLines(credits, n.lines, -1);
  }
  const tillSales = [
    perRate([
      { vat_rate: 11, amount: 1_950 },
      { vat_rate: 24, amount: 2_490 },
    ]),
    perRate([{ vat_rate: 24, amount: 1_999 }]),
    perRate([{ vat_rate: 11, amount: 2_580 }]),
    perRate([{ vat_rate: 24, amount: 6_200 }]),
  ];
  for (const s of tillSales) addDocument(expected, s, 1);
  // The full refund reverses the mixed sale; the part of the single-rate one is 999 at 24 %.
  for (const r of [
    tillSales[0]!,
    perRate([{ vat_rate: 24, amount: 999 }]),
    perRate([{ vat_rate: 24, amount: 1_550 }]),
  ]) {
    addDocument(expected, r, -1);
    addDocument(credits, r, -1);
  }

  const report = await get(`/v1/reports/vat?period=${period.id}`);
  expect(report).toMatchObject({
    object: 'vat_report',
    period: { id: period.id, kind: 'two_month' },
    vat_period: 'two_month',
    vat_number: '123456',
    documents: { invoice: 7, credit_note: 2, pos_sale: 4, pos_refund: 3 },
  });
  expect(report.boxes).toEqual(expected);
  expect(report.credits).toEqual(credits);
  built = { m, period: period.id, boxes: report.boxes };
  expect(report.boxes.C).toBe(50_000);
  expect(report.boxes.out_of_scope).toBe(10_000);

  // Every box opens to the documents behind it, and they add up to it.
  for (const box of ['A', 'B', 'C', 'D'] as const) {
    const docs = await all<{ id: string; type: string; figures: Boxes }>(
      `/v1/reports/vat/documents?period=${period.id}&box=${box}`,
    );
    expect(docs.reduce((s, d) => s + d.figures[box], 0)).toBe(report.boxes[box]);
    expect(docs.every((d) => d.figures[box] !== 0)).toBe(true);
  }
  const everything = await all<{ id: string; type: string }>(`/v1/reports/vat/documents?period=${period.id}`);
  expect(everything).toHaveLength(16);
  expect(everything.filter((d) => d.type === 'pos_sale').map((d) => d.id)).toEqual(
    expect.arrayContaining([mixed, single]),
  );

  // The SDK: the same report, and the documents of a box paged through.
  const skil = new Skil(m.testKey, { baseUrl: stack.url });
  expect((await skil.reports.vat.retrieve({ period: period.id })).boxes).toEqual(report.boxes);
  const zeroRated: string[] = [];
  for await (const d of skil.reports.vat.documents({ period: period.id, box: 'C', limit: 1 }))
    zeroRated.push(d.id);
  expect(zeroRated).toHaveLength(1);

  // The CSV: a row per document and a total row equal to the report.
  const csv = await fetch(`${stack.url}/v1/reports/vat.csv?period=${period.id}`, {
    headers: { authorization: `Bearer ${m.testKey}` },
  });
  expect(csv.status).toBe(200);
  expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
  const rows = (await csv.text()).trim().split('\r\n');
  expect(rows[0]).toBe('type,id,number,date,parent,A,B,C,D,vat_24,vat_11,out_of_scope');
  expect(rows).toHaveLength(1 + 16 + 1);
  const b = report.boxes as Boxes;
  expect(rows.at(-1)!.split(',').slice(5).map(Number)).toEqual([
    b.A,
    b.B,
    b.C,
    b.D,
    b.vat_24,
    b.vat_11,
    b.out_of_scope,
  ]);
});

test('an unregistered seller: its 0 % sales are outside the return; periods, due dates and bad periods', async () => {
  const m = await stack.merchant('Smásala');
  const { get } = client(m);
  await payCheckout(m, [{ description: 'Handverk', unit_amount: 8_000, vat_rate: 0 }]);
  const period = periodOf(Date.now());
  const report = await get(`/v1/reports/vat?period=${period.id}`);
  expect(report.vat_number).toBeNull();
  expect(report.boxes).toEqual({ ...zero(), out_of_scope: 8_000 });

  // Yearly filers: the setting, the default period and the due date of 5 February, a working day.
  const set = await stack.api(m.testKey, '/v1/merchant', { method: 'PATCH', json: { vat_period: 'yearly' } });
  expect(set.body.vat_period).toBe('yearly');
  expect((await get('/v1/reports/vat?period=2026')).period).toEqual({
    id: '2026',
    kind: 'yearly',
    start: '2026-01-01',
    end: '2026-12-31',
    due_date: '2027-02-05',
  });
  // Jan–Feb 2026 was due 5 April 2026, Easter Sunday, then Easter Monday: Tuesday the 7th.
  expect((await get('/v1/reports/vat?period=2026-01')).period.due_date).toBe('2026-04-07');
  // May–June 2028: 5 August is a Saturday and the Monday after is Commerce Day.
  expect((await get('/v1/reports/vat?period=2028-05')).period.due_date).toBe('2028-08-08');
  // Nov–Dec 2027: 5 February 2028 is a Saturday.
  expect((await get('/v1/reports/vat?period=2027-11')).period.due_date).toBe('2028-02-07');
  for (const bad of ['2027-02', '2027-13', '27-01', 'januar']) {
    const r = await stack.api(m.testKey, `/v1/reports/vat?period=${bad}`);
    expect([r.status, r.body.error.param]).toEqual([400, 'period']);
    const c = await fetch(`${stack.url}/v1/reports/vat.csv?period=${bad}`, {
      headers: { authorization: `Bearer ${m.testKey}` },
    });
    expect(c.status).toBe(400);
  }
  expect(
    (await stack.api(m.testKey, '/v1/reports/vat/documents?starting_after=inv_nothing')).body.error.param,
  ).toBe('starting_after');
});

const nextPeriodOf = (id: string) => {
  const [y, mo] = id.split('-').map(Number) as [number, number];
  return mo === 11 ? `${y + 1}-01` : `${y}-${String(mo + 2).padStart(2, '0')}`;
};

test('the journal of the built period: every day balances, its sales and VAT are the report boxes, the merchant numbers its accounts, the CSV', async () => {
  expect(built).toBeDefined();
  const { m, period, boxes } = built!;
  // Paged 7 at a time, so the cursor crosses entries of one instant.
  const { entries, status } = await journalOf(stack, m, period, 7);
  expect(status).toBe('open');
  expect(dayImbalance(entries)).toEqual([]);
  expect(boxesOfJournal(entries)).toEqual(boxes);
  expect(new Set(entries.map((e) => `${e.source.type}:${e.source.id}`)).size).toBe(entries.length);
  const types = new Set(entries.map((e) => e.source.type));
  for (const t of ['invoice', 'credit_note', 'pos_sale', 'pos_refund', 'payment', 'refund', 'dispute'])
    expect(types).toContain(t);
  // Cash in the till: the three cash sales less the cash refunds.
  let cash = 0;
  for (const e of entries) for (const l of e.lines) if (l.account === 'cash') cash += l.debit - l.credit;
  expect(cash).toBe(4_440 + 1_999 + 2_580 + 6_200 - 4_440 - 999 - 1_550);
  // The lost dispute's amount is a loss; the payments' fees an expense.
  const dispute = entries.find((e) => e.source.type === 'dispute')!;
  expect(dispute.lines).toEqual([
    expect.objectContaining({ account: 'dispute_losses', debit: 4_000, credit: 0 }),
    expect.objectContaining({ account: 'skil_balance', debit: 0, credit: 4_000 }),
  ]);
  expect(entries.some((e) => e.lines.some((l) => l.account === 'payment_fees' && l.debit > 0))).toBe(true);

  // The chart: defaults that say what each account is; the merchant's own numbers and names.
  const chart = await stack.api(m.testKey, '/v1/reports/chart_of_accounts');
  expect(chart.body.accounts.find((a: { role: string }) => a.role === 'cash')).toMatchObject({
    number: '1610',
    default_name: { is: 'Sjóður (kassi)', en: 'Cash in the till' },
  });
  const set = await stack.api(m.testKey, '/v1/reports/chart_of_accounts', {
    method: 'POST',
    json: {
      accounts: [
        { role: 'sales_24', number: '3100', name: '=Sala, almenn' },
        { role: 'cash', number: '1000' },
      ],
    },
  });
  expect(set.status).toBe(200);
  expect(set.body.accounts.find((a: { role: string }) => a.role === 'sales_24')).toMatchObject({
    number: '3100',
    name: '=Sala, almenn',
    default_number: '3010',
  });
  for (const bad of [
    { accounts: [{ role: 'sales_99', number: '1' }] },
    { accounts: [{ role: 'cash', number: '' }] },
  ]) {
    const r = await stack.api(m.testKey, '/v1/reports/chart_of_accounts', { method: 'POST', json: bad });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toMatch(/^accounts\.0\./);
  }

  // The generic CSV: documented columns, a row per line, formula-like names as text, balanced days.
  const csv = await fetch(`${stack.url}/v1/reports/journal.csv?period=${period}`, {
    headers: { authorization: `Bearer ${m.testKey}` },
  });
  expect(csv.status).toBe(200);
  const rows = (await csv.text()).trim().split('\r\n');
  expect(rows[0]).toBe(
    'date,entry,source_type,source_id,reference,account_number,account_name,account,debit,credit',
  );
  expect(rows).toHaveLength(1 + entries.reduce((s, e) => s + e.lines.length, 0));
  expect(rows.some((r) => r.includes(`,3100,"'=Sala, almenn",sales_24,`))).toBe(true);
  expect(rows.some((r) => r.includes(',1000,Sjóður (kassi),cash,'))).toBe(true);
  const perDay = new Map<string, number>();
  for (const r of rows.slice(1)) {
    const cells = r.split(',');
    perDay.set(cells[0]!, (perDay.get(cells[0]!) ?? 0) + Number(cells.at(-2)) - Number(cells.at(-1)));
  }
  expect([...perDay.values()].every((v) => v === 0)).toBe(true);

  // Regla's import (decision 0260): its eight columns with semicolons, the generic file's lines in
  // the same order, the date as d.m.yyyy, the entry number as the voucher, whose lines net to zero.
  const regla = await fetch(`${stack.url}/v1/reports/journal.csv?period=${period}&format=regla`, {
    headers: { authorization: `Bearer ${m.testKey}` },
  });
  expect(regla.status).toBe(200);
  expect(regla.headers.get('content-disposition')).toBe(`attachment; filename="journal-regla-${period}.csv"`);
  const reglaRows = (await regla.text()).trim().split('\r\n');
  expect(reglaRows[0]).toBe('Dagsetning;Texti;Fskjal;Blykill;Tilvísun;Undirlykill;Debet;Kredit');
  expect(reglaRows).toHaveLength(rows.length);
  const perVoucher = new Map<string, number>();
  reglaRows.slice(1).forEach((r, i) => {
    const cells = r.split(';');
    expect(cells).toHaveLength(8);
    // The first six cells hold no comma; a name may (quoted), so debit and credit count from the end.
    const generic = rows[i + 1]!.split(',');
    const [date, entry, , sourceId, reference, number] = generic;
    const [debit, credit] = generic.slice(-2);
    const [y, mo, d] = date!.split('-').map(Number);
    expect(cells[0]).toBe(`${d}.${mo}.${y}`);
    expect([cells[2], cells[3], cells[4], cells[5]]).toEqual([entry, number, reference, '']);
    expect([cells[6], cells[7]]).toEqual([debit === '0' ? '' : debit, credit === '0' ? '' : credit]);
    expect(cells[1]!.endsWith(` ${sourceId}`) && cells[1]!.length > sourceId!.length + 1).toBe(true);
    perVoucher.set(cells[2]!, (perVoucher.get(cells[2]!) ?? 0) + Number(cells[6]) - Number(cells[7]));
  });
  expect(perVoucher.size).toBe(entries.length);
  expect([...perVoucher.values()].every((v) => v === 0)).toBe(true);
  const badFormat = await stack.api(m.testKey, `/v1/reports/journal.csv?period=${period}&format=dk`);
  expect([badFormat.status, badFormat.body.error.param]).toEqual([400, 'format']);

  // The SDK follows next_page to the same entries.
  const skil = new Skil(m.testKey, { baseUrl: stack.url });
  const viaSdk: string[] = [];
  for await (const e of skil.reports.journal.entries({ period, limit: 9 })) viaSdk.push(e.source.id);
  expect(viaSdk).toEqual(entries.map((e) => e.source.id));
  expect((await skil.reports.chartOfAccounts.retrieve()).accounts).toHaveLength(13);
  const bad = await stack.api(m.testKey, '/v1/reports/journal?page=nonsense');
  expect([bad.status, bad.body.error.param]).toEqual([400, 'page']);
});

test('a closed period: its export is the same bytes ever after; a late refund lands in the next period; periods close in order', async () => {
  const m = await stack.merchant('Lokun ehf.');
  await registeredSeller(stack, m);
  const pi = await payCheckout(m, [{ description: 'Stóll', unit_amount: 12_400, vat_rate: 24 }]);
  await payCheckout(m, [{ description: 'Bók', unit_amount: 5_550, vat_rate: 11 }]);
  const period = periodOf(Date.now()).id;
  const next = nextPeriodOf(period);
  const exportOf = async (p: string, format = 'generic') => {
    const r = await fetch(`${stack.url}/v1/reports/journal.csv?period=${p}&format=${format}`, {
      headers: { authorization: `Bearer ${m.testKey}` },
    });
    expect(r.status).toBe(200);
    return r.text();
  };
  const close = (p: string) =>
    stack.api(m.testKey, `/v1/reports/periods/${p}/close`, { method: 'POST', json: {} });

  const closed = await close(period);
  expect(closed.status).toBe(200);
  expect(closed.body).toMatchObject({ object: 'books_period', id: period, status: 'closed' });
  expect(closed.body.debit).toBe(closed.body.credit);
  const before = await exportOf(period);
  const reglaBefore = await exportOf(period, 'regla');
  const types = (csv: string) =>
    [
      ...new Set(
        csv
          .trim()
          .split('\r\n')
          .slice(1)
          .map((r) => r.split(',').slice(1, 4).join(',')),
      ),
    ].map((r) => r.split(',')[1]);
  // Two sales: their invoices and payments, and the acquirer's fee on each capture.
  expect(types(before).sort()).toEqual([
    'acquirer_fee',
    'acquirer_fee',
    'invoice',
    'invoice',
    'payment',
    'payment',
  ]);
  expect(closed.body.entry_count).toBe(6);

  // A late refund, a new sale, and new account numbers: none changes the closed period's file.
  expect(
    (
      await stack.api(m.testKey, '/v1/refunds', {
        method: 'POST',
        json: { payment_intent: pi, amount: 2_480 },
      })
    ).status,
  ).toBe(200);
  await payCheckout(m, [{ description: 'Borð', unit_amount: 31_000, vat_rate: 24 }]);
  await stack.api(m.testKey, '/v1/reports/chart_of_accounts', {
    method: 'POST',
    json: { accounts: [{ role: 'receivables', number: '1200' }] },
  });
  expect(await exportOf(period)).toBe(before);
  expect(await exportOf(period, 'regla')).toBe(reglaBefore);
  const again = await new Skil(m.testKey, { baseUrl: stack.url }).reports.periods.close(period);
  expect(again.closed_at).toBe(closed.body.closed_at);
  const { entries: kept, status } = await journalOf(stack, m, period);
  expect(status).toBe('closed');
  expect(kept).toHaveLength(6);

  // The refund and its credit note are in the next period, booked on its first day, balanced.
  const { entries: later } = await journalOf(stack, m, next);
  expect(later.map((e) => e.source.type).sort()).toEqual([
    'acquirer_fee',
    'credit_note',
    'invoice',
    'payment',
    'refund',
  ]);
  expect(later.filter((e) => e.source.type === 'refund').map((e) => e.date)).toEqual([`${next}-01`]);
  expect(dayImbalance(later)).toEqual([]);
  expect(later.some((e) => e.lines.some((l) => l.account_number === '1200'))).toBe(true);
  // The VAT report follows the close: the closed period's boxes are its journal's, the late credit
  // note is in the next period's return.
  const vat = async (p: string) => (await stack.api(m.testKey, `/v1/reports/vat?period=${p}`)).body;
  expect((await vat(period)).boxes).toEqual(boxesOfJournal(kept));
  expect((await vat(period)).documents).toMatchObject({ invoice: 2, credit_note: 0 });
  expect((await vat(next)).boxes).toEqual(boxesOfJournal(later));
  expect((await vat(next)).documents).toMatchObject({ invoice: 1, credit_note: 1 });

  // Closing out of order, a closed period's predecessor, a period not begun, a bad name: 400s.
  const [y] = period.split('-');
  for (const bad of [nextPeriodOf(next), `${Number(y) - 1}-01`, '2027-02', 'x'])
    expect([(await close(bad)).status, (await close(bad)).body.error?.param]).toEqual([400, 'period']);
});

test('a refund committing while the period closes lands in exactly one period (raced 50 times)', async () => {
  const period = periodOf(Date.now()).id;
  const next = nextPeriodOf(period);
  const landed = { closed: 0, next: 0 };
  for (let i = 0; i < 50; i += 1) {
    const m = await stack.merchant(`Kapp ${i}`);
    const paid = await stack.api(m.testKey, '/v1/payment-intents', {
      method: 'POST',
      json: { amount: 1_000 + i, card: card('4242424242424242'), confirm: true },
    });
    expect(paid.body.status).toBe('succeeded');
    const pi = paid.body.id as string;
    const [refund, close] = await Promise.all([
      stack.api(m.testKey, '/v1/refunds', { method: 'POST', json: { payment_intent: pi, amount: 500 } }),
      stack.api(m.testKey, `/v1/reports/periods/${period}/close`, { method: 'POST', json: {} }),
    ]);
    expect([refund.status, close.status]).toEqual([200, 200]);
    const inClosed = (await journalOf(stack, m, period)).entries.filter(
      (e) => e.source.id === refund.body.id,
    );
    const inNext = (await journalOf(stack, m, next)).entries.filter((e) => e.source.id === refund.body.id);
    expect(inClosed.length + inNext.length).toBe(1);
    if (inClosed.length) landed.closed += 1;
    else landed.next += 1;
  }
  // Which side won each race is up to the scheduler; each refund is in one period, never two.
  expect(landed.closed + landed.next).toBe(50);
}, 120_000);

test('the dashboard pages: the VAT boxes as the API gives them, a box opened to its documents, the journal balanced a page at a time, in both languages at 390 and 1280 px with no axe finding', async () => {
  expect(built).toBeDefined();
  const { m, period, boxes } = built!;
  const browser = await launchChromium();
  try {
    const user = await createMerchantUser(stack.knex, m.id);
    const { page, context, errors, blocked } = await openPage(browser, stack.url);
    await page.goto(`${stack.url}/dashboard/sign-in`);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign in' }).click()]);
    const overflows: string[] = [];
    const findings: Record<string, unknown> = {};
    for (const lang of ['en', 'is'] as const) {
      for (const path of [`/dashboard/vat?period=${period}`, `/dashboard/vat?period=${period}&box=A`]) {
        await page.setViewportSize({ width: 1280, height: 800 });
        const res = await page.goto(`${stack.url}${path}&lang=${lang}`);
        expect(res!.status()).toBe(200);
        for (const box of ['A', 'B', 'C', 'D'] as const)
          expect((await page.getByTestId(`box-${box}`).innerText()).replace(/\s/g, ' ')).toBe(
            formatIsk(boxes[box], lang).replace(/\s/g, ' '),
          );
        for (const width of [1280, 390]) {
          await page.setViewportSize({ width, height: 800 });
          const overflow = await page.evaluate(sidewaysOverflow);
          if (overflow) overflows.push(`${path} (${lang}, ${width} px): ${overflow}`);
          const found = await accessibilityFindings(page, { everyImpact: true, bestPractices: true });
          if (found.length > 0) findings[`${path} (${lang}, ${width} px)`] = found;
        }
      }
    }
    // The box's documents as rows, their figures adding up to the box.
    const rows = await page.locator('#documents tr[data-document]').count();
    expect(rows).toBeGreaterThan(0);
    const csv = await page.request.get(`${stack.url}/dashboard/vat/export.csv?period=${period}`);
    expect(csv.status()).toBe(200);
    expect((await csv.text()).split('\r\n')[0]).toBe(
      'type,id,number,date,parent,A,B,C,D,vat_24,vat_11,out_of_scope',
    );
    // The journal beside it: whole entries a page, so each page's debits equal its credits.
    for (const lang of ['en', 'is'] as const) {
      await page.setViewportSize({ width: 1280, height: 800 });
      const res = await page.goto(`${stack.url}/dashboard/journal?period=${period}&lang=${lang}`);
      expect(res!.status()).toBe(200);
      expect(await page.getByTestId('journal-status').getAttribute('data-status')).toBe('open');
      const sum = (attr: string) =>
        page.$$eval(
          `td[${attr}]`,
          (cells, a) => cells.reduce((s, c) => s + Number(c.getAttribute(a)), 0),
          attr,
        );
      const debit = await sum('data-debit');
      expect(debit).toBeGreaterThan(0);
      expect(await sum('data-credit')).toBe(debit);
      expect(await page.locator('tr[data-entry]').count()).toBeGreaterThan(20);
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 800 });
        const overflow = await page.evaluate(sidewaysOverflow);
        if (overflow) overflows.push(`journal (${lang}, ${width} px): ${overflow}`);
        const found = await accessibilityFindings(page, { everyImpact: true, bestPractices: true });
        if (found.length > 0) findings[`journal (${lang}, ${width} px)`] = found;
      }
    }
    const more = page.getByRole('link', { name: 'Fleiri færslur' });
    if ((await more.count()) > 0) {
      await more.click();
      expect(await page.locator('tr[data-entry]').count()).toBeGreaterThan(0);
    }
    const journalCsv = await page.request.get(`${stack.url}/dashboard/journal/export.csv?period=${period}`);
    expect(journalCsv.status()).toBe(200);
    expect((await journalCsv.text()).split('\r\n')[0]).toBe(
      'date,entry,source_type,source_id,reference,account_number,account_name,account,debit,credit',
    );
    // The page's Regla download (decision 0260) is the API's file for the same period.
    const reglaHref = await page
      .getByRole('link', { name: 'Fyrir Reglu (CSV til innlestrar)' })
      .getAttribute('href');
    const reglaCsv = await page.request.get(`${stack.url}${reglaHref}`);
    expect(reglaCsv.status()).toBe(200);
    const reglaApi = await fetch(`${stack.url}/v1/reports/journal.csv?period=${period}&format=regla`, {
      headers: { authorization: `Bearer ${m.testKey}` },
    });
    expect(await reglaCsv.text()).toBe(await reglaApi.text());
    // Signed out, the books pages send to the sign-in page.
    for (const path of ['/dashboard/journal', '/dashboard/vat']) {
      const anon = await fetch(`${stack.url}${path}`, { redirect: 'manual' });
      expect([anon.status, anon.headers.get('location')]).toEqual([303, expect.stringContaining('/sign-in')]);
    }

    const bad = await page.goto(`${stack.url}/dashboard/vat?period=2027-02`);
    expect(bad!.status()).toBe(400);
    expect(overflows).toEqual([]);
    expect(findings).toEqual({});
    expect(errors.filter((e) => !/status of 400/.test(e))).toEqual([]);
    expect(blocked).toEqual([]);
    await context.close();
  } finally {
    await browser.close();
  }
}, 90_000);
