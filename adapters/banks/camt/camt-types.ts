import type { ControlCheck } from './errors';

/**
 * Typed shapes of camt.053 / camt.054 content, keeping the ISO 20022 element names so that a field
 * can be found in the XSD and in the bank's documentation by its name. Version differences are
 * resolved by the readers (Sts text or Cd, Dt or DtTm, TxDtls Amt or AmtDtls); amounts become exact
 * integers of the currency's minor unit.
 */

export type CamtMessageType = 'camt.053' | 'camt.054';
/** Message versions this parser reads: .001.02 to .001.08. */
export type CamtVersion = '02' | '03' | '04' | '05' | '06' | '07' | '08';
export type CdtDbtInd = 'CRDT' | 'DBIT';

/** An amount with its currency, in integer minor units (ISK krónur, EUR cents). */
export interface CamtAmount {
  Ccy: string;
  minor: bigint;
}

/** A date as the bank sent it: `Dt` (YYYY-MM-DD) or `DtTm` (ISO 8601 with offset). */
export interface CamtDate {
  Dt?: string;
  DtTm?: string;
}

export interface CamtGroupHeader {
  MsgId: string;
  CreDtTm: string;
  MsgPgntn?: { PgNb: string; LastPgInd: boolean };
  AddtlInf?: string;
}

/** The document: which message and version, and its group header. */
export interface CamtMessage {
  type: CamtMessageType;
  version: CamtVersion;
  namespace: string;
  GrpHdr: CamtGroupHeader;
}

export interface CamtAccount {
  IBAN?: string;
  /** `Id/Othr/Id`: a BBAN or the bank's own account number. */
  Othr?: string;
  Ccy?: string;
}

export interface CamtBalance {
  /** `Tp/CdOrPrtry/Cd` (OPBD, PRCD, CLBD, CLAV, …) or its `Prtry` text. */
  Tp: string;
  Amt: CamtAmount;
  CdtDbtInd: CdtDbtInd;
  Dt: CamtDate;
}

/** A count and gross sum; `Sum` stays the decimal text as stated, it has no currency of its own. */
export interface CamtNumberAndSum {
  NbOfNtries?: number;
  Sum?: string;
}

export interface CamtTxsSummry {
  TtlNtries?: CamtNumberAndSum & { TtlNetNtryAmt?: string; CdtDbtInd?: CdtDbtInd };
  TtlCdtNtries?: CamtNumberAndSum;
  TtlDbtNtries?: CamtNumberAndSum;
}

/** A camt.053 `Stmt` or camt.054 `Ntfctn`, without its entries. */
export interface CamtStatement {
  /** `Stmt` in camt.053, `Ntfctn` in camt.054. */
  element: 'Stmt' | 'Ntfctn';
  Id: string;
  ElctrncSeqNb?: string;
  LglSeqNb?: string;
  CreDtTm?: string;
  FrToDt?: { FrDtTm?: string; ToDtTm?: string };
  Acct: CamtAccount;
  Bal: CamtBalance[];
  TxsSummry?: CamtTxsSummry;
}

export interface CamtBankTransactionCode {
  Domn?: { Cd: string; Fmly?: { Cd: string; SubFmlyCd: string } };
  Prtry?: { Cd: string; Issr?: string };
}

export interface CamtRefs {
  MsgId?: string;
  AcctSvcrRef?: string;
  PmtInfId?: string;
  InstrId?: string;
  EndToEndId?: string;
  TxId?: string;
  MndtId?: string;
  ChqNb?: string;
  ClrSysRef?: string;
  UETR?: string;
}

/** `RmtInf/Strd`: the structured creditor reference is the key reference payments match on. */
export interface CamtStructuredRemittance {
  CdtrRefInf?: { Tp?: string; Issr?: string; Ref?: string };
  RfrdDocNb?: string;
  RmtdAmt?: CamtAmount;
  CdtNoteAmt?: CamtAmount;
  AddtlRmtInf?: string[];
}

export interface CamtParty {
  Nm?: string;
  /** `Id/PrvtId/Othr/Id` or `Id/OrgId/Othr/Id` — a kennitala in Icelandic files. */
  Id?: string;
}

/** One charge on a transaction: `Chrgs/Rcrd` (v03+), or a whole `Chrgs` element in v02. */
export interface CamtChargesRecord {
  Amt: CamtAmount;
  /** DBIT (or absent): the bank charges it; CRDT: a charge credited back. */
  CdtDbtInd?: CdtDbtInd;
  /** true: deducted from the transaction's amount; false: charged apart from it. */
  ChrgInclInd?: boolean;
  /** `Tp/Cd` or `Tp/Prtry` (e.g. COMM). */
  Tp?: string;
  /** Who bears it: DEBT, CRED, SHAR, SLEV. */
  Br?: string;
}

/** `TxDtls/Chrgs`: the bank's charges for the transaction. */
export interface CamtCharges {
  TtlChrgsAndTaxAmt?: CamtAmount;
  Rcrd: CamtChargesRecord[];
}

export interface CamtTxDtls {
  Refs: CamtRefs;
  /** `TxDtls/Amt` (v04+), else `AmtDtls/TxAmt/Amt`, else `AmtDtls/InstdAmt/Amt`. */
  Amt?: CamtAmount;
  CdtDbtInd?: CdtDbtInd;
  Chrgs?: CamtCharges;
  RmtInf: { Ustrd: string[]; Strd: CamtStructuredRemittance[] };
  RltdPties: { Dbtr?: CamtParty; DbtrAcct?: CamtAccount; Cdtr?: CamtParty; CdtrAcct?: CamtAccount };
  AddtlTxInf?: string;
}

export interface CamtBatch {
  MsgId?: string;
  PmtInfId?: string;
  NbOfTxs?: number;
  TtlAmt?: CamtAmount;
  CdtDbtInd?: CdtDbtInd;
}

export interface CamtEntryDetails {
  Btch?: CamtBatch;
  TxDtls: CamtTxDtls[];
}

export interface CamtEntry {
  /** Position of the entry in its statement, from 0. */
  index: number;
  NtryRef?: string;
  Amt: CamtAmount;
  CdtDbtInd: CdtDbtInd;
  RvslInd: boolean;
  /** `Sts` (v02–v07) or `Sts/Cd` / `Sts/Prtry` (v08): BOOK, PDNG, INFO, … */
  Sts: string;
  /** Only a booked entry is money; PDNG and INFO entries are information, never posted. */
  booked: boolean;
  BookgDt?: CamtDate;
  ValDt?: CamtDate;
  AcctSvcrRef?: string;
  BkTxCd?: CamtBankTransactionCode;
  AddtlNtryInf?: string;
  NtryDtls: CamtEntryDetails[];
}

/** What a statement's entries add up to, and every control total checked against the file. */
export interface CamtStatementTotals {
  entries: number;
  credits: { count: number; minor: bigint };
  debits: { count: number; minor: bigint };
  booked: { credits: bigint; debits: bigint; count: number };
  checks: ControlCheck[];
}

/** The parser's output, in document order. */
export type CamtEvent =
  | { kind: 'message'; message: CamtMessage }
  | { kind: 'statement'; statement: CamtStatement }
  | { kind: 'entry'; statementId: string; entry: CamtEntry }
  | { kind: 'statement-end'; statementId: string; totals: CamtStatementTotals };
