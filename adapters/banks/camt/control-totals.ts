import { formatMinorAmount, parseMinorAmount } from './amount';
import type {
  CamtAmount,
  CamtMessageType,
  CamtStatement,
  CamtStatementTotals,
  CdtDbtInd,
} from './camt-types';
import type { ControlCheck } from './errors';

/** What a statement's entries add up to; grows one entry at a time so entries need not be kept. */
export interface Tally {
  currencies: Set<string>;
  entries: number;
  credits: { count: number; minor: bigint };
  debits: { count: number; minor: bigint };
  booked: { credits: bigint; debits: bigint; count: number };
}

/** An empty tally for a new statement. */
export function newTally(): Tally {
  return {
    currencies: new Set(),
    entries: 0,
    credits: { count: 0, minor: 0n },
    debits: { count: 0, minor: 0n },
    booked: { credits: 0n, debits: 0n, count: 0 },
  };
}

/** Adds one entry. Every entry counts toward `TxsSummry`; only booked ones move the balance. */
export function tallyEntry(
  tally: Tally,
  entry: { Amt: CamtAmount; CdtDbtInd: CdtDbtInd; booked: boolean },
): void {
  tally.currencies.add(entry.Amt.Ccy);
  tally.entries += 1;
  const side = entry.CdtDbtInd === 'CRDT' ? tally.credits : tally.debits;
  side.count += 1;
  side.minor += entry.Amt.minor;
  if (entry.booked) {
    tally.booked.count += 1;
    if (entry.CdtDbtInd === 'CRDT') tally.booked.credits += entry.Amt.minor;
    else tally.booked.debits += entry.Amt.minor;
  }
}

/**
 * Compares a statement's stated control totals with its entries: entry count and gross sum
 * (`TxsSummry/TtlNtries`), signed net (`TtlNetNtryAmt`), credit and debit counts and sums when
 * given, and for camt.053 opening booked balance (OPBD, else PRCD) + booked credits − booked debits
 * = closing booked balance (CLBD). Returns every check with both figures, failed or not.
 */
export function checkStatementTotals(
  type: CamtMessageType,
  statement: CamtStatement,
  tally: Tally,
): ControlCheck[] {
  const currency = statementCurrency(statement, tally);
  const checks: ControlCheck[] = [];
  const money = (minor: bigint): string => formatMinorAmount(minor, currency);
  const count = (check: string, stated: number | undefined, computed: number): void => {
    if (stated !== undefined)
      checks.push({ check, stated: String(stated), computed: String(computed), ok: stated === computed });
  };
  const sum = (check: string, stated: string | undefined, computed: bigint): void => {
    if (stated === undefined) return;
    const parsed = parseMinorAmount(stated, currency);
    checks.push({ check, stated, computed: money(computed), ok: parsed.ok && parsed.minor === computed });
  };

  if (tally.currencies.size > 1 || (tally.currencies.size === 1 && !tally.currencies.has(currency))) {
    checks.push({
      check: 'entry currency',
      stated: currency,
      computed: [...tally.currencies].join(','),
      ok: false,
    });
  }

  const summary = statement.TxsSummry;
  const gross = tally.credits.minor + tally.debits.minor;
  const net = tally.credits.minor - tally.debits.minor;
  count('TtlNtries/NbOfNtries', summary?.TtlNtries?.NbOfNtries, tally.entries);
  sum('TtlNtries/Sum', summary?.TtlNtries?.Sum, gross);
  const statedNet = summary?.TtlNtries?.TtlNetNtryAmt;
  if (statedNet !== undefined) {
    const sign = summary?.TtlNtries?.CdtDbtInd === 'DBIT' ? -1n : 1n;
    const parsed = parseMinorAmount(statedNet, currency);
    checks.push({
      check: 'TtlNtries/TtlNetNtryAmt',
      stated: `${statedNet} ${summary?.TtlNtries?.CdtDbtInd ?? 'CRDT'}`,
      computed: `${money(net < 0n ? -net : net)} ${net < 0n ? 'DBIT' : 'CRDT'}`,
      ok: parsed.ok && parsed.minor * sign === net,
    });
  }
  count('TtlCdtNtries/NbOfNtries', summary?.TtlCdtNtries?.NbOfNtries, tally.credits.count);
  sum('TtlCdtNtries/Sum', summary?.TtlCdtNtries?.Sum, tally.credits.minor);
  count('TtlDbtNtries/NbOfNtries', summary?.TtlDbtNtries?.NbOfNtries, tally.debits.count);
  sum('TtlDbtNtries/Sum', summary?.TtlDbtNtries?.Sum, tally.debits.minor);

  if (type === 'camt.053') checks.push(balanceCheck(statement, tally, currency));
  return checks;
}

function balanceCheck(statement: CamtStatement, tally: Tally, currency: string): ControlCheck {
  const find = (code: string) => statement.Bal.find((b) => b.Tp === code);
  const opening = find('OPBD') ?? find('PRCD');
  const closing = find('CLBD');
  const check = 'OPBD + credits - debits = CLBD';
  if (opening === undefined || closing === undefined) {
    return { check, stated: 'no OPBD/PRCD and CLBD balances', computed: '', ok: false };
  }
  const signed = (b: typeof opening): bigint => (b.CdtDbtInd === 'DBIT' ? -b.Amt.minor : b.Amt.minor);
  const expected = signed(opening) + tally.booked.credits - tally.booked.debits;
  const show = (minor: bigint, ccy: string): string =>
    `${formatMinorAmount(minor < 0n ? -minor : minor, ccy)} ${ccy} ${minor < 0n ? 'DBIT' : 'CRDT'}`;
  return {
    check,
    stated: show(signed(closing), closing.Amt.Ccy),
    computed: show(expected, currency),
    ok: opening.Amt.Ccy === currency && closing.Amt.Ccy === currency && expected === signed(closing),
  };
}

/** The account's currency: `Acct/Ccy`, else the opening balance's, else the first entry's. */
export function statementCurrency(statement: CamtStatement, tally: Pick<Tally, 'currencies'>): string {
  const opening = statement.Bal.find((b) => b.Tp === 'OPBD' || b.Tp === 'PRCD') ?? statement.Bal[0];
  return statement.Acct.Ccy ?? opening?.Amt.Ccy ?? [...tally.currencies][0] ?? 'EUR';
}

/** The totals reported to callers once a statement is complete. */
export function totalsOf(tally: Tally, checks: ControlCheck[]): CamtStatementTotals {
  return {
    entries: tally.entries,
    credits: { ...tally.credits },
    debits: { ...tally.debits },
    booked: { ...tally.booked },
    checks,
  };
}
