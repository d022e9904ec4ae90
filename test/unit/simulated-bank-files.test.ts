import { Readable } from 'node:stream';
import { parseCamt, type CamtEvent } from '../../adapters/banks/camt';
import { writeCamt053, writeCamt054, type CamtEntryInput } from '../../simulators/bank/camt-writer';
import { Pain001Error, readPain001 } from '../../simulators/bank/pain001-reader';
import { writePain001 } from '../../adapters/banks/pain001';
import { chargesOf } from '../../services/bank-sync/camt-entry-rows';

// The simulated bank's camt writer read back by the real camt parser, and its pain.001 reader on
// good, hostile and inconsistent payment files.

const account = { account: '013326000133', ownerName: 'Skil & <Co> "ehf."', ownerKennitala: '5012131870' };
const day = '2026-11-24';

async function events(xml: string): Promise<CamtEvent[]> {
  const out: CamtEvent[] = [];
  for await (const ev of parseCamt(Readable.from([Buffer.from(xml)]))) out.push(ev);
  return out;
}

const claims: CamtEntryInput = {
  amount: 12_390,
  cdtDbt: 'CRDT',
  bookingDate: day,
  valueDate: day,
  acctSvcrRef: 'CLM-20261124',
  ntryRef: 'CLM-20261124',
  family: 'RCDT',
  subFamily: 'DMCT',
  batch: true,
  details: [
    {
      amount: 10_390,
      cdtDbt: 'CRDT',
      txId: 'b-1',
      endToEndId: '5510730339000166000001+20261201',
      creditorReference: '5510730339000166000001+20261201',
      debtor: { id: '1201603389' },
    },
    {
      amount: 2_000,
      cdtDbt: 'CRDT',
      txId: 'b-2',
      endToEndId: 'x<y&z',
      creditorReference: 'x<y&z',
      debtor: { id: '4101010100', name: 'Jón & "Gunna" <ehf>' },
    },
  ],
};

