import { XMLBuilder } from 'fast-xml-parser';

/**
 * Writes ISO 20022 pain.001.001.09 customer credit transfer initiations: one payout of a settlement
 * run per file (decision 0090, 0093), with the refunds of kröfur the run nets as further credit
 * transfers of the same payment information block (decision 0101). XMLBuilder escapes every text, so a merchant's name cannot
 * break the document. Amounts are whole ISK as integer text; element order follows the schema.
 */

export const PAIN001_NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:pain.001.001.09';

/** One credit transfer from the collection account to a merchant. */
export interface Pain001Payment {
  /** `PmtInf/PmtInfId` and `RmtInf/Ustrd`: the settlement run id. */
  runId: string;
  /** `GrpHdr/MsgId` and `PmtId/EndToEndId`: the payout id (`po_…`). */
  payoutId: string;
  /** Whole ISK, > 0. */
  amount: number;
  /** `ReqdExctnDt/Dt`, YYYY-MM-DD: the settlement's banking day. */
  requestedDate: string;
  /** `GrpHdr/CreDtTm`: when the payout was written, so a retried upload carries the same bytes. */
  createdAt: Date;
  debtor: { name: string; account: string };
  creditor: { name: string; kennitala: string; account: string };
  /**
   * Refunds of kröfur the run nets (decision 0101): each its own credit transfer from the collection
   * account back to the payer's account, in the same file, `EndToEndId` = the refund id.
   */
  refunds?: Pain001Refund[];
}

/** One refund of a krafa: the money goes back to the account the payer paid from. */
export interface Pain001Refund {
  /** `PmtId/EndToEndId`: the refund id (`re_…`), found again on its debit in a later statement. */
  refundId: string;
  /** Whole ISK, > 0. */
  amount: number;
  creditor: { name: string; kennitala: string; account: string };
  /** `RmtInf/Ustrd`, shown to the payer. */
  remittance: string;
}

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  format: true,
  suppressEmptyNode: true,
});

function wholeIsk(amount: number): string {
  if (!Number.isSafeInteger(amount) || amount <= 0)
    throw new RangeError(`not a positive whole ISK amount: ${amount}`);
  return String(amount);
}

function twelveDigits(account: string, what: string): string {
  if (!/^[0-9]{12}$/.test(account)) throw new RangeError(`${what} must be 12 digits, got ${account}`);
  return account;
}

function kennitala(value: string): string {
  if (!/^[0-9]{10}$/.test(value)) throw new RangeError(`creditor kennitala must be 10 digits, got ${value}`);
  return value;
}

/** A creditor's identification: organisations (first digit 4–7) as OrgId, persons as PrvtId. */
function creditorId(id: string) {
  const other = { Othr: { Id: kennitala(id) } };
  return /^[4-7]/.test(id) ? { OrgId: other } : { PrvtId: other };
}

function transfer(
  endToEndId: string,
  amount: number,
  creditor: Pain001Payment['creditor'],
  remittance: string,
) {
  return {
    PmtId: { EndToEndId: endToEndId },
    Amt: { InstdAmt: { '@_Ccy': 'ISK', '#text': wholeIsk(amount) } },
    Cdtr: { Nm: creditor.name, Id: creditorId(creditor.kennitala) },
    CdtrAcct: { Id: { Othr: { Id: twelveDigits(creditor.account, 'creditor account') } } },
    RmtInf: { Ustrd: remittance },
  };
}

/**
 * The pain.001.001.09 document for one payout (and the krafa refunds its run nets), UTF-8 text with
 * an XML declaration.
 */
export function writePain001(p: Pain001Payment): string {
  const transfers = [
    transfer(p.payoutId, p.amount, p.creditor, p.runId),
    ...(p.refunds ?? []).map((r) => transfer(r.refundId, r.amount, r.creditor, r.remittance)),
  ];
  const total = [p.amount, ...(p.refunds ?? []).map((r) => r.amount)].reduce((a, b) => a + b, 0);
  const count = String(transfers.length);
  const amount = wholeIsk(total);
  const doc = {
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    Document: {
      '@_xmlns': PAIN001_NAMESPACE,
      CstmrCdtTrfInitn: {
        GrpHdr: {
          MsgId: p.payoutId,
          CreDtTm: p.createdAt.toISOString().replace(/\.\d{3}Z$/, '+00:00'),
          NbOfTxs: count,
          CtrlSum: amount,
          InitgPty: { Nm: p.debtor.name },
        },
        PmtInf: {
          PmtInfId: p.runId,
          PmtMtd: 'TRF',
          NbOfTxs: count,
          CtrlSum: amount,
          ReqdExctnDt: { Dt: p.requestedDate },
          Dbtr: { Nm: p.debtor.name },
          DbtrAcct: { Id: { Othr: { Id: twelveDigits(p.debtor.account, 'debtor account') } } },
          DbtrAgt: { FinInstnId: { Othr: { Id: 'NOTPROVIDED' } } },
          CdtTrfTxInf: transfers,
        },
      },
    },
  };
  return String(builder.build(doc));
}

/** The outbox file name of a payout. */
export function pain001FileName(payoutId: string): string {
  return `pain001_${payoutId}.xml`;
}
