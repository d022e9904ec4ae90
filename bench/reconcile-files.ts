/**
 * camt files in decision 0090's format, for the bank sync tests and the reconcile benchmark:
 * claim-payment notifications (camt.054, one `Ntfctn` per banking day with one lump-sum `Ntry`
 * and a `TxDtls` per payment) and collection-account statements (camt.053).
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';

export const COLLECTION_ACCOUNT = '013326000133';

export interface ClaimPaymentDetail {
  /** The claim id (`claimIdOf`): EndToEndId and structured reference. */
  claimId: string;
  /** The bank's transactionBatchId: TxId. */
  transactionBatchId: string;
  amount: number;
  payer: string;
  /** A reversal (Refund transaction) is a debit detail. */
  debit?: boolean;
}

const BKTXCD = `<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>DMCT</SubFmlyCd></Fmly></Domn></BkTxCd>`;
const ymd = (day: string) => day.replaceAll('-', '');
const signOf = (n: number) => (n < 0 ? 'DBIT' : 'CRDT');

export function groupHeader(msgId: string): string {
  return `<GrpHdr><MsgId>${msgId}</MsgId><CreDtTm>2026-11-21T06:00:00+00:00</CreDtTm></GrpHdr>`;
}

export function claimDetailXml(d: ClaimPaymentDetail): string {
  return (
    `<TxDtls><Refs><EndToEndId>${d.claimId}</EndToEndId><TxId>${d.transactionBatchId}</TxId></Refs>` +
    `<Amt Ccy="ISK">${d.amount}</Amt><CdtDbtInd>${d.debit ? 'DBIT' : 'CRDT'}</CdtDbtInd>` +
    `<RltdPties><Dbtr><Pty><Nm>Payer</Nm><Id><PrvtId><Othr><Id>${d.payer}</Id></Othr></PrvtId></Id></Pty></Dbtr></RltdPties>` +
    `<RmtInf><Strd><CdtrRefInf><Ref>${d.claimId}</Ref></CdtrRefInf></Strd></RmtInf></TxDtls>`
  );
}

/** The opening of a camt.054 `Ntfctn` for one banking day, up to the entry's first detail. */
export function claimNotificationStart(
  day: string,
  details: { count: number; net: number },
  seq: number,
): string {
  const amount = Math.abs(details.net);
  return (
    `<Ntfctn><Id>CLM-${ymd(day)}</Id><ElctrncSeqNb>${seq}</ElctrncSeqNb><CreDtTm>${day}T06:00:00+00:00</CreDtTm>` +
    `<Acct><Id><Othr><Id>${COLLECTION_ACCOUNT}</Id></Othr></Id><Ccy>ISK</Ccy></Acct>` +
    `<TxsSummry><TtlNtries><NbOfNtries>1</NbOfNtries><Sum>${amount}</Sum><TtlNetNtryAmt>${amount}</TtlNetNtryAmt>` +
    `<CdtDbtInd>${signOf(details.net)}</CdtDbtInd></TtlNtries></TxsSummry>` +
    `<Ntry><Amt Ccy="ISK">${amount}</Amt><CdtDbtInd>${signOf(details.net)}</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>` +
    `<BookgDt><Dt>${day}</Dt></BookgDt><ValDt><Dt>${day}</Dt></ValDt><AcctSvcrRef>CLM-${ymd(day)}</AcctSvcrRef>${BKTXCD}` +
    `<NtryDtls><Btch><NbOfTxs>${details.count}</NbOfTxs><TtlAmt Ccy="ISK">${amount}</TtlAmt>` +
    `<CdtDbtInd>${signOf(details.net)}</CdtDbtInd></Btch>`
  );
}

export const CLAIM_NOTIFICATION_END = `</NtryDtls></Ntry></Ntfctn>`;

export function camt054Open(msgId: string): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08">` +
    `<BkToCstmrDbtCdtNtfctn>${groupHeader(msgId)}\n`
  );
}
export const CAMT054_CLOSE = `</BkToCstmrDbtCdtNtfctn></Document>\n`;

export const netOf = (details: ClaimPaymentDetail[]) =>
  details.reduce((s, d) => s + (d.debit ? -d.amount : d.amount), 0);

/** A whole camt.054 of claim payments, one notification per day. */
export function claimNotificationXml(
  msgId: string,
  days: { day: string; details: ClaimPaymentDetail[] }[],
  seq = 1,
): string {
  return (
    camt054Open(msgId) +
    days
      .map(
        (d, i) =>
          claimNotificationStart(d.day, { count: d.details.length, net: netOf(d.details) }, seq + i) +
          d.details.map(claimDetailXml).join('') +
          CLAIM_NOTIFICATION_END,
      )
      .join('\n') +
    CAMT054_CLOSE
  );
}

export interface StatementEntry {
  /** Signed: positive credit, negative debit. */
  amount: number;
  acctSvcrRef?: string;
  status?: 'BOOK' | 'PDNG' | 'INFO';
  reversal?: boolean;
  details?: { amount: number; txId?: string; endToEndId?: string }[];
}

