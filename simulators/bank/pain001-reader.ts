import { XMLParser, XMLValidator } from 'fast-xml-parser';

/**
 * Reads the payout instructions Skil uploads to the bank's outbox: ISO 20022 pain.001.001.09
 * credit transfers (decision 0090). The simulated bank books each `CdtTrfTxInf` as a debit of the
 * collection account. Hostile input is refused rather than interpreted: no DOCTYPE (so no entity
 * expansion), entities left unprocessed, and every amount and identifier checked. Any problem
 * rejects the whole file, as a bank rejects a payment file whose control sums do not hold.
 */

export interface Pain001Payout {
  /** `PmtId/EndToEndId`: the payout id (`po_…`), or a krafa refund's id (`re_…`, decision 0101). */
  payoutId: string;
  /** `PmtInf/PmtInfId`: the settlement run id. */
  runId: string;
  /** Whole ISK. */
  amount: number;
  creditorName: string;
  /** `Cdtr/Id/OrgId/Othr/Id` (a company) or `…/PrvtId/…` (a person, a krafa's payer): kennitala. */
  creditorId?: string;
  /** 12 digits. */
  creditorAccount: string;
  remittance?: string;
  requestedDate?: string;
}

export interface Pain001File {
  msgId: string;
  debtorAccount: string;
  payouts: Pain001Payout[];
}

export class Pain001Error extends Error {
  override name = 'Pain001Error';
}

const NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:pain.001.001.09';
const MAX_CHARS = 16 * 1024 * 1024;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  processEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  // Elements that may repeat are always arrays, so one and many read alike.
  isArray: (name) => name === 'PmtInf' || name === 'CdtTrfTxInf',
});

type Node = Record<string, unknown>;

function node(value: unknown, where: string): Node {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new Pain001Error(`${where} is missing or not an element`);
  return value as Node;
}

function text(parent: Node, path: string[], where: string): string {
  let current: unknown = parent;
  for (const name of path) current = (current as Node | undefined)?.[name];
  if (current !== null && typeof current === 'object' && '#text' in current)
    current = (current as Node)['#text'];
  if (typeof current !== 'string' || current === '')
    throw new Pain001Error(`${where}/${path.join('/')} is missing`);
  return decodeEntities(current);
}

const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/**
 * The five predefined entities and character references, decoded by hand: the parser leaves
 * entities alone (no DTD is allowed, so nothing else can be defined), and names keep their `&`.
 */
