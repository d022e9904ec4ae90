import type {
  CamtBankTransactionCode,
  CamtBatch,
  CamtCharges,
  CamtChargesRecord,
  CamtEntry,
  CamtEntryDetails,
  CamtParty,
  CamtRefs,
  CamtStructuredRemittance,
  CamtTxDtls,
} from './camt-types';
import { CamtError } from './errors';
import {
  defined,
  readAccount,
  readAmount,
  readCdtDbtInd,
  readCount,
  readDate,
  readOptionalAmount,
  readOptionalCdtDbtInd,
} from './read-common';
import { all, child, text } from './xml-values';

const REF_NAMES = [
  'MsgId',
  'AcctSvcrRef',
  'PmtInfId',
  'InstrId',
  'EndToEndId',
  'TxId',
  'MndtId',
  'ChqNb',
  'ClrSysRef',
  'UETR',
] as const;

/** An entry read without its transactions: how many `TxDtls` each `NtryDtls` holds instead. */
export type CamtEntryShell = Omit<CamtEntry, 'NtryDtls'> & {
  NtryDtls: (Omit<CamtEntryDetails, 'TxDtls'> & { transactions: number })[];
};

/** Reads one parsed `<Ntry>` (ReportEntry2 … ReportEntry10), transactions in place. */
export function readEntry(node: unknown, index: number, where: string): CamtEntry {
  const here = `${where} Ntry[${index}]`;
  const transactions = all(node, 'NtryDtls').flatMap((d, k) =>
    all(d, 'TxDtls').map((t, i) => readTransaction(t, `${here} NtryDtls[${k}] TxDtls[${i}]`)),
  );
  return completeEntry(readEntryShell(node, index, where), transactions);
}

/**
 * Reads a `<Ntry>` whose `TxDtls` the scanner cut out, leaving an empty placeholder for each; the
 * transactions are read on their own and put back by completeEntry.
 */
export function readEntryShell(node: unknown, index: number, where: string): CamtEntryShell {
  const here = `${where} Ntry[${index}]`;
  const Sts = readStatus(child(node, 'Sts'), here);
  const rvsl = text(node, 'RvslInd');
  return defined({
    index,
    NtryRef: text(node, 'NtryRef'),
    Amt: readAmount(child(node, 'Amt'), here),
    CdtDbtInd: readCdtDbtInd(node, here),
    RvslInd: rvsl === 'true' || rvsl === '1',
    Sts,
    booked: Sts === 'BOOK',
    BookgDt: readDate(child(node, 'BookgDt')),
    ValDt: readDate(child(node, 'ValDt')),
    AcctSvcrRef: text(node, 'AcctSvcrRef'),
    BkTxCd: readBankTransactionCode(child(node, 'BkTxCd')),
    AddtlNtryInf: text(node, 'AddtlNtryInf'),
    NtryDtls: all(node, 'NtryDtls').map((d) => {
      const batch = child(d, 'Btch');
      return defined({
        Btch: batch === undefined ? undefined : readBatch(batch, here),
        transactions: all(d, 'TxDtls').length,
      });
    }),
  });
}

/** Puts an entry's transactions (in document order) back into its shell. */
export function completeEntry(shell: CamtEntryShell, transactions: readonly CamtTxDtls[]): CamtEntry {
  let next = 0;
  const NtryDtls = shell.NtryDtls.map(({ transactions: n, ...details }) => ({
    ...details,
    TxDtls: transactions.slice(next, (next += n)),
  }));
  if (next !== transactions.length) {
    throw new CamtError(
      'malformed',
      `${transactions.length} transactions for ${next} TxDtls`,
      `Ntry[${shell.index}]`,
    );
  }
  return { ...shell, NtryDtls };
}

/** `<Sts>BOOK</Sts>` up to .001.07, `<Sts><Cd>BOOK</Cd></Sts>` (or `Prtry`) from .001.08. */
function readStatus(node: unknown, where: string): string {
  const status = typeof node === 'string' ? text(node) : (text(node, 'Cd') ?? text(node, 'Prtry'));
  if (status === undefined || status === '') throw new CamtError('malformed', 'entry without Sts', where);
  return status;
}

function readBankTransactionCode(node: unknown): CamtBankTransactionCode | undefined {
  if (node === undefined) return undefined;
  const domain = child(node, 'Domn');
  const family = child(domain, 'Fmly');
  const proprietary = child(node, 'Prtry');
  return defined({
    Domn:
      domain === undefined
        ? undefined
        : defined({
            Cd: text(domain, 'Cd') ?? '',
            Fmly:
              family === undefined
                ? undefined
                : { Cd: text(family, 'Cd') ?? '', SubFmlyCd: text(family, 'SubFmlyCd') ?? '' },
          }),
    Prtry:
      proprietary === undefined
        ? undefined
        : defined({ Cd: text(proprietary, 'Cd') ?? '', Issr: text(proprietary, 'Issr') }),
  });
}

