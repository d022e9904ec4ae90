import type { VatFigures } from './vat-report';

/**
 * The accounts a merchant's journal posts to (decision 0239), by what they are; the merchant gives
 * each its own number in its chart of accounts.
 */
export const ACCOUNT_ROLES = [
  'sales_24',
  'sales_11',
  'sales_zero_rated',
  'sales_out_of_scope',
  'output_vat_24',
  'output_vat_11',
  'receivables',
  'skil_balance',
  'cash',
  'bank',
  'payment_fees',
  'bank_charges',
  'dispute_losses',
] as const;
export type AccountRole = (typeof ACCOUNT_ROLES)[number];

export interface AccountDefault {
  number: string;
  is: string;
  en: string;
}

/**
 * Skil's default numbers and names: a starting point that says what each account holds, not a
 * standard chart (decision 0239); the merchant's bookkeeper maps them to its own.
 */
export const DEFAULT_ACCOUNTS: Readonly<Record<AccountRole, AccountDefault>> = {
  sales_24: { number: '3010', is: 'Sala í 24% VSK', en: 'Sales at 24 % VAT' },
  sales_11: { number: '3020', is: 'Sala í 11% VSK', en: 'Sales at 11 % VAT' },
  sales_zero_rated: { number: '3030', is: 'Undanþegin sala (0%)', en: 'Zero-rated sales' },
  sales_out_of_scope: { number: '3040', is: 'Sala utan VSK', en: 'Sales outside the scope of VAT' },
  output_vat_24: { number: '2861', is: 'Útskattur 24%', en: 'Output VAT 24 %' },
  output_vat_11: { number: '2862', is: 'Útskattur 11%', en: 'Output VAT 11 %' },
  receivables: { number: '1210', is: 'Viðskiptakröfur', en: 'Accounts receivable' },
  skil_balance: { number: '1290', is: 'Inneign hjá Skil', en: 'Balance held by Skil' },
  cash: { number: '1610', is: 'Sjóður (kassi)', en: 'Cash in the till' },
  bank: { number: '1620', is: 'Bankareikningur', en: 'Bank account' },
  payment_fees: { number: '7810', is: 'Færslugjöld', en: 'Payment fees' },
  bank_charges: { number: '7820', is: 'Kostnaður vegna krafna', en: 'Krafa bank charges' },
  dispute_losses: { number: '7830', is: 'Endurkröfur korthafa', en: 'Card disputes' },
};

/**
 * What a journal entry is made from: one source document or money movement (decision 0239).
 * Sales documents carry the figures the VAT report gives them (domain/vat-report.ts), so the
 * journal's sales and VAT are the report's by construction; `cash` is the part a till sale was
 * paid, or a till refund given back, in cash.
 */
export type JournalSource =
  | { type: 'invoice' | 'credit_note' | 'pos_sale' | 'pos_refund'; figures: VatFigures; cash: number }
  /** A captured payment: the amount captured and Skil's fee on it. */
  | { type: 'payment'; amount: number; fee: number }
  /** A card refund, or a krafa refunded to the payer. */
  | { type: 'refund'; amount: number }
  /** A paid krafa the payer's bank reversed (a positive amount). */
  | { type: 'reversal'; amount: number }
  /** A card dispute's amount withdrawn, and paid back when the merchant won it. */
  | { type: 'dispute'; amount: number }
  | { type: 'dispute_won'; amount: number }
  /** Costs on top: the acquirer's fee on a capture, the bank's charge for a krafa payment. */
  | { type: 'acquirer_fee'; amount: number }
  | { type: 'bank_cost'; amount: number }
  /** Money paid out to the merchant's bank account. */
  | { type: 'payout'; amount: number };

export type JournalSourceType = JournalSource['type'];

/** One line of an entry: a debit when `amount` is positive, a credit when negative. */
export interface JournalLine {
  account: AccountRole;
  amount: number;
}

const SALES: readonly [keyof VatFigures, AccountRole][] = [
  ['A', 'sales_24'],
  ['B', 'sales_11'],
  ['C', 'sales_zero_rated'],
  ['out_of_scope', 'sales_out_of_scope'],
  ['vat_24', 'output_vat_24'],
  ['vat_11', 'output_vat_11'],
];

/**
 * The balanced lines of one source: every entry's debits equal its credits, so any day, or any
 * period, of entries balances. Zero lines are left out.
 */
export function journalLines(s: JournalSource): JournalLine[] {
  const lines: JournalLine[] = [];
  const put = (account: AccountRole, amount: number) => {
    if (amount !== 0) lines.push({ account, amount });
  };
  switch (s.type) {
    case 'invoice':
    case 'credit_note':
    case 'pos_sale':
    case 'pos_refund': {
      // Sales and output VAT are credits (a credit note's negative figures turn them to debits);
      // what the buyer owes, or paid in cash at the till, is the matching debit.
      let gross = 0;
      for (const [figure] of SALES) gross += s.figures[figure];
      const sign = s.type === 'credit_note' || s.type === 'pos_refund' ? -1 : 1;
      put('cash', sign * s.cash);
      put('receivables', gross - sign * s.cash);
      for (const [figure, account] of SALES) put(account, -s.figures[figure]);
      break;
    }
    case 'payment':
      // The buyer has paid: the debt moves to Skil, which keeps its fee.
      put('skil_balance', s.amount - s.fee);
      put('payment_fees', s.fee);
      put('receivables', -s.amount);
      break;
    case 'refund':
    case 'reversal':
      put('receivables', s.amount);
      put('skil_balance', -s.amount);
      break;
    case 'dispute':
      put('dispute_losses', s.amount);
      put('skil_balance', -s.amount);
      break;
    case 'dispute_won':
      put('skil_balance', s.amount);
      put('dispute_losses', -s.amount);
      break;
    case 'acquirer_fee':
      put('payment_fees', s.amount);
      put('skil_balance', -s.amount);
      break;
    case 'bank_cost':
      put('bank_charges', s.amount);
      put('skil_balance', -s.amount);
      break;
    case 'payout':
      put('bank', s.amount);
      put('skil_balance', -s.amount);
      break;
  }
  return lines;
}

/** Debit and credit columns of a line, both non-negative. */
export const debitOf = (l: { amount: number }) => (l.amount > 0 ? l.amount : 0);
export const creditOf = (l: { amount: number }) => (l.amount < 0 ? -l.amount : 0);

/** Each day's debits minus credits; a balanced journal has only zeros. */
export function dayImbalances(entries: Iterable<{ date: string; lines: readonly JournalLine[] }>) {
  const days = new Map<string, number>();
  for (const e of entries)
    for (const l of e.lines) days.set(e.date, (days.get(e.date) ?? 0) + debitOf(l) - creditOf(l));
  return days;
}

/**
 * The journal's sales and output VAT as the VAT report's figures: credits to the sales and VAT
 * accounts, less debits to them.
 */
export function journalVatFigures(entries: Iterable<{ lines: readonly JournalLine[] }>): VatFigures {
  const f: VatFigures = { A: 0, B: 0, C: 0, D: 0, vat_24: 0, vat_11: 0, out_of_scope: 0 };
  for (const e of entries)
    for (const l of e.lines) {
      const pair = SALES.find(([, account]) => account === l.account);
      if (pair) f[pair[0]] -= l.amount;
    }
  f.D = f.vat_24 + f.vat_11;
  return f;
}