describe('camt writer', () => {
  it('writes a camt.054 lump sum the parser reads with every control total passing', async () => {
    const xml = writeCamt054({
      msgId: 'M-1',
      createdAt: new Date('2026-11-24T16:00:00Z'),
      id: 'CLM-20261124',
      seq: 7,
      account,
      date: day,
      entries: [claims],
    });
    const evs = await events(xml);
    const message = evs.find((e) => e.kind === 'message');
    expect(message?.kind === 'message' && message.message).toMatchObject({ type: 'camt.054', version: '08' });
    const statement = evs.find((e) => e.kind === 'statement');
    expect(statement?.kind === 'statement' && statement.statement).toMatchObject({
      element: 'Ntfctn',
      Id: 'CLM-20261124',
      ElctrncSeqNb: '7',
      Acct: { Othr: '013326000133', Ccy: 'ISK' },
    });
    const entry = evs.find((e) => e.kind === 'entry');
    if (entry?.kind !== 'entry') throw new Error('no entry');
    expect(entry.entry.Amt).toEqual({ Ccy: 'ISK', minor: 12_390n });
    expect(entry.entry.AcctSvcrRef).toBe('CLM-20261124');
    expect(entry.entry.NtryDtls[0]!.Btch).toMatchObject({ NbOfTxs: 2, TtlAmt: { minor: 12_390n } });
    const [first, second] = entry.entry.NtryDtls[0]!.TxDtls;
    expect(first).toMatchObject({
      Refs: { TxId: 'b-1', EndToEndId: '5510730339000166000001+20261201' },
      Amt: { minor: 10_390n },
      CdtDbtInd: 'CRDT',
      RltdPties: { Dbtr: { Id: '1201603389' } },
    });
    expect(first!.RmtInf.Strd[0]!.CdtrRefInf?.Ref).toBe('5510730339000166000001+20261201');
    // Markup in references and names is escaped on the way out and comes back as the same text.
    expect(second!.Refs.EndToEndId).toBe('x<y&z');
    expect(second!.RltdPties.Dbtr).toEqual({ Nm: 'Jón & "Gunna" <ehf>', Id: '4101010100' });
    const end = evs.find((e) => e.kind === 'statement-end');
    if (end?.kind !== 'statement-end') throw new Error('no end');
    expect(end.totals.checks.length).toBeGreaterThanOrEqual(6);
    expect(end.totals.checks.filter((c) => !c.ok)).toEqual([]);
  });

  it('writes a camt.053 whose balances and summary agree with its entries', async () => {
    const payout: CamtEntryInput = {
      amount: 50_000,
      cdtDbt: 'DBIT',
      bookingDate: day,
      valueDate: day,
      acctSvcrRef: 'PAY-20261124-1',
      family: 'ICDT',
      subFamily: 'DMCT',
      details: [
        {
          amount: 50_000,
          cdtDbt: 'DBIT',
          pmtInfId: 'str_1',
          endToEndId: 'po_1',
          creditor: { name: 'Kaffi <&> ehf.', id: '4101010100', account: '011126000001' },
        },
      ],
    };
    const xml = writeCamt053({
      msgId: 'M-2',
      createdAt: new Date('2026-11-24T16:00:00Z'),
      id: 'STM-20261124',
      seq: 3,
      account,
      date: day,
      openingBalance: 10_000,
      closingBalance: 10_000 + 12_390 - 50_000,
      entries: [{ ...claims, batch: false, details: [] }, payout],
    });
    const evs = await events(xml);
    const statement = evs.find((e) => e.kind === 'statement');
    if (statement?.kind !== 'statement') throw new Error('no statement');
    expect(statement.statement.Bal.map((b) => [b.Tp, b.Amt.minor, b.CdtDbtInd])).toEqual([
      ['OPBD', 10_000n, 'CRDT'],
      ['CLBD', 27_610n, 'DBIT'],
    ]);
    const entries = evs.flatMap((e) => (e.kind === 'entry' ? [e.entry] : []));
    expect(entries.map((e) => [e.AcctSvcrRef, e.CdtDbtInd, e.Amt.minor])).toEqual([
      ['CLM-20261124', 'CRDT', 12_390n],
      ['PAY-20261124-1', 'DBIT', 50_000n],
    ]);
    expect(entries[0]!.NtryDtls).toEqual([]);
    expect(entries[1]!.NtryDtls[0]!.TxDtls[0]).toMatchObject({
      Refs: { PmtInfId: 'str_1', EndToEndId: 'po_1' },
      RltdPties: { Cdtr: { Nm: 'Kaffi <&> ehf.', Id: '4101010100' }, CdtrAcct: { Othr: '011126000001' } },
    });
    const end = evs.find((e) => e.kind === 'statement-end');
    if (end?.kind !== 'statement-end') throw new Error('no end');
    expect(end.totals.checks.find((c) => c.check === 'OPBD + credits - debits = CLBD')?.ok).toBe(true);
    expect(end.totals.checks.filter((c) => !c.ok)).toEqual([]);
  });

  it('refuses inconsistent or non-integer figures instead of writing them', () => {
    const base = {
      msgId: 'M',
      createdAt: new Date(),
      id: 'STM-1',
      seq: 1,
      account,
      date: day,
      entries: [claims],
    };
    expect(() => writeCamt053({ ...base, openingBalance: 0, closingBalance: 1 })).toThrow(/closing balance/);
    expect(() => writeCamt054({ ...base, entries: [{ ...claims, amount: 1.5 }] })).toThrow(/whole ISK/);
    expect(() => writeCamt054({ ...base, entries: [{ ...claims, amount: -1 }] })).toThrow(/whole ISK/);
  });
});

function pain(over: { ctrlSum?: string; nbOfTxs?: string; doctype?: boolean; amount?: string } = {}): string {
  return `<?xml version="1.0" encoding="UTF-8"?>${over.doctype ? '<!DOCTYPE x [<!ENTITY a "aaaa">]>' : ''}
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"><CstmrCdtTrfInitn>
<GrpHdr><MsgId>m1</MsgId><CreDtTm>2026-11-24T10:00:00+00:00</CreDtTm><NbOfTxs>${over.nbOfTxs ?? '2'}</NbOfTxs><CtrlSum>${over.ctrlSum ?? '3000'}</CtrlSum><InitgPty><Nm>Skil</Nm></InitgPty></GrpHdr>
<PmtInf><PmtInfId>str_9</PmtInfId><PmtMtd>TRF</PmtMtd><NbOfTxs>2</NbOfTxs><CtrlSum>3000</CtrlSum>
<ReqdExctnDt><Dt>2026-11-24</Dt></ReqdExctnDt><Dbtr><Nm>Skil</Nm></Dbtr>
<DbtrAcct><Id><Othr><Id>013326000133</Id></Othr></Id></DbtrAcct><DbtrAgt><FinInstnId><Othr><Id>NOTPROVIDED</Id></Othr></FinInstnId></DbtrAgt>
<CdtTrfTxInf><PmtId><EndToEndId>po_a</EndToEndId></PmtId><Amt><InstdAmt Ccy="ISK">${over.amount ?? '1000'}</InstdAmt></Amt>
<Cdtr><Nm>A &amp; B</Nm><Id><OrgId><Othr><Id>4101010100</Id></Othr></OrgId></Id></Cdtr><CdtrAcct><Id><Othr><Id>011126000001</Id></Othr></Id></CdtrAcct><RmtInf><Ustrd>str_9</Ustrd></RmtInf></CdtTrfTxInf>
<CdtTrfTxInf><PmtId><EndToEndId>po_b</EndToEndId></PmtId><Amt><InstdAmt Ccy="ISK">2000</InstdAmt></Amt>
<Cdtr><Nm>C</Nm></Cdtr><CdtrAcct><Id><Othr><Id>011126000002</Id></Othr></Id></CdtrAcct></CdtTrfTxInf>
</PmtInf></CstmrCdtTrfInitn></Document>`;
}