function readBatch(node: unknown, where: string): CamtBatch {
  return defined({
    MsgId: text(node, 'MsgId'),
    PmtInfId: text(node, 'PmtInfId'),
    NbOfTxs: readCount(node, 'NbOfTxs', where),
    TtlAmt: readOptionalAmount(node, 'TtlAmt', `${where} Btch`),
    CdtDbtInd: readOptionalCdtDbtInd(node, `${where} Btch`),
  });
}

/** Reads one parsed `<TxDtls>` (EntryTransaction2 … EntryTransaction10). */
export function readTransaction(node: unknown, where: string): CamtTxDtls {
  const refs = child(node, 'Refs');
  const Refs: CamtRefs = {};
  for (const name of REF_NAMES) {
    const value = text(refs, name);
    if (value !== undefined) Refs[name] = value;
  }
  const remittance = child(node, 'RmtInf');
  const parties = child(node, 'RltdPties');
  return defined({
    Refs,
    Amt: readTransactionAmount(node, where),
    CdtDbtInd: readOptionalCdtDbtInd(node, where),
    Chrgs: readCharges(all(node, 'Chrgs'), `${where} Chrgs`),
    RmtInf: {
      Ustrd: all(remittance, 'Ustrd')
        .map((u) => text(u))
        .filter((u): u is string => u !== undefined),
      Strd: all(remittance, 'Strd').map((s) => readStructured(s, where)),
    },
    RltdPties: defined({
      Dbtr: readParty(child(parties, 'Dbtr')),
      DbtrAcct: readAccount(child(parties, 'DbtrAcct')),
      Cdtr: readParty(child(parties, 'Cdtr')),
      CdtrAcct: readAccount(child(parties, 'CdtrAcct')),
    }),
    AddtlTxInf: text(node, 'AddtlTxInf'),
  });
}

/**
 * `Chrgs`: from v03 one element with an optional total and `Rcrd` per charge; in v02 the element
 * repeats, each one charge with its `Amt` directly.
 */
function readCharges(nodes: unknown[], where: string): CamtCharges | undefined {
  if (nodes.length === 0) return undefined;
  const records = nodes.flatMap((n) => {
    const rcrd = all(n, 'Rcrd');
    return rcrd.length > 0 ? rcrd : child(n, 'Amt') !== undefined ? [n] : [];
  });
  const total = nodes
    .map((n) => readOptionalAmount(n, 'TtlChrgsAndTaxAmt', where))
    .find((a) => a !== undefined);
  return defined({
    TtlChrgsAndTaxAmt: total,
    Rcrd: records.map((r, i): CamtChargesRecord => {
      const included = text(r, 'ChrgInclInd');
      const type = child(r, 'Tp');
      return defined({
        Amt: readAmount(child(r, 'Amt'), `${where}[${i}]`),
        CdtDbtInd: readOptionalCdtDbtInd(r, `${where}[${i}]`),
        ChrgInclInd: included === undefined ? undefined : included === 'true' || included === '1',
        Tp: typeof type === 'string' ? text(type) : (text(type, 'Cd') ?? text(type, 'Prtry')),
        Br: text(r, 'Br'),
      });
    }),
  });
}

/** v04+ have `TxDtls/Amt`; v02 only `AmtDtls/TxAmt/Amt` or `AmtDtls/InstdAmt/Amt`. */
function readTransactionAmount(node: unknown, where: string): CamtTxDtls['Amt'] {
  const own = child(node, 'Amt');
  if (own !== undefined) return readAmount(own, where);
  const details = child(node, 'AmtDtls');
  const fromDetails = child(child(details, 'TxAmt'), 'Amt') ?? child(child(details, 'InstdAmt'), 'Amt');
  return fromDetails === undefined ? undefined : readAmount(fromDetails, where);
}

function readStructured(node: unknown, where: string): CamtStructuredRemittance {
  const reference = child(node, 'CdtrRefInf');
  const referenceType = child(child(reference, 'Tp'), 'CdOrPrtry');
  const amounts = child(node, 'RfrdDocAmt');
  return defined({
    CdtrRefInf:
      reference === undefined
        ? undefined
        : defined({
            Tp: text(referenceType, 'Cd') ?? text(referenceType, 'Prtry'),
            Issr: text(reference, 'Tp', 'Issr'),
            Ref: text(reference, 'Ref'),
          }),
    RfrdDocNb: text(node, 'RfrdDocInf', 'Nb'),
    RmtdAmt: readOptionalAmount(amounts, 'RmtdAmt', where),
    CdtNoteAmt: readOptionalAmount(amounts, 'CdtNoteAmt', where),
    AddtlRmtInf: all(node, 'AddtlRmtInf')
      .map((a) => text(a))
      .filter((a): a is string => a !== undefined),
  });
}

function readParty(node: unknown): CamtParty | undefined {
  if (node === undefined) return undefined;
  // v08 wraps the party in Pty; earlier versions put Nm and Id directly under Dbtr/Cdtr.
  const party = child(node, 'Pty') ?? node;
  const id = child(party, 'Id');
  return defined({
    Nm: text(party, 'Nm'),
    Id: text(id, 'PrvtId', 'Othr', 'Id') ?? text(id, 'OrgId', 'Othr', 'Id'),
  });
}
