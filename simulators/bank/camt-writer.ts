import { XMLBuilder } from 'fast-xml-parser';

/**
 * Writes the simulated bank's camt.053.001.08 statements and camt.054.001.08 notifications for
 * the collection account (decision 0090, 0091). XML comes from fast-xml-parser's XMLBuilder, which
 * escapes every text and attribute, so names and references from payers and merchants cannot break
 * the document. Amounts are whole ISK (exponent 0) written as integer text; element order follows
 * the .001.08 schemas. Control totals (TxsSummry, balances) are computed here from the entries, so a
 * file is consistent by construction; parseCamt checks them on the other side.
 */

export type CdtDbt = 'CRDT' | 'DBIT';

/** The account a file is about: 12-digit account (4-2-6 without dashes), owner name and kennitala. */
export interface CamtAccountInfo {
  account: string;
  ownerName: string;
  ownerKennitala: string;
}

export interface CamtPartyInfo {
  name?: string;
  /** A kennitala: organisations (first digit 4–7) as OrgId, persons as PrvtId. */
  id?: string;
  /** Their account, 12 digits. */
  account?: string;
}

export interface CamtTxDetailInput {
  amount: number;
  cdtDbt: CdtDbt;
  /** `Refs/PmtInfId`: the payment file's batch (a payout's settlement run). */
  pmtInfId?: string;
  txId?: string;
  endToEndId?: string;
  /** `RmtInf/Strd/CdtrRefInf/Ref`. */
  creditorReference?: string;
  /** `RmtInf/Ustrd`. */
  unstructured?: string;
  debtor?: CamtPartyInfo;
  creditor?: CamtPartyInfo;
  /**
   * The bank's charge for this transaction, whole ISK (`Chrgs`): charged to the creditor apart from
   * the amount (`ChrgInclInd` false), so it changes no amount or total of the file.
   */
  charges?: number;
}

export interface CamtEntryInput {
  amount: number;
  cdtDbt: CdtDbt;
  bookingDate: string;
  valueDate: string;
  acctSvcrRef: string;
  ntryRef?: string;
  /** ISO bank transaction code: domain PMNT, family and sub-family. */
  family: string;
  subFamily: string;
  /** Adds `NtryDtls/Btch` (NbOfTxs, TtlAmt) over the details: a lump sum. */
  batch?: boolean;
  details: CamtTxDetailInput[];
  info?: string;
}

interface CommonInput {
  msgId: string;
  createdAt: Date;
  /** `Stmt/Id` or `Ntfctn/Id`. */
  id: string;
  seq: number;
  account: CamtAccountInfo;
  /** The banking day the file covers (FrToDt is that whole day, Iceland time = UTC). */
  date: string;
  entries: CamtEntryInput[];
}

export interface Camt053Input extends CommonInput {
  openingBalance: number;
  closingBalance: number;
}

const NS = (type: '053' | '054') => `urn:iso:std:iso:20022:tech:xsd:camt.${type}.001.08`;
const CCY = 'ISK';

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  format: true,
  suppressEmptyNode: true,
});

type Node = Record<string, unknown>;

/** Whole ISK as the schema's decimal text; refuses anything that is not a non-negative safe integer. */
export function amountText(amount: number): string {
  if (!Number.isSafeInteger(amount) || amount < 0) throw new RangeError(`not a whole ISK amount: ${amount}`);
  return String(amount);
}

const amt = (amount: number): Node => ({ '@_Ccy': CCY, '#text': amountText(amount) });
const dateTime = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, '+00:00');

/** Signed sum of entries: credits minus debits. */
export function netOf(entries: { amount: number; cdtDbt: CdtDbt }[]): number {
  return entries.reduce((n, e) => n + (e.cdtDbt === 'CRDT' ? e.amount : -e.amount), 0);
}

function party(p: CamtPartyInfo): Node {
  const org = p.id !== undefined && /^[4-7]/.test(p.id);
  return {
    Pty: {
      Nm: p.name,
      ...(p.id !== undefined && {
        Id: org ? { OrgId: { Othr: { Id: p.id } } } : { PrvtId: { Othr: { Id: p.id } } },
      }),
    },
  };
}

const accountNode = (account: string): Node => ({ Id: { Othr: { Id: account } } });

function txDetail(d: CamtTxDetailInput): Node {
  return {
    Refs: { PmtInfId: d.pmtInfId, EndToEndId: d.endToEndId, TxId: d.txId },
    Amt: amt(d.amount),
    CdtDbtInd: d.cdtDbt,
    Chrgs:
      d.charges !== undefined && d.charges > 0
        ? {
            TtlChrgsAndTaxAmt: amt(d.charges),
            Rcrd: {
              Amt: amt(d.charges),
              CdtDbtInd: 'DBIT',
              ChrgInclInd: 'false',
              Tp: { Cd: 'COMM' },
              Br: 'CRED',
            },
          }
        : undefined,
    RltdPties: {
      Dbtr: d.debtor ? party(d.debtor) : undefined,
      DbtrAcct: d.debtor?.account !== undefined ? accountNode(d.debtor.account) : undefined,
      Cdtr: d.creditor ? party(d.creditor) : undefined,
      CdtrAcct: d.creditor?.account !== undefined ? accountNode(d.creditor.account) : undefined,
    },
    RmtInf:
      d.unstructured !== undefined || d.creditorReference !== undefined
        ? {
            Ustrd: d.unstructured,
            Strd:
              d.creditorReference !== undefined
                ? { CdtrRefInf: { Tp: { CdOrPrtry: { Cd: 'SCOR' } }, Ref: d.creditorReference } }
                : undefined,
          }
        : undefined,
  };
}

