import type { CamtAccount, CamtEntry, CamtTxDtls } from '../../adapters/banks/camt';
import type { BankEntryDetail, NewBankEntry } from '../../db/bank-entries';

/**
 * How a parsed camt entry becomes the rows bank_entries stores: the entry's own fields, and one
 * detail per transaction with its references, counterparty and the bank's charges.
 */

export function toEntryRow(entry: CamtEntry): NewBankEntry {
  const details = entry.NtryDtls.flatMap((d) => d.TxDtls).map((tx) => toDetail(tx, entry));
  const only = details.length === 1 ? details[0] : undefined;
  return {
    entryIndex: entry.index,
    status: entry.Sts,
    booked: entry.booked,
    credit: entry.CdtDbtInd === 'CRDT',
    reversal: entry.RvslInd,
    amount: safe(entry.Amt.minor),
    currency: entry.Amt.Ccy,
    bookingDate: entry.BookgDt?.Dt ?? entry.BookgDt?.DtTm ?? null,
    valueDate: entry.ValDt?.Dt ?? entry.ValDt?.DtTm ?? null,
    acctSvcrRef: entry.AcctSvcrRef ?? null,
    entryRef: entry.NtryRef ?? null,
    // A single-transaction entry carries its transaction's references at entry level, so a payout
    // debit is found by index; a batch keeps them per detail only.
    endToEndId: only?.refs.EndToEndId ?? null,
    reference: only?.reference ?? null,
    details,
  };
}

function toDetail(tx: CamtTxDtls, entry: CamtEntry): BankEntryDetail {
  const credit = (tx.CdtDbtInd ?? entry.CdtDbtInd) === 'CRDT';
  const refs: Record<string, string> = {};
  for (const [k, v] of Object.entries(tx.Refs)) if (typeof v === 'string') refs[k] = v;
  const reference =
    tx.RmtInf.Strd.find((s) => s.CdtrRefInf?.Ref !== undefined)?.CdtrRefInf?.Ref ?? tx.RmtInf.Ustrd[0];
  const party = credit ? tx.RltdPties.Dbtr?.Id : tx.RltdPties.Cdtr?.Id;
  const partyAccount = icelandicAccount(credit ? tx.RltdPties.DbtrAcct : tx.RltdPties.CdtrAcct);
  // A detail without its own amount is the whole entry when it is the only one; otherwise unknown (0),
  // which can only ever be an exception, never a match.
  const amount =
    tx.Amt !== undefined
      ? safe(tx.Amt.minor)
      : entry.NtryDtls.flatMap((d) => d.TxDtls).length === 1
        ? safe(entry.Amt.minor)
        : 0;
  const charges = chargesOf(tx, entry.Amt.Ccy);
  return {
    amount,
    credit,
    refs,
    ...(reference !== undefined && { reference }),
    ...(party !== undefined && { party }),
    ...(partyAccount !== undefined && { partyAccount }),
    ...(charges !== undefined && { charges }),
  };
}

/** An account as 12 digits (bank 4, ledger 2, number 6): a BBAN, written with dashes or not, or an IS IBAN. */
function icelandicAccount(account: CamtAccount | undefined): string | undefined {
  if (account?.IBAN !== undefined)
    return /^IS[0-9]{24}$/.test(account.IBAN) ? account.IBAN.slice(4, 16) : undefined;
  const digits = account?.Othr?.replace(/-/g, '');
  return digits !== undefined && /^[0-9]{12}$/.test(digits) ? digits : undefined;
}

/**
 * What the bank charges for a transaction, in the entry's currency: the stated total, else the sum
 * of the charge records (a credited one counts back). Undefined when it reports none, or none in
 * that currency.
 */
export function chargesOf(tx: CamtTxDtls, currency: string): number | undefined {
  const c = tx.Chrgs;
  if (c === undefined) return undefined;
  if (c.TtlChrgsAndTaxAmt !== undefined)
    return c.TtlChrgsAndTaxAmt.Ccy === currency ? safe(c.TtlChrgsAndTaxAmt.minor) : undefined;
  const records = c.Rcrd.filter((r) => r.Amt.Ccy === currency);
  if (records.length === 0) return undefined;
  return safe(records.reduce((n, r) => (r.CdtDbtInd === 'CRDT' ? n - r.Amt.minor : n + r.Amt.minor), 0n));
}

/** Amounts are stored as int8 and read back as numbers: refuse rather than round one that is not safe. */
export function safe(minor: bigint): number {
  const n = Number(minor);
  if (!Number.isSafeInteger(n)) throw new RangeError(`amount ${minor} exceeds the safe integer range`);
  return n;
}
