/**
 * The signed net of a statement's entries: `.001.02` states it as `TtlNtries/TtlNetNtryAmt` with a
 * sibling `CdtDbtInd`; from `.001.03` it is nested as `TtlNtries/TtlNetNtry/{Amt, CdtDbtInd}`. Both
 * are checked against the entries.
 */
import { Readable } from 'node:stream';
import { CamtControlTotalError, parseCamt, type CamtEvent } from '../../adapters/banks/camt';

function camt053v08(net: string, indicator: 'CRDT' | 'DBIT'): string {
  const entry = (amount: string, cd: 'CRDT' | 'DBIT') =>
    `<Ntry><Amt Ccy="ISK">${amount}</Amt><CdtDbtInd>${cd}</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BkTxCd/></Ntry>`;
  const balance = (code: string, amount: string) =>
    `<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="ISK">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-23</Dt></Dt></Bal>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>
<GrpHdr><MsgId>M1</MsgId><CreDtTm>2026-11-23T16:00:00Z</CreDtTm></GrpHdr>
<Stmt><Id>STM-20261123</Id><ElctrncSeqNb>1</ElctrncSeqNb><CreDtTm>2026-11-23T16:00:00Z</CreDtTm>
<Acct><Id><Othr><Id>013326000133</Id></Othr></Id><Ccy>ISK</Ccy></Acct>
${balance('OPBD', '0')}${balance('CLBD', '500')}
<TxsSummry><TtlNtries><NbOfNtries>2</NbOfNtries><Sum>1500</Sum>
<TtlNetNtry><Amt>${net}</Amt><CdtDbtInd>${indicator}</CdtDbtInd></TtlNetNtry></TtlNtries></TxsSummry>
${entry('1000', 'CRDT')}${entry('500', 'DBIT')}
</Stmt></BkToCstmrStmt></Document>`;
}

async function totals(xml: string) {
  const events: CamtEvent[] = [];
  for await (const e of parseCamt(Readable.from([Buffer.from(xml)]))) events.push(e);
  const end = events.find((e) => e.kind === 'statement-end');
  return end?.kind === 'statement-end' ? end.totals.checks : [];
}

test('TtlNetNtry (v03+) is read and checked: net 500 CRDT', async () => {
  const checks = await totals(camt053v08('500', 'CRDT'));
  expect(checks).toContainEqual(
    expect.objectContaining({ check: 'TtlNtries/TtlNetNtryAmt', stated: '500 CRDT', ok: true }),
  );
});

test('a wrong TtlNetNtry refuses the file', async () => {
  await expect(totals(camt053v08('500', 'DBIT'))).rejects.toBeInstanceOf(CamtControlTotalError);
  await expect(totals(camt053v08('700', 'CRDT'))).rejects.toBeInstanceOf(CamtControlTotalError);
});