/** A camt.053 statement of the collection account (or another account, for unknown_account). */
export function statementXml(opts: {
  msgId: string;
  day: string;
  seq: number;
  opening: number;
  entries: StatementEntry[];
  account?: string;
  id?: string;
}): string {
  const booked = opts.entries.filter((e) => (e.status ?? 'BOOK') === 'BOOK');
  const closing = opts.opening + booked.reduce((s, e) => s + e.amount, 0);
  const bal = (tp: string, v: number) =>
    `<Bal><Tp><CdOrPrtry><Cd>${tp}</Cd></CdOrPrtry></Tp><Amt Ccy="ISK">${Math.abs(v)}</Amt>` +
    `<CdtDbtInd>${signOf(v)}</CdtDbtInd><Dt><Dt>${opts.day}</Dt></Dt></Bal>`;
  const entry = (e: StatementEntry) =>
    `<Ntry><Amt Ccy="ISK">${Math.abs(e.amount)}</Amt><CdtDbtInd>${signOf(e.amount)}</CdtDbtInd>` +
    (e.reversal ? `<RvslInd>true</RvslInd>` : '') +
    `<Sts><Cd>${e.status ?? 'BOOK'}</Cd></Sts><BookgDt><Dt>${opts.day}</Dt></BookgDt><ValDt><Dt>${opts.day}</Dt></ValDt>` +
    (e.acctSvcrRef ? `<AcctSvcrRef>${e.acctSvcrRef}</AcctSvcrRef>` : '') +
    BKTXCD +
    (e.details?.length
      ? `<NtryDtls>` +
        e.details
          .map(
            (d) =>
              `<TxDtls><Refs>${d.endToEndId ? `<EndToEndId>${d.endToEndId}</EndToEndId>` : ''}` +
              `${d.txId ? `<TxId>${d.txId}</TxId>` : ''}</Refs>` +
              `<Amt Ccy="ISK">${Math.abs(d.amount)}</Amt><CdtDbtInd>${signOf(d.amount)}</CdtDbtInd></TxDtls>`,
          )
          .join('') +
        `</NtryDtls>`
      : '') +
    `</Ntry>`;
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">` +
    `<BkToCstmrStmt>${groupHeader(opts.msgId)}<Stmt><Id>${opts.id ?? `STM-${ymd(opts.day)}`}</Id>` +
    `<ElctrncSeqNb>${opts.seq}</ElctrncSeqNb><CreDtTm>${opts.day}T23:59:00+00:00</CreDtTm>` +
    `<Acct><Id><Othr><Id>${opts.account ?? COLLECTION_ACCOUNT}</Id></Othr></Id><Ccy>ISK</Ccy></Acct>` +
    bal('OPBD', opts.opening) +
    bal('CLBD', closing) +
    opts.entries.map(entry).join('\n') +
    `</Stmt></BkToCstmrStmt></Document>\n`
  );
}

/**
 * Streams a camt.054 of `count` claim payments to `path`, `perDay` details per banking day
 * (a day's lump sum is one entry, so it must stay under the parser's 16 MiB element bound).
 * `detail(i)` gives the i-th payment; nothing is held in memory beyond one day's totals.
 */
export async function writeClaimNotifications(
  path: string,
  count: number,
  perDay: number,
  detail: (i: number) => ClaimPaymentDetail,
  dayOf: (dayIndex: number) => string,
): Promise<void> {
  const out = createWriteStream(path);
  const write = async (text: string): Promise<void> => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write(camt054Open(`BENCH-${count}`));
  for (let start = 0, day = 0; start < count; start += perDay, day++) {
    const n = Math.min(perDay, count - start);
    let net = 0;
    for (let i = start; i < start + n; i++) net += detail(i).amount;
    await write(claimNotificationStart(dayOf(day), { count: n, net }, day + 1));
    let chunk = '';
    for (let i = start; i < start + n; i++) {
      chunk += claimDetailXml(detail(i));
      if (chunk.length > 64 * 1024) {
        await write(chunk);
        chunk = '';
      }
    }
    await write(chunk + CLAIM_NOTIFICATION_END + '\n');
  }
  await write(CAMT054_CLOSE);
  out.end();
  await once(out, 'finish');
}

/**
 * A whole camt.054 of one lump sum of `n` claim payments (claim ids from a fixed claimant, amounts
 * 1000 + i) in memory, with its control totals: for tests of the reader at a given size.
 */
export function claimNotificationOf(msgId: string, n: number): string {
  const details = Array.from({ length: n }, (_, i) => ({
    claimId: `5012131870013366${String(i).padStart(6, '0')}+20261201`,
    transactionBatchId: `TB${i}`,
    amount: 1000 + i,
    payer: '0101302989',
  }));
  const net = details.reduce((s, d) => s + d.amount, 0);
  return (
    camt054Open(msgId) +
    claimNotificationStart('2026-11-20', { count: n, net }, 1) +
    details.map(claimDetailXml).join('') +
    CLAIM_NOTIFICATION_END +
    CAMT054_CLOSE
  );
}
