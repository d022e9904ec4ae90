import { parseMinorAmount } from './amount';
import type { CamtAccount, CamtAmount, CamtDate, CdtDbtInd } from './camt-types';
import { CamtError } from './errors';
import { attribute, child, text } from './xml-values';

/** Reads an `…Amt Ccy="EUR"` element into exact minor units; refuses what cannot be exact. */
export function readAmount(node: unknown, where: string): CamtAmount {
  const value = text(node);
  const Ccy = attribute(node, 'Ccy');
  if (value === undefined || Ccy === undefined) {
    throw new CamtError('malformed', 'an amount without a value or currency', where);
  }
  const result = parseMinorAmount(value, Ccy);
  if (!result.ok) {
    throw new CamtError('invalid_amount', `amount ${JSON.stringify(value)} ${Ccy}: ${result.problem}`, where);
  }
  return { Ccy, minor: result.minor };
}

/** The optional amount at `name` below `node`. */
export function readOptionalAmount(node: unknown, name: string, where: string): CamtAmount | undefined {
  const found = child(node, name);
  return found === undefined ? undefined : readAmount(found, where);
}

/** `CRDT` or `DBIT`; anything else is not a camt file we can trust the sign of. */
export function readCdtDbtInd(node: unknown, where: string): CdtDbtInd {
  const value = text(node, 'CdtDbtInd');
  if (value !== 'CRDT' && value !== 'DBIT') {
    throw new CamtError('malformed', `CdtDbtInd ${JSON.stringify(value)} is neither CRDT nor DBIT`, where);
  }
  return value;
}

/** The optional credit/debit indicator. */
export function readOptionalCdtDbtInd(node: unknown, where: string): CdtDbtInd | undefined {
  return child(node, 'CdtDbtInd') === undefined ? undefined : readCdtDbtInd(node, where);
}

/** `BookgDt`, `ValDt` and balance `Dt` hold either `Dt` or `DtTm`, whatever the version. */
export function readDate(node: unknown): CamtDate | undefined {
  if (node === undefined) return undefined;
  const Dt = text(node, 'Dt');
  const DtTm = text(node, 'DtTm');
  if (Dt === undefined && DtTm === undefined) return undefined;
  return { ...(Dt !== undefined && { Dt }), ...(DtTm !== undefined && { DtTm }) };
}

/** `Acct` or `DbtrAcct`/`CdtrAcct`: IBAN or other identification, and currency. */
export function readAccount(node: unknown): CamtAccount | undefined {
  if (node === undefined) return undefined;
  const IBAN = text(node, 'Id', 'IBAN');
  const Othr = text(node, 'Id', 'Othr', 'Id');
  const Ccy = text(node, 'Ccy');
  return {
    ...(IBAN !== undefined && { IBAN }),
    ...(Othr !== undefined && { Othr }),
    ...(Ccy !== undefined && { Ccy }),
  };
}

/**
 * A copy without the keys whose value is undefined, so shapes compare and serialise cleanly. Copies
 * rather than `delete`s: deleting keys drops V8 objects into slow dictionary mode.
 */
export function defined<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const key in value) {
    const v = value[key];
    if (v !== undefined) out[key] = v;
  }
  return out as T;
}

/** A non-negative integer count such as `NbOfNtries` or `NbOfTxs`. */
export function readCount(node: unknown, name: string, where: string): number | undefined {
  const value = text(node, name);
  if (value === undefined) return undefined;
  if (!/^\d{1,15}$/.test(value)) throw new CamtError('malformed', `${name} ${JSON.stringify(value)}`, where);
  return Number(value);
}