describe('pain.001 reader', () => {
  it('reads every credit transfer with its run, amount and creditor', () => {
    const file = readPain001(pain());
    expect(file.debtorAccount).toBe('013326000133');
    expect(file.payouts).toEqual([
      {
        payoutId: 'po_a',
        runId: 'str_9',
        amount: 1000,
        creditorName: 'A & B',
        creditorId: '4101010100',
        creditorAccount: '011126000001',
        remittance: 'str_9',
        requestedDate: '2026-11-24',
      },
      {
        payoutId: 'po_b',
        runId: 'str_9',
        amount: 2000,
        creditorName: 'C',
        creditorAccount: '011126000002',
        requestedDate: '2026-11-24',
      },
    ]);
  });

  it.each([
    ['a DOCTYPE', pain({ doctype: true }), /DOCTYPE/],
    ['a wrong control sum', pain({ ctrlSum: '2999' }), /CtrlSum/],
    ['a wrong count', pain({ nbOfTxs: '3' }), /NbOfTxs/],
    ['a fractional amount', pain({ amount: '10.5', ctrlSum: '2010.5' }), /whole/],
    ['broken XML', '<Document><CstmrCdtTrfInitn>', /well-formed|missing/],
    ['another namespace', pain().replace('pain.001.001.09', 'pain.001.001.03'), /namespace/],
  ])('rejects %s', (_name, xml, reason) => {
    expect(() => readPain001(xml)).toThrow(Pain001Error);
    expect(() => readPain001(xml)).toThrow(reason);
  });

  it('reads what the settlement side writes (adapters/banks/pain001.ts)', () => {
    const xml = writePain001({
      runId: 'str_2026',
      payoutId: 'po_xyz',
      amount: 98_765,
      requestedDate: day,
      createdAt: new Date('2026-11-24T12:00:00Z'),
      debtor: { name: 'Skil ehf.', account: '013326000133' },
      creditor: { name: 'Búð <&> ehf.', kennitala: '4101010100', account: '011126000001' },
    });
    const file = readPain001(xml);
    expect(file.debtorAccount).toBe('013326000133');
    expect(file.payouts).toMatchObject([
      {
        payoutId: 'po_xyz',
        runId: 'str_2026',
        amount: 98_765,
        creditorId: '4101010100',
        creditorAccount: '011126000001',
      },
    ]);
  });
});

describe('charges', () => {
  it("writes a claim payment's bank charge as Chrgs, read back apart from its amount", async () => {
    const charged: CamtEntryInput = {
      ...claims,
      details: claims.details.map((d, i) => (i === 0 ? { ...d, charges: 120 } : d)),
    };
    const xml = writeCamt054({
      msgId: 'M-3',
      createdAt: new Date('2026-11-24T16:00:00Z'),
      id: 'CLM-20261124',
      seq: 8,
      account,
      date: day,
      entries: [charged],
    });
    const entry = (await events(xml)).find((e) => e.kind === 'entry');
    if (entry?.kind !== 'entry') throw new Error('no entry');
    const [first, second] = entry.entry.NtryDtls[0]!.TxDtls;
    expect(first!.Amt).toEqual({ Ccy: 'ISK', minor: 10_390n });
    expect(first!.Chrgs).toEqual({
      TtlChrgsAndTaxAmt: { Ccy: 'ISK', minor: 120n },
      Rcrd: [
        { Amt: { Ccy: 'ISK', minor: 120n }, CdtDbtInd: 'DBIT', ChrgInclInd: false, Tp: 'COMM', Br: 'CRED' },
      ],
    });
    expect(chargesOf(first!, 'ISK')).toBe(120);
    expect(second!.Chrgs).toBeUndefined();
    expect(chargesOf(second!, 'ISK')).toBeUndefined();
  });
});
