/**
 * The journal against the VAT report (decision 0239), as a property: for random sequences of the
 * operations a merchant's books see — checkout sales with lines at every rate and category, credit
 * notes for part or all of them, till sales paid in cash or by card and refunded in part, captures
 * with fees, card refunds, disputes lost and won, kröfur with the bank's charge, reversals and
 * payouts — built as the database returns them, every day of the journal balances and its sales and
 * VAT equal the VAT report's. Both sides go through the service functions the API uses
 * (`figuresOf`, `journalSourceOf`), so this is the code that runs, without a database.
 */
import fc from 'fast-check';
import { creditLines, invoiceAmounts } from '../../domain/invoices';
import { addFigures, ZERO_FIGURES } from '../../domain/vat-report';
import { dayImbalances, journalLines, journalVatFigures, debitOf, creditOf } from '../../domain/journal';
import { figuresOf } from '../../services/books/vat-report';
import { journalSourceOf } from '../../services/books/journal';
import type { JournalSourceRow } from '../../db/journal';
import type { VatRate } from '../../domain/vat';
import type { VatCategory } from '../../domain/vat-box';

/** How many random sequences each property runs: stated here, as the suite's bound counts it. */
const RUNS = 300;

/** A line at a rate with a category that fits it (decision 0234), or none (derived). */
const saleLine = fc
  .record({
    unit_amount: fc.integer({ min: 1, max: 500_000 }),
    quantity: fc.integer({ min: 1, max: 5 }),
    vat_rate: fc.constantFrom<VatRate>(24, 11, 0),
    pick: fc.integer({ min: 0, max: 3 }),
  })
  .map(({ pick, ...l }) => {
    const fits: (VatCategory | undefined)[] =
      l.vat_rate === 0 ? [undefined, 'Z', 'E', 'O'] : [undefined, 'S'];
    return { ...l, vat_category: fits[pick % fits.length] };
  });

const op = fc.oneof(
  fc.record({
    kind: fc.constant('invoice' as const),
    lines: fc.array(saleLine, { minLength: 1, maxLength: 4 }),
    credit: fc.option(fc.double({ min: 0.01, max: 1, noNaN: true })),
    dispute: fc.constantFrom('none', 'lost', 'won'),
  }),
  fc.record({
    kind: fc.constant('pos' as const),
    lines: fc.array(saleLine, { minLength: 1, maxLength: 4 }),
    cashShare: fc.double({ min: 0, max: 1, noNaN: true }),
    refund: fc.option(fc.double({ min: 0.01, max: 1, noNaN: true })),
    refundCash: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('krafa' as const),
    amount: fc.integer({ min: 100, max: 900_000 }),
    cost: fc.integer({ min: 0, max: 300 }),
    reversed: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('payment' as const), amount: fc.integer({ min: 1, max: 900_000 }) }),
  fc.record({ kind: fc.constant('payout' as const), amount: fc.integer({ min: 1, max: 2_000_000 }) }),
);

const day = fc.integer({ min: 0, max: 60 });

let seq = 0;
function row(type: JournalSourceRow['type'], at: Date, fields: Partial<JournalSourceRow>): JournalSourceRow {
  seq += 1;
  return {
    type,
    id: `${type}_${seq}`,
    at,
    at_us: at.getTime() * 1000,
    rank: 0,
    reference: null,
    lines: null,
    vat: null,
    amount: null,
    fee: null,
    cash: null,
    parent: null,
    ...fields,
  };
}

