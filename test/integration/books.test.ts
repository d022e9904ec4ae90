/**
 * Issue 42, the merchant's books (decision 0238). A two-month VAT period built through the real
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

let stack: TestStack;
/** The merchant whose period the first test builds, for the dashboard test. */
let built: { m: TestMerchant; period: string; boxes: Boxes } | undefined;

beforeAll(async () => {
  stack = await sharedTestStack();
});
afterAll(async () => {
  await stack?.stop();
});

const CLAIMANT = '5510730339';
const PERSON = '1201603389';
const card = (number: string) => ({ number, exp_month: 12, exp_year: 2034, cvc: '123' });
const unixOf = (ms: number) => Math.floor(ms / 1000);

/** VAT in a VAT-inclusive amount, half up, in integers (independent of domain/vat.ts). */
const vatIn = (gross: number, rate: number) =>
  Number((BigInt(gross) * BigInt(rate) * 2n + BigInt(100 + rate)) / (2n * BigInt(100 + rate)));

interface Boxes {
  A: number;
  B: number;
  C: number;
  D: number;
  vat_24: number;
  vat_11: number;
  out_of_scope: number;
}
const zero = (): Boxes => ({ A: 0, B: 0, C: 0, D: 0, vat_24: 0, vat_11: 0, out_of_scope: 0 });

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

/** The two-month period that holds `ms`, as the API names it, with its first instant. */
function periodOf(ms: number) {
  const d = new Date(ms);
  const first = d.getUTCMonth() - (d.getUTCMonth() % 2);
  return {
    id: `${d.getUTCFullYear()}-${String(first + 1).padStart(2, '0')}`,
    start: Date.UTC(d.getUTCFullYear(), first, 1),
    end: Date.UTC(d.getUTCFullYear(), first + 2, 1),
  };
}

async function registeredSeller(m: TestMerchant) {
  const res = await stack.api(m.testKey, '/v1/merchant', {
    method: 'PATCH',
    json: {
      merchant_type: 'company',
      kennitala: CLAIMANT,
      legal_address: { street: 'Laugavegur 1', city: 'Reykjavík', postalCode: '101', country: 'IS' },
      bank_account: '0133-26-012345',
      vat_number: '123456',
      default_vat_rate: 24,
    },
  });
  expect(res.status).toBe(200);
  expect(res.body.vat_period).toBe('two_month');
}

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
  lines: { vat_rate: number; amount: number }[];
}

test('a two-month period through checkout, krafa, till, refunds, a lost dispute and a renewal with a coupon: every box equals an independent computation', async () => {
  const m = await stack.merchant('Bókabúðin ehf.');
  await registeredSeller(m);
  const { get, post, all } = client(m);
  const period = periodOf(Date.now());

  // Card sales on the hosted checkout at 24 %, 11 % and 0 % (zero-rated: an export).
  const pi24 = await payCheckout(m, [
    { description: 'Kaffivél', unit_amount: 24_990, vat_rate: 24 },
    { description: 'Bók', unit_amount: 4_490, quantity: 2, vat_rate: 11 },
  ]);
  const pi11 = await payCheckout(m, [{ description: 'Kaffibaunir', unit_amount: 3_333, vat_rate: 11 }]);
  const pi0 = await payCheckout(m, [{ description: 'Útflutningur', unit_amount: 50_000, vat_rate: 0 }]);
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
  expect((await device(`/v1/pos/sales/${single}/refunds`, { method: 'cash', amount: 999 })).status).toBe(200);

  // The independent computation, from the documents as the API lists them.
  const inPeriod = (unix: number) => unix * 1000 >= period.start && unix * 1000 < period.end;
  const expected = zero();
  const credits = zero();
  const invoices = (await all<Doc>('/v1/invoices')).filter((d) => inPeriod(d.issued_at ?? d.created));
  const notes = (await all<Doc>('/v1/credit-notes')).filter((d) => inPeriod(d.issued_at ?? d.created));
  // 4 checkout sales, the krafa's, and the subscription's two periods.
  expect(invoices).toHaveLength(6);
  expect(notes).toHaveLength(2);
  for (const i of invoices) addDocument(expected, perRate(i.lines), 1);
  for (const n of notes) {
    addDocument(expected, perRate(n.lines), -1);
    addDocument(credits, perRate(n.lines), -1);
  }
  const tillSales = [
    perRate([
      { vat_rate: 11, amount: 1_950 },
      { vat_rate: 24, amount: 2_490 },
    ]),
    perRate([{ vat_rate: 24, amount: 1_999 }]),
    perRate([{ vat_rate: 11, amount: 2_580 }]),
  ];
  for (const s of tillSales) addDocument(expected, s, 1);
  // The full refund reverses the mixed sale; the part of the single-rate one is 999 at 24 %.
  for (const r of [tillSales[0]!, perRate([{ vat_rate: 24, amount: 999 }])]) {
    addDocument(expected, r, -1);
    addDocument(credits, r, -1);
  }

  const report = await get(`/v1/reports/vat?period=${period.id}`);
  expect(report).toMatchObject({
    object: 'vat_report',
    period: { id: period.id, kind: 'two_month' },
    vat_period: 'two_month',
    vat_number: '123456',
    documents: { invoice: 6, credit_note: 2, pos_sale: 3, pos_refund: 2 },
  });
  expect(report.boxes).toEqual(expected);
  expect(report.credits).toEqual(credits);
  built = { m, period: period.id, boxes: report.boxes };
  expect(report.boxes.C).toBe(50_000);
  expect(report.boxes.out_of_scope).toBe(0);

  // Every box opens to the documents behind it, and they add up to it.
  for (const box of ['A', 'B', 'C', 'D'] as const) {
    const docs = await all<{ id: string; type: string; figures: Boxes }>(
      `/v1/reports/vat/documents?period=${period.id}&box=${box}`,
    );
    expect(docs.reduce((s, d) => s + d.figures[box], 0)).toBe(report.boxes[box]);
    expect(docs.every((d) => d.figures[box] !== 0)).toBe(true);
  }
  const everything = await all<{ id: string; type: string }>(`/v1/reports/vat/documents?period=${period.id}`);
  expect(everything).toHaveLength(13);
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
  expect(rows).toHaveLength(1 + 13 + 1);
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

test('the dashboard page: the boxes as the API gives them, a box opened to its documents, in both languages at 390 and 1280 px with no axe finding', async () => {
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
