/**
 * Invoices (decision 0139): a test-clock year of a monthly subscription gives one invoice
 * per charge, numbered without gaps in the merchant's test sequence while checkout sales take
 * numbers in between; each e-invoice passes the suite's EN 16931 / Peppol BIS 3 / TS-236 rules
 * (test/helpers/einvoice-rules.ts) and its VAT per rate equals an independent sum; a refund gives a
 * valid credit note; concurrent finalisation never leaves a gap or a duplicate.
 */
import { sharedTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { until } from '../helpers/until';
import { checkEInvoice } from '../helpers/einvoice-rules';

let stack: TestStack;

beforeAll(async () => {
  // A real base URL: the API reaches its simulated acquirer over HTTP to tokenize the test card.
  stack = await sharedTestStack();
});
afterAll(async () => {
  await stack?.stop();
});

const unixOf = (ms: number) => Math.floor(ms / 1000);
const T0 = Date.UTC(2026, 0, 31, 12, 0, 0);
/** The anchor's day each month, as the billing calendar keeps it (Jan 31 → Feb 28 → Mar 31 …). */
const monthAfter = (n: number) => {
  const d = new Date(Date.UTC(2026, n + 1, 0, 12, 0, 0));
  return d.getTime();
};

interface Line {
  description: string;
  quantity: number;
  unit_amount: number;
  amount: number;
  vat_rate: number;
}
interface Invoice {
  id: string;
  number: string;
  sequence: number;
  payment_intent: string;
  subscription: string | null;
  lines: Line[];
  vat: { rate: number; taxable_amount: number; vat_amount: number; amount: number }[];
  total: number;
  total_vat: number;
  seller: { kennitala: string; vat_number: string | null };
}

/** VAT in a VAT-inclusive ISK amount, half up, with integers only (independent of domain/vat.ts). */
const vatIn = (gross: number, rate: number) => {
  const n = BigInt(gross) * BigInt(rate) * 2n + BigInt(100 + rate);
  return Number(n / (2n * BigInt(100 + rate)));
};

function expectVatPerRate(inv: Invoice) {
  const gross = new Map<number, number>();
  for (const l of inv.lines) gross.set(l.vat_rate, (gross.get(l.vat_rate) ?? 0) + l.amount);
  const expected = [...gross.entries()]
    .sort(([a], [b]) => a - b)
    .map(([rate, amount]) => ({ rate, amount, vat_amount: vatIn(amount, rate) }));
  expect(inv.vat.map(({ rate, amount, vat_amount }) => ({ rate, amount, vat_amount }))).toEqual(expected);
  expect(inv.total).toBe(inv.lines.reduce((s, l) => s + l.amount, 0));
  expect(inv.total_vat).toBe(expected.reduce((s, v) => s + v.vat_amount, 0));
}

async function seller(m: TestMerchant) {
  const res = await stack.api(m.testKey, '/v1/merchant', {
    method: 'PATCH',
    json: {
      name: 'Kaffibrennslan ehf.',
      merchant_type: 'company',
      kennitala: '5501692829',
      legal_address: { street: 'Laugavegur 1', city: 'Reykjavík', postalCode: '101', country: 'IS' },
      bank_account: '0133-26-012345',
      vat_number: '123456',
      default_vat_rate: 11,
    },
  });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ vat_number: '123456', default_vat_rate: 11 });
}

async function allInvoices(key: string): Promise<Invoice[]> {
  const out: Invoice[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await stack.api(key, `/v1/invoices?limit=100${after ? `&starting_after=${after}` : ''}`);
    expect(page.status).toBe(200);
    out.push(...(page.body.data as Invoice[]));
    if (!page.body.has_more) return out;
    after = out[out.length - 1]!.id;
  }
}