function decodeEntities(value: string): string {
  return value.replace(/&(lt|gt|amp|quot|apos|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});/g, (whole, name: string) => {
    if (name[0] !== '#') return NAMED[name] ?? whole;
    const code = name[1] === 'x' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

function optionalText(parent: Node, path: string[]): string | undefined {
  try {
    return text(parent, path, '');
  } catch {
    return undefined;
  }
}

function wholeIsk(value: string, where: string): number {
  if (!/^(0|[1-9][0-9]{0,14})$/.test(value)) throw new Pain001Error(`${where}: ${value} is not whole krónur`);
  return Number(value);
}

/** Parses and checks one pain.001.001.09 file; throws Pain001Error with the reason otherwise. */
export function readPain001(xml: string): Pain001File {
  if (xml.length > MAX_CHARS) throw new Pain001Error('file too large');
  if (/<!DOCTYPE/i.test(xml)) throw new Pain001Error('DOCTYPE is not allowed');
  const valid = XMLValidator.validate(xml);
  if (valid !== true)
    throw new Pain001Error(`not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  const doc = node((parser.parse(xml) as Node).Document, 'Document');
  if (doc['@_xmlns'] !== NAMESPACE) throw new Pain001Error(`namespace must be ${NAMESPACE}`);
  const root = node(doc.CstmrCdtTrfInitn, 'CstmrCdtTrfInitn');
  const header = node(root.GrpHdr, 'GrpHdr');
  const msgId = text(header, ['MsgId'], 'GrpHdr');
  const infos = root.PmtInf as unknown[] | undefined;
  if (!infos?.length) throw new Pain001Error('no PmtInf');

  const payouts: Pain001Payout[] = [];
  let debtorAccount: string | undefined;
  for (const [i, raw] of infos.entries()) {
    const info = node(raw, `PmtInf[${i}]`);
    const where = `PmtInf[${i}]`;
    const runId = text(info, ['PmtInfId'], where);
    if (text(info, ['PmtMtd'], where) !== 'TRF') throw new Pain001Error(`${where}: PmtMtd must be TRF`);
    const account = text(info, ['DbtrAcct', 'Id', 'Othr', 'Id'], where);
    if (debtorAccount !== undefined && account !== debtorAccount)
      throw new Pain001Error('PmtInf blocks debit different accounts');
    debtorAccount = account;
    const requestedDate = optionalText(info, ['ReqdExctnDt', 'Dt']);
    const txs = (info.CdtTrfTxInf as unknown[] | undefined) ?? [];
    if (txs.length === 0) throw new Pain001Error(`${where}: no CdtTrfTxInf`);
    let sum = 0;
    for (const [j, rawTx] of txs.entries()) {
      const tx = node(rawTx, `${where}/CdtTrfTxInf[${j}]`);
      const at = `${where}/CdtTrfTxInf[${j}]`;
      const instructed = node(node(tx.Amt, `${at}/Amt`).InstdAmt, `${at}/Amt/InstdAmt`);
      if (instructed['@_Ccy'] !== 'ISK') throw new Pain001Error(`${at}: only ISK is accepted`);
      const amount = wholeIsk(text(tx, ['Amt', 'InstdAmt'], at), at);
      if (amount <= 0) throw new Pain001Error(`${at}: amount must be positive`);
      const creditorAccount = text(tx, ['CdtrAcct', 'Id', 'Othr', 'Id'], at);
      if (!/^[0-9]{12}$/.test(creditorAccount))
        throw new Pain001Error(`${at}: creditor account must be 12 digits`);
      const creditorId =
        optionalText(tx, ['Cdtr', 'Id', 'OrgId', 'Othr', 'Id']) ??
        optionalText(tx, ['Cdtr', 'Id', 'PrvtId', 'Othr', 'Id']);
      const remittance = optionalText(tx, ['RmtInf', 'Ustrd']);
      payouts.push({
        payoutId: text(tx, ['PmtId', 'EndToEndId'], at),
        runId,
        amount,
        creditorName: text(tx, ['Cdtr', 'Nm'], at),
        creditorAccount,
        ...(creditorId !== undefined && { creditorId }),
        ...(remittance !== undefined && { remittance }),
        ...(requestedDate !== undefined && { requestedDate }),
      });
      sum += amount;
    }
    checkControl(info, where, txs.length, sum);
  }
  checkControl(
    header,
    'GrpHdr',
    payouts.length,
    payouts.reduce((n, p) => n + p.amount, 0),
  );
  const ids = new Set(payouts.map((p) => p.payoutId));
  if (ids.size !== payouts.length) throw new Pain001Error('an EndToEndId appears twice');
  return { msgId, debtorAccount: debtorAccount!, payouts };
}

/** `NbOfTxs` must match; `CtrlSum`, when given, must equal the sum of the amounts. */
function checkControl(parent: Node, where: string, count: number, sum: number): void {
  const stated = text(parent, ['NbOfTxs'], where);
  if (stated !== String(count))
    throw new Pain001Error(`${where}/NbOfTxs ${stated} but ${count} transactions`);
  const control = optionalText(parent, ['CtrlSum']);
  if (control === undefined) return;
  // CtrlSum is a decimal; whole krónur may be written with a fraction of zeros.
  const match = /^([0-9]+)(?:\.0+)?$/.exec(control);
  if (!match || Number(match[1]) !== sum) throw new Pain001Error(`${where}/CtrlSum ${control} but ${sum}`);
}
