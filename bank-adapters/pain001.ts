import { XMLBuilder } from 'fast-xml-parser';

/**
 * Writes ISO 20022 pain.001.001.09 customer credit transfer initiations: one payout of a settlement
 * run per file (decision 0090, 0093). XMLBuilder escapes every text, so a merchant's name cannot
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

/** The pain.001.001.09 document for one payout, UTF-8 text with an XML declaration. */
export function writePain001(p: Pain001Payment): string {
  const amount = wholeIsk(p.amount);
  if (!/^[0-9]{10}$/.test(p.creditor.kennitala))
    throw new RangeError(`creditor kennitala must be 10 digits, got ${p.creditor.kennitala}`);
  const doc = {
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    Document: {
      '@_xmlns': PAIN001_NAMESPACE,
      CstmrCdtTrfInitn: {
        GrpHdr: {
          MsgId: p.payoutId,
          CreDtTm: p.createdAt.toISOString().replace(/\.\d{3}Z$/, '+00:00'),
          NbOfTxs: '1',
          CtrlSum: amount,
          InitgPty: { Nm: p.debtor.name },
        },
        PmtInf: {
          PmtInfId: p.runId,
          PmtMtd: 'TRF',
          NbOfTxs: '1',
          CtrlSum: amount,
          ReqdExctnDt: { Dt: p.requestedDate },
          Dbtr: { Nm: p.debtor.name },
          DbtrAcct: { Id: { Othr: { Id: twelveDigits(p.debtor.account, 'debtor account') } } },
          DbtrAgt: { FinInstnId: { Othr: { Id: 'NOTPROVIDED' } } },
          CdtTrfTxInf: {
            PmtId: { EndToEndId: p.payoutId },
            Amt: { InstdAmt: { '@_Ccy': 'ISK', '#text': amount } },
            Cdtr: { Nm: p.creditor.name, Id: { OrgId: { Othr: { Id: p.creditor.kennitala } } } },
            CdtrAcct: { Id: { Othr: { Id: twelveDigits(p.creditor.account, 'creditor account') } } },
            RmtInf: { Ustrd: p.runId },
          },
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