async function ubl(key: string, path: string) {
  const res = await fetch(`${stack.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/xml/);
  return res.text();
}

async function payCheckout(key: string, json: Record<string, unknown>) {
  const s = await stack.api(key, '/v1/checkout/sessions', { method: 'POST', json });
  expect(s.status).toBe(200);
  const done = await stack.api(key, `/v1/test_helpers/checkout/sessions/${s.body.id}/complete`, {
    method: 'POST',
    json: {},
  });
  expect(done.status).toBe(200);
  return done.body as { payment_intent: string };
}

test('a test-clock year of a monthly subscription: one valid invoice per charge, numbered without gaps between sales', async () => {
  const m = await stack.merchant();
  await seller(m);
  const api = (path: string, init?: Parameters<TestStack['api']>[2]) => stack.api(m.testKey, path, init);
  const product = await api('/v1/products', { method: 'POST', json: { name: 'Kaffiáskrift', vat_rate: 11 } });
  const price = await api('/v1/prices', {
    method: 'POST',
    json: { product: product.body.id, unit_amount: 4990, recurring: { interval: 'month' } },
  });
  const clock = await api('/v1/test_helpers/test_clocks', {
    method: 'POST',
    json: { frozen_time: unixOf(T0), name: 'invoice year' },
  });
  const customer = await api('/v1/customers', {
    method: 'POST',
    json: {
      test_clock: clock.body.id,
      name: 'Jón Jónsson',
      email: 'jon@example.is',
      kennitala: '0101302989',
      address: { line1: 'Hverfisgata 4', postal_code: '101', city: 'Reykjavík', country: 'IS' },
      // A person's kennitala: a business buyer (with e-invoices) only when marked so (decision 0210).
      business: true,
    },
  });
  expect(customer.status).toBe(200);
  expect(customer.body.einvoice).toBe(true);
  const card = await api('/v1/payment-methods', {
    method: 'POST',
    json: {
      card: { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' },
      customer: customer.body.id,
    },
  });
  const sub = await api('/v1/subscriptions', {
    method: 'POST',
    json: { customer: customer.body.id, price: price.body.id, default_payment_method: card.body.id },
  });
  expect(sub.status).toBe(200);
  await until(
    () => api(`/v1/subscriptions/${sub.body.id}`),
    (r) => r.body.status === 'active',
  );

  // Twelve renewals; a sale with two VAT rates and an amount-only sale between each.
  for (let month = 1; month <= 12; month++) {
    if (month % 2 === 1)
      await payCheckout(m.testKey, {
        customer: customer.body.id,
        currency: 'ISK',
        success_url: 'https://shop.example/ok',
        items: [
          { description: 'Baunir 1 kg', quantity: 2, unit_amount: 3490, vat_rate: 11 },
          { description: 'Kvörn', quantity: 1, unit_amount: 12990, vat_rate: 24 },
        ],
      });
    else
      await payCheckout(m.testKey, {
        customer: customer.body.id,
        amount: 1500,
        currency: 'ISK',
        success_url: 'https://shop.example/ok',
      });
    const advance = await api(`/v1/test_helpers/test_clocks/${clock.body.id}/advance`, {
      method: 'POST',
      json: { frozen_time: unixOf(monthAfter(month) + 3_600_000) },
    });
    expect(advance.status).toBe(200);
    await until(
      () => api(`/v1/test_helpers/test_clocks/${clock.body.id}`),
      (r) => r.body.status === 'ready',
      60_000,
    );
  }

  const intents = (
    (await api(`/v1/payment-intents?customer=${customer.body.id}&limit=100`)).body.data as {
      id: string;
      status: string;
      subscription: string | null;
    }[]
  ).filter((i) => i.subscription === sub.body.id);
  expect(intents.filter((i) => i.status === 'succeeded')).toHaveLength(13);
  const invoices = await allInvoices(m.testKey);
  const ofSub = invoices.filter((i) => i.subscription === sub.body.id);
  // One invoice per charge, and each charge's invoice names it.
  expect(ofSub.map((i) => i.payment_intent).sort()).toEqual(intents.map((i) => i.id).sort());
  expect(invoices).toHaveLength(13 + 12);
  // One unbroken sequence 1…25 in the merchant's test environment.
  expect(invoices.map((i) => i.sequence).sort((a, b) => a - b)).toEqual(
    Array.from({ length: 25 }, (_, i) => i + 1),
  );
  expect(new Set(invoices.map((i) => i.number)).size).toBe(25);
  for (const inv of invoices) {
    expect(inv.seller).toMatchObject({ kennitala: '5501692829', vat_number: '123456' });
    expectVatPerRate(inv);
    const xml = await ubl(m.testKey, `/v1/invoices/${inv.id}/ubl`);
    expect(checkEInvoice(xml)).toEqual([]);
  }
  // The amount-only sales took the merchant's default VAT rate.
  const amountOnly = invoices.filter((i) => i.total === 1500);
  expect(amountOnly).toHaveLength(6);
  for (const inv of amountOnly) expect(inv.lines.map((l) => l.vat_rate)).toEqual([11]);
  // Both rates of the mixed sales are broken down.
  const mixed = invoices.find((i) => i.lines.length === 2)!;
  expect(mixed.vat.map((v) => v.rate)).toEqual([11, 24]);

  // A refund gives a credit note referencing the invoice, numbered next, valid as a CreditNote.
  const refunded = ofSub[0]!;
  const refund = await api(`/v1/payment-intents/${refunded.payment_intent}/refund`, {
    method: 'POST',
    json: { amount: 1000 },
  });
  expect(refund.status).toBe(200);
  const notes = await api(`/v1/credit-notes?invoice=${refunded.id}`);
  expect(notes.status).toBe(200);
  expect(notes.body.data).toHaveLength(1);
  const note = notes.body.data[0];
  expect(note).toMatchObject({
    object: 'credit_note',
    invoice: refunded.id,
    refund: refund.body.id,
    total: 1000,
  });
  expect(note.sequence).toBe(26);
  expect((await api(`/v1/credit-notes/${note.id}`)).body.id).toBe(note.id);
  const noteXml = await ubl(m.testKey, `/v1/credit-notes/${note.id}/ubl`);
  expect(noteXml).toContain('<CreditNote');
  expect(noteXml).toContain(refunded.number);
  expect(checkEInvoice(noteXml)).toEqual([]);
}, 120_000);

test('concurrent finalisation leaves neither a gap nor a duplicate number', async () => {
  const m = await stack.merchant();
  await seller(m);
  const other = await stack.merchant();
  await seller(other);
  for (let round = 0; round < 3; round++) {
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        payCheckout(i % 3 === 0 ? other.testKey : m.testKey, {
          amount: 1000 + i,
          currency: 'ISK',
          success_url: 'https://shop.example/ok',
        }),
      ),
    );
  }
  const mine = await allInvoices(m.testKey);
  const theirs = await allInvoices(other.testKey);
  expect(mine.map((i) => i.sequence).sort((a, b) => a - b)).toEqual(
    Array.from({ length: 24 }, (_, i) => i + 1),
  );
  expect(theirs.map((i) => i.sequence).sort((a, b) => a - b)).toEqual(
    Array.from({ length: 12 }, (_, i) => i + 1),
  );
}, 120_000);
