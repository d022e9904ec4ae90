/**
 * The journal against the VAT report (decision 0239) as a property of the real paths: for random
 * sequences of what a merchant does through the API — hosted-checkout sales with lines at 24 %,
 * 11 % and 0 % (zero-rated, exempt or outside the scope), card refunds of part or all of them, till
 * sales paid in cash and refunded in part or in full, card payments disputed and lost — every day of
 * the period's journal balances, and its sales and VAT equal `GET /v1/reports/vat`'s boxes. Each
 * sequence is a new registered seller. test/unit/journal.test.ts holds the same property over
 * generated database rows, many more times than the API can afford here.
 */
import fc from 'fast-check';
import { sharedTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { setPos, setUpTill } from '../helpers/pos';
import { until } from '../helpers/until';
import { boxesOfJournal, dayImbalance, journalOf, periodOf, registeredSeller } from '../helpers/books';

/** How many random sequences run through the API: stated here, as the suite's bound counts it. */
const RUNS = 8;

let stack: TestStack;
beforeAll(async () => {
  stack = await sharedTestStack();
});
afterAll(async () => {
  await stack?.stop();
});

const amounts = {
  unit_amount: fc.integer({ min: 1, max: 250_000 }),
  quantity: fc.integer({ min: 1, max: 3 }),
};
/** A taxable line at 24 %, 11 % or 0 % (zero-rated), its category given or derived (decision 0234). */
const taxableLine = fc
  .record({ ...amounts, vat_rate: fc.constantFrom(24, 11, 0), given: fc.boolean() })
  .map(({ given, ...l }) => ({
    description: 'Vara',
    ...l,
    ...(given && { vat_category: l.vat_rate === 0 ? 'Z' : 'S' }),
  }));
/** A line exempt from VAT (E, naming why, EN 16931 BT-120) or outside its scope (O). */
const untaxedLine = (category: 'E' | 'O') =>
  fc.record(amounts).map((l) => ({
    description: 'Vara',
    ...l,
    vat_rate: 0,
    vat_category: category,
    ...(category === 'E' && { vat_exemption_reason: 'Kennsla (2. gr. laga nr. 50/1988)' }),
  }));
/** A sale's lines: taxable ones, or exempt ones, or ones outside the scope — one kind per invoice. */
const saleLines = fc.oneof(
  fc.array(taxableLine, { minLength: 1, maxLength: 3 }),
  fc.array(untaxedLine('E'), { minLength: 1, maxLength: 2 }),
  fc.array(untaxedLine('O'), { minLength: 1, maxLength: 2 }),
);
/** Part of a sale to refund: a share of its total, or all of it (1). */
const refundShare = fc.option(fc.constantFrom(0.1, 0.5, 0.99, 1), { nil: null });

const checkout = fc.record({
  kind: fc.constant('checkout' as const),
  lines: saleLines,
  refund: refundShare,
});
const till = fc.record({
  kind: fc.constant('till' as const),
  // The till's lines carry a rate only (the category is derived).
  lines: fc.array(
    taxableLine.map(({ vat_category: _category, ...l }) => l),
    { minLength: 1, maxLength: 3 },
  ),
  refund: refundShare,
});
const dispute = fc.record({
  kind: fc.constant('dispute' as const),
  amount: fc.integer({ min: 100, max: 90_000 }),
});
/** Each kind at least once, then up to three more of any, in a random order. */
const sequence = fc
  .tuple(checkout, till, dispute, fc.array(fc.oneof(checkout, till, dispute), { maxLength: 3 }))
  .chain(([c, t, d, more]) => {
    const all = [c, t, d, ...more];
    return fc.shuffledSubarray(all, { minLength: all.length });
  });
type Operation = typeof sequence extends fc.Arbitrary<(infer T)[]> ? T : never;

const card = (number: string) => ({ number, exp_month: 12, exp_year: 2034, cvc: '123' });
const totalOf = (lines: { unit_amount: number; quantity: number }[]) =>
  lines.reduce((sum, l) => sum + l.unit_amount * l.quantity, 0);
/** The refund's amount, or undefined for all of it. */
const refundAmount = (total: number, share: number) =>
  share === 1 ? undefined : Math.max(1, Math.floor(total * share));

async function ok(res: Promise<{ status: number; body: any; text: string }>, what: string) {
  const r = await res;
  if (r.status !== 200) throw new Error(`${what}: ${r.status} ${r.text}`);
  return r.body;
}

/** Runs the operations as merchant `m`: the checkout, the till and the acquirer's dispute, each its own way. */
async function perform(m: TestMerchant, ops: Operation[]): Promise<void> {
  const post = (path: string, json: unknown, key = m.testKey) =>
    ok(stack.api(key, path, { method: 'POST', json }), path);
  let till: { sell: (lines: unknown[], total: number) => Promise<string>; credential: string } | undefined;
  const openTill = async () => {
    await setPos(stack, m.id, true);
    const t = await setUpTill(stack, m.testKey);
    await post('/v1/pos/sign_in', { staff: t.manager.id, pin: t.managerPin }, t.credential);
    await post(`/v1/pos/registers/${t.register.id}/shift/open`, { opening_float: 0 }, t.credential);
    const sell = async (lines: unknown[], total: number) =>
      (
        await post(
          `/v1/pos/registers/${t.register.id}/sales`,
          { lines, payments: [{ method: 'cash', amount: total }] },
          t.credential,
        )
      ).id as string;
    return { sell, credential: t.credential };
  };

  for (const op of ops) {
    if (op.kind === 'checkout') {
      const session = await post('/v1/checkout/sessions', { items: op.lines });
      const done = await post(`/v1/test_helpers/checkout/sessions/${session.id}/complete`, {});
      if (op.refund !== null) {
        const amount = refundAmount(totalOf(op.lines), op.refund);
        await post('/v1/refunds', { payment_intent: done.payment_intent, ...(amount && { amount }) });
      }
    } else if (op.kind === 'till') {
      till ??= await openTill();
      const sale = await till.sell(op.lines, totalOf(op.lines));
      if (op.refund !== null) {
        const amount = refundAmount(totalOf(op.lines), op.refund);
        await post(
          `/v1/pos/sales/${sale}/refunds`,
          { method: 'cash', ...(amount && { amount }) },
          till.credential,
        );
      }
    } else {
      // The acquirer's test card that is disputed after the capture; the merchant accepts the loss.
      const paid = await post('/v1/payment-intents', {
        amount: op.amount,
        card: card('4000000000000259'),
        confirm: true,
      });
      const disputes = await until(
        () => stack.api(m.testKey, `/v1/disputes?payment_intent=${paid.id}`),
        (r) => r.body.data?.length === 1,
      );
      await post(`/v1/disputes/${disputes.body.data[0].id}/close`, {});
    }
  }
}

test(`for ${RUNS} random sequences of sales, refunds, till sales and lost disputes through the API, every journal day balances and its sales and VAT are the VAT report's`, async () => {
  let runs = 0;
  await fc.assert(
    fc.asyncProperty(sequence, async (ops) => {
      runs += 1;
      const m = await stack.merchant(`Eiginleiki ${runs}`);
      await registeredSeller(stack, m);
      const period = periodOf(Date.now()).id;
      await perform(m, ops);
      const report = await ok(stack.api(m.testKey, `/v1/reports/vat?period=${period}`), 'VAT report');
      const { entries } = await journalOf(stack, m, period, 7);
      // Every kind was booked: the sales, the till's sales and the lost dispute.
      const sources = new Set(entries.map((e) => e.source.type));
      for (const t of ['invoice', 'pos_sale', 'dispute']) expect(sources).toContain(t);
      expect(dayImbalance(entries)).toEqual([]);
      expect(boxesOfJournal(entries)).toEqual(report.boxes);
    }),
    { numRuns: RUNS },
  );
  expect(runs).toBe(RUNS);
}, 120_000);
