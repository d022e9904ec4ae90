import type { JournalSourceType } from './journal';

/**
 * Regla's import of ledger entries, "Færslur í fjárhagsbókhald 8 dálkar" (decision 0260, from
 * https://regla.is/fibs/help-is/faerslur-i-fjarhagsbokhald-8-d.html and the import page
 * https://www.regla.is/fibs/help-is/import-files.html): eight semicolon-separated columns in this
 * order, an optional header line, the date as day.month.year without leading zeros (`11.1.2018`),
 * whole amounts with the other side of a line left empty, and the voucher number (`Fskjal`)
 * tying together the lines whose debits and credits net to zero.
 */
export const REGLA_COLUMNS = [
  'Dagsetning',
  'Texti',
  'Fskjal',
  'Blykill',
  'Tilvísun',
  'Undirlykill',
  'Debet',
  'Kredit',
] as const;

/** `2026-01-05` as Regla's example writes a date: `5.1.2026`. */
export function reglaDate(iso: string): string {
  const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
  return `${d}.${m}.${y}`;
}

/**
 * A text cell. Regla's pages describe no quoting, so a semicolon or a line break inside a cell
 * would split it: they become a comma and a space. The texts are Skil's own (labels, ids, document
 * numbers, account numbers), so this changes nothing in practice; it keeps the columns whatever comes.
 */
export function reglaText(value: string | null | undefined): string {
  return (value ?? '').replace(/;/g, ',').replace(/[\r\n]+/g, ' ');
}

/** An amount cell: the whole krónur, empty for zero (as the publisher's example leaves the other side). */
export const reglaAmount = (amount: number): string => (amount === 0 ? '' : String(amount));

/** One line of the file with its line end (CRLF, as Excel's CSV the page starts from writes it). */
export function reglaRow(cells: readonly string[]): string {
  return `${cells.join(';')}\r\n`;
}

/** The `Texti` of an entry: what its source is, in Icelandic, as a bookkeeper reads the ledger. */
export const REGLA_SOURCE_TEXT: Record<JournalSourceType, string> = {
  invoice: 'Reikningur',
  credit_note: 'Kreditreikningur',
  pos_sale: 'Sala í kassa',
  pos_refund: 'Endurgreiðsla í kassa',
  payment: 'Greiðsla',
  refund: 'Endurgreiðsla',
  reversal: 'Bakfærð krafa',
  dispute: 'Endurkrafa korthafa',
  dispute_won: 'Endurkrafa unnin',
  acquirer_fee: 'Færslugjald',
  bank_cost: 'Bankakostnaður kröfu',
  payout: 'Útborgun',
};