function entry(e: CamtEntryInput): Node {
  const details = e.details.map(txDetail);
  return {
    NtryRef: e.ntryRef,
    Amt: amt(e.amount),
    CdtDbtInd: e.cdtDbt,
    RvslInd: 'false',
    Sts: { Cd: 'BOOK' },
    BookgDt: { Dt: e.bookingDate },
    ValDt: { Dt: e.valueDate },
    AcctSvcrRef: e.acctSvcrRef,
    BkTxCd: { Domn: { Cd: 'PMNT', Fmly: { Cd: e.family, SubFmlyCd: e.subFamily } } },
    NtryDtls:
      e.batch || details.length > 0
        ? {
            Btch: e.batch
              ? {
                  NbOfTxs: String(e.details.length),
                  TtlAmt: amt(e.amount),
                  CdtDbtInd: e.cdtDbt,
                }
              : undefined,
            TxDtls: details,
          }
        : undefined,
    AddtlNtryInf: e.info,
  };
}

/** `TxsSummry` from the entries themselves. */
function summary(entries: CamtEntryInput[]): Node {
  const credits = entries.filter((e) => e.cdtDbt === 'CRDT');
  const debits = entries.filter((e) => e.cdtDbt === 'DBIT');
  const sum = (list: CamtEntryInput[]) => list.reduce((n, e) => n + e.amount, 0);
  const net = netOf(entries);
  return {
    TtlNtries: {
      NbOfNtries: String(entries.length),
      Sum: amountText(sum(entries)),
      TtlNetNtry: { Amt: amountText(Math.abs(net)), CdtDbtInd: net < 0 ? 'DBIT' : 'CRDT' },
    },
    TtlCdtNtries: { NbOfNtries: String(credits.length), Sum: amountText(sum(credits)) },
    TtlDbtNtries: { NbOfNtries: String(debits.length), Sum: amountText(sum(debits)) },
  };
}

function balance(code: 'OPBD' | 'CLBD', amount: number, date: string): Node {
  return {
    Tp: { CdOrPrtry: { Cd: code } },
    Amt: amt(Math.abs(amount)),
    CdtDbtInd: amount < 0 ? 'DBIT' : 'CRDT',
    Dt: { Dt: date },
  };
}

function report(input: CommonInput): Node {
  return {
    Id: input.id,
    ElctrncSeqNb: String(input.seq),
    LglSeqNb: String(input.seq),
    CreDtTm: dateTime(input.createdAt),
    FrToDt: { FrDtTm: `${input.date}T00:00:00+00:00`, ToDtTm: `${input.date}T23:59:59+00:00` },
    Acct: {
      Id: { Othr: { Id: input.account.account } },
      Ccy: CCY,
      Ownr: { Nm: input.account.ownerName, Id: { OrgId: { Othr: { Id: input.account.ownerKennitala } } } },
    },
  };
}

function document(type: '053' | '054', message: string, body: Node, input: CommonInput): string {
  return builder.build({
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    Document: {
      '@_xmlns': NS(type),
      [message]: {
        GrpHdr: {
          MsgId: input.msgId,
          CreDtTm: dateTime(input.createdAt),
          MsgPgntn: { PgNb: '1', LastPgInd: 'true' },
        },
        ...body,
      },
    },
  });
}

/** A camt.053.001.08 statement; `closingBalance` must equal opening + the entries' net. */
export function writeCamt053(input: Camt053Input): string {
  if (input.openingBalance + netOf(input.entries) !== input.closingBalance)
    throw new RangeError('closing balance does not follow from the opening balance and the entries');
  return document(
    '053',
    'BkToCstmrStmt',
    {
      Stmt: {
        ...report(input),
        Bal: [
          balance('OPBD', input.openingBalance, input.date),
          balance('CLBD', input.closingBalance, input.date),
        ],
        TxsSummry: summary(input.entries),
        Ntry: input.entries.map(entry),
      },
    },
    input,
  );
}

/** A camt.054.001.08 debit/credit notification (no balances). */
export function writeCamt054(input: CommonInput): string {
  return document(
    '054',
    'BkToCstmrDbtCdtNtfctn',
    { Ntfctn: { ...report(input), TxsSummry: summary(input.entries), Ntry: input.entries.map(entry) } },
    input,
  );
}