/** The rows one operation leaves, as the journal's query returns them. */
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;
function rowsOf(o: Op, at: Date): JournalSourceRow[] {
  const fee = (amount: number) => Math.floor(amount / 50);
  switch (o.kind) {
    case 'invoice': {
      const inv = invoiceAmounts(o.lines.map((l) => ({ description: 'x', ...l })));
      const lines = inv.lines;
      const rows = [
        row('invoice', at, { lines, vat: inv.vat }),
        row('payment', at, { amount: inv.total, fee: fee(inv.total) }),
        row('acquirer_fee', at, { amount: 7 }),
      ];
      if (o.credit !== null && inv.total > 0) {
        const amount = Math.max(1, Math.round(inv.total * o.credit));
        const cn = invoiceAmounts(creditLines(inv, amount, 'credit'));
        rows.push(row('credit_note', at, { lines: cn.lines, vat: cn.vat }), row('refund', at, { amount }));
      }
      if (o.dispute !== 'none') rows.push(row('dispute', at, { amount: inv.total }));
      if (o.dispute === 'won')
        rows.push(row('dispute_won', new Date(at.getTime() + 86_400_000), { amount: inv.total }));
      return rows;
    }
    case 'pos': {
      const lines = o.lines.map((l) => ({
        vat_rate: l.vat_rate,
        vat_category: l.vat_category ?? null,
        amount: l.unit_amount * l.quantity,
      }));
      const total = lines.reduce((s, l) => s + l.amount, 0);
      const cash = Math.round(total * o.cashShare);
      const rows = [row('pos_sale', at, { lines, cash })];
      if (cash < total) rows.push(row('payment', at, { amount: total - cash, fee: fee(total - cash) }));
      if (o.refund !== null) {
        const amount = Math.max(1, Math.round(total * o.refund));
        rows.push(row('pos_refund', at, { lines, amount, cash: o.refundCash ? amount : 0 }));
        if (!o.refundCash) rows.push(row('refund', at, { amount }));
      }
      return rows;
    }
    case 'krafa': {
      const inv = invoiceAmounts([
        { description: 'krafa', quantity: 1, unit_amount: o.amount, vat_rate: 24 },
      ]);
      const rows = [
        row('invoice', at, { lines: inv.lines, vat: inv.vat }),
        row('payment', new Date(at.getTime() + 3 * 86_400_000), { amount: o.amount, fee: 0 }),
      ];
      if (o.cost > 0)
        rows.push(row('bank_cost', new Date(at.getTime() + 3 * 86_400_000), { amount: o.cost }));
      if (o.reversed)
        rows.push(row('reversal', new Date(at.getTime() + 4 * 86_400_000), { amount: o.amount }));
      return rows;
    }
    case 'payment':
      return [row('payment', at, { amount: o.amount, fee: fee(o.amount) })];
    case 'payout':
      return [row('payout', at, { amount: o.amount })];
  }
}

const start = Date.UTC(2027, 0, 1);

test(`every journal day balances, and its sales and VAT are the VAT report's (${RUNS} random sequences)`, () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(op, day, fc.integer({ min: 0, max: 86_399_999 })), { maxLength: 40 }),
      fc.boolean(),
      (ops, registered) => {
        const seller = { registered };
        const rows = ops.flatMap(([o, d, ms]) => rowsOf(o, new Date(start + d * 86_400_000 + ms)));
        const entries = rows.map((r) => ({
          date: r.at.toISOString().slice(0, 10),
          lines: journalLines(journalSourceOf(r, seller)),
        }));
        for (const e of entries) {
          expect(e.lines.every((l) => Number.isSafeInteger(l.amount) && l.amount !== 0)).toBe(true);
          expect(e.lines.reduce((s, l) => s + debitOf(l) - creditOf(l), 0)).toBe(0);
        }
        expect([...dayImbalances(entries).values()].filter((v) => v !== 0)).toEqual([]);
        // The VAT report as the report service sums it: its documents' figures.
        const report = { ...ZERO_FIGURES };
        for (const r of rows)
          if (
            r.type === 'invoice' ||
            r.type === 'credit_note' ||
            r.type === 'pos_sale' ||
            r.type === 'pos_refund'
          )
            addFigures(
              report,
              figuresOf(
                {
                  kind: r.type,
                  id: r.id,
                  number: null,
                  at: r.at,
                  lines: r.lines!,
                  vat: r.vat,
                  amount: r.amount,
                  parent: null,
                },
                seller,
              ),
            );
        expect(journalVatFigures(entries)).toEqual(report);
      },
    ),
    { numRuns: RUNS, seed: 4242 },
  );
});

test(`what the journal moves through Skil's balance: sales paid less fees, refunds, disputes, costs and payouts (${RUNS} runs)`, () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(op, day), { maxLength: 30 }), (ops) => {
      const rows = ops.flatMap(([o, d]) => rowsOf(o, new Date(start + d * 86_400_000)));
      const balance = { ...ZERO_FIGURES, skil: 0 };
      let expected = 0;
      for (const r of rows) {
        for (const l of journalLines(journalSourceOf(r, { registered: true })))
          if (l.account === 'skil_balance') balance.skil += l.amount;
        const a = r.amount ?? 0;
        if (r.type === 'payment') expected += a - (r.fee ?? 0);
        if (['refund', 'reversal', 'dispute', 'acquirer_fee', 'bank_cost', 'payout'].includes(r.type))
          expected -= a;
        if (r.type === 'dispute_won') expected += a;
      }
      // The settlement's own arithmetic (gross − fee = net per line) gives the same balance.
      expect(balance.skil).toBe(expected);
    }),
    { numRuns: RUNS, seed: 4243 },
  );
});
