import type {
  CamtBalance,
  CamtGroupHeader,
  CamtMessageType,
  CamtNumberAndSum,
  CamtStatement,
  CamtTxsSummry,
  CamtVersion,
} from './camt-types';
import { CamtError } from './errors';
import { defined, readAccount, readAmount, readCdtDbtInd, readCount, readDate } from './read-common';
import { child, text } from './xml-values';

const NAMESPACE = /^urn:iso:std:iso:20022:tech:xsd:(camt\.05[34])\.001\.(\d\d)$/;
const VERSIONS: readonly string[] = ['02', '03', '04', '05', '06', '07', '08'];

/** The message element under `Document` for each message type. */
export const MESSAGE_ELEMENT: Readonly<Record<CamtMessageType, string>> = {
  'camt.053': 'BkToCstmrStmt',
  'camt.054': 'BkToCstmrDbtCdtNtfctn',
};

/** The repeated report element inside the message. */
export const STATEMENT_ELEMENT: Readonly<Record<CamtMessageType, 'Stmt' | 'Ntfctn'>> = {
  'camt.053': 'Stmt',
  'camt.054': 'Ntfctn',
};

/**
 * Identifies the message from the root tag's namespace (`urn:…:camt.053.001.02`), which is what
 * fixes the schema; `xsi:schemaLocation` is ignored because banks leave stale values in it.
 */
export function readMessageType(rootTag: string): {
  type: CamtMessageType;
  version: CamtVersion;
  namespace: string;
} {
  for (const match of rootTag.matchAll(/\sxmlns(?::[\w.-]+)?\s*=\s*(["'])(.*?)\1/g)) {
    const found = NAMESPACE.exec(match[2]!);
    if (found === null) continue;
    const version = found[2]!;
    if (!VERSIONS.includes(version)) {
      throw new CamtError('unsupported_message', `${found[1]!}.001.${version} is not a supported version`);
    }
    return { type: found[1] as CamtMessageType, version: version as CamtVersion, namespace: match[2]! };
  }
  throw new CamtError('unsupported_message', 'the document is not in a camt.053 or camt.054 namespace');
}

/** Reads `GrpHdr`. */
export function readGroupHeader(node: unknown): CamtGroupHeader {
  const MsgId = text(node, 'MsgId');
  const CreDtTm = text(node, 'CreDtTm');
  if (MsgId === undefined || CreDtTm === undefined) {
    throw new CamtError('malformed', 'GrpHdr needs MsgId and CreDtTm', 'GrpHdr');
  }
  const pages = child(node, 'MsgPgntn');
  const AddtlInf = text(node, 'AddtlInf');
  return defined({
    MsgId,
    CreDtTm,
    MsgPgntn:
      pages === undefined
        ? undefined
        : { PgNb: text(pages, 'PgNb') ?? '', LastPgInd: text(pages, 'LastPgInd') === 'true' },
    AddtlInf,
  });
}

/** Collects a statement's header elements as they stream past, before its first entry. */
export class StatementBuilder {
  private readonly parts: Record<string, unknown[]> = {};

  constructor(private readonly element: 'Stmt' | 'Ntfctn') {}

  /** Keeps one parsed child element of `Stmt`/`Ntfctn` (entries are handled separately). */
  add(name: string, node: unknown): void {
    (this.parts[name] ??= []).push(node);
  }

  /** The statement as read so far; called once, when its first entry or its end is reached. */
  build(): CamtStatement {
    const one = (name: string): unknown => this.parts[name]?.[0];
    const Id = text(one('Id'));
    if (Id === undefined) throw new CamtError('malformed', `${this.element} without Id`, this.element);
    const where = `${this.element} ${Id}`;
    const account = readAccount(one('Acct'));
    if (account === undefined) throw new CamtError('malformed', 'statement without Acct', where);
    const range = one('FrToDt');
    return defined({
      element: this.element,
      Id,
      ElctrncSeqNb: text(one('ElctrncSeqNb')),
      LglSeqNb: text(one('LglSeqNb')),
      CreDtTm: text(one('CreDtTm')),
      FrToDt:
        range === undefined
          ? undefined
          : defined({ FrDtTm: text(range, 'FrDtTm'), ToDtTm: text(range, 'ToDtTm') }),
      Acct: account,
      Bal: (this.parts.Bal ?? []).map((b) => readBalance(b, where)),
      TxsSummry: one('TxsSummry') === undefined ? undefined : readSummary(one('TxsSummry'), where),
    });
  }
}

function readBalance(node: unknown, where: string): CamtBalance {
  const type = child(node, 'Tp');
  // .001.02+ nest the code in CdOrPrtry; accept a bare Cd/Prtry too, older banks emit it.
  const choice = child(type, 'CdOrPrtry') ?? type;
  const Tp = text(choice, 'Cd') ?? text(choice, 'Prtry');
  if (Tp === undefined) throw new CamtError('malformed', 'Bal without Tp', where);
  return {
    Tp,
    Amt: readAmount(child(node, 'Amt'), `${where} Bal ${Tp}`),
    CdtDbtInd: readCdtDbtInd(node, `${where} Bal ${Tp}`),
    Dt: readDate(child(node, 'Dt')) ?? {},
  };
}

function readNumberAndSum(node: unknown, where: string): CamtNumberAndSum {
  return defined({ NbOfNtries: readCount(node, 'NbOfNtries', where), Sum: text(node, 'Sum') });
}

function readSummary(node: unknown, where: string): CamtTxsSummry {
  const total = child(node, 'TtlNtries');
  const credits = child(node, 'TtlCdtNtries');
  const debits = child(node, 'TtlDbtNtries');
  return defined({
    TtlNtries:
      total === undefined
        ? undefined
        : defined({
            ...readNumberAndSum(total, where),
            // .001.02 states the net as TtlNetNtryAmt + CdtDbtInd; .001.03 on nest them in TtlNetNtry.
            TtlNetNtryAmt: text(total, 'TtlNetNtryAmt') ?? text(child(total, 'TtlNetNtry'), 'Amt'),
            CdtDbtInd:
              child(total, 'CdtDbtInd') !== undefined
                ? readCdtDbtInd(total, where)
                : child(child(total, 'TtlNetNtry'), 'CdtDbtInd') !== undefined
                  ? readCdtDbtInd(child(total, 'TtlNetNtry'), where)
                  : undefined,
          }),
    TtlCdtNtries: credits === undefined ? undefined : readNumberAndSum(credits, where),
    TtlDbtNtries: debits === undefined ? undefined : readNumberAndSum(debits, where),
  });
}
