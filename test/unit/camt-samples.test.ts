/**
 * Every public sample in test/fixtures/bank-files (copied from ../shared/fixtures/bank-files) parses, with its control totals verified.
 * Two of the samples state totals that are inconsistent in the published files; for those the test
 * pins the exact figures the parser reports, and that it refuses the file for it.
 */
import { createReadStream, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  CamtControlTotalError,
  parseCamt,
  type CamtEntry,
  type CamtEvent,
  type CamtMessage,
  type CamtStatement,
  type CamtStatementTotals,
} from '../../adapters/banks/camt';

const SAMPLES = join(__dirname, '..', 'fixtures', 'bank-files');

interface Parsed {
  message?: CamtMessage;
  statements: CamtStatement[];
  entries: CamtEntry[];
  totals: CamtStatementTotals[];
  error?: unknown;
}

/** Reads a sample in small chunks so entries straddle chunk boundaries. */
async function parseSample(file: string): Promise<Parsed> {
  const parsed: Parsed = { statements: [], entries: [], totals: [] };
  try {
    const events: AsyncIterable<CamtEvent> = parseCamt(
      createReadStream(join(SAMPLES, file), { highWaterMark: 113 }),
    );
    for await (const event of events) {
      if (event.kind === 'message') parsed.message = event.message;
      if (event.kind === 'statement') parsed.statements.push(event.statement);
      if (event.kind === 'entry') parsed.entries.push(event.entry);
      if (event.kind === 'statement-end') parsed.totals.push(event.totals);
    }
  } catch (error) {
    parsed.error = error;
  }
  return parsed;
}

test('the fixtures folder holds the eight samples this file covers', () => {
  expect(
    readdirSync(SAMPLES)
      .filter((f) => f.endsWith('.xml'))
      .sort(),
  ).toEqual([
    'fi_fffs_camt053_001_02_statement.xml',
    'fi_fffs_camt054_001_02_credit_advice.xml',
    'genkgo_camt053_001_02_multi_statement.xml',
    'genkgo_camt053_001_04.xml',
    'genkgo_camt053_001_08.xml',
    'genkgo_camt054_001_02.xml',
    'genkgo_camt054_001_04.xml',
    'genkgo_camt054_001_08.xml',
  ]);
});

test('FFFS camt.053.001.02: 10 entries, all control totals and the balance hold', async () => {
  const p = await parseSample('fi_fffs_camt053_001_02_statement.xml');
  expect(p.error).toBeUndefined();
  expect(p.message).toMatchObject({ type: 'camt.053', version: '02', GrpHdr: { MsgId: 'BANKFILEID00001' } });
  expect(p.statements[0]).toMatchObject({
    Id: 'BANKSTMTID0972010',
    ElctrncSeqNb: '120',
    LglSeqNb: '97',
    Acct: { IBAN: 'FI7433010001222090', Ccy: 'EUR' },
  });
  expect(p.entries).toHaveLength(10);
  expect(p.totals[0]!.checks).toEqual([
    { check: 'TtlNtries/NbOfNtries', stated: '10', computed: '10', ok: true },
    { check: 'TtlCdtNtries/NbOfNtries', stated: '6', computed: '6', ok: true },
    { check: 'TtlCdtNtries/Sum', stated: '23075.00', computed: '23075.00', ok: true },
    { check: 'TtlDbtNtries/NbOfNtries', stated: '4', computed: '4', ok: true },
    { check: 'TtlDbtNtries/Sum', stated: '9430.17', computed: '9430.17', ok: true },
    // OPBD 10000.00 + 23075.00 - 9430.17
    {
      check: 'OPBD + credits - debits = CLBD',
      stated: '23644.83 EUR CRDT',
      computed: '23644.83 EUR CRDT',
      ok: true,
    },
  ]);
  // Lump sums keep the AcctSvcrRef that the camt.054 credit advice details them under.
  expect(p.entries.map((e) => e.AcctSvcrRef)).toContain('091029ACCTSTMTARCH04');
  const batch = p.entries.find((e) => e.AcctSvcrRef === '091029ACCTSTMTARCH03')!;
  expect(batch.NtryDtls[0]!.TxDtls.map((t) => t.Amt?.minor)).toEqual([200002n, 100001n, 123002n]);
  expect(batch.NtryDtls[0]!.TxDtls[0]!.RmtInf.Strd[0]!.CdtrRefInf).toEqual({ Tp: 'SCOR', Ref: '3900' });
  // v02 charges: each Chrgs element one charge, its Amt directly under it.
  const charged = p.entries
    .flatMap((e) => e.NtryDtls.flatMap((d) => d.TxDtls))
    .filter((t) => t.Chrgs !== undefined)
    .map((t) => [t.Refs.TxId, t.Chrgs]);
  expect(charged).toEqual([
    ['ISSRBKREF12345678', { Rcrd: [{ Amt: { Ccy: 'EUR', minor: 2000n }, Tp: 'COMM' }] }],
    ['BKREFDBT0101010', { Rcrd: [{ Amt: { Ccy: 'EUR', minor: 4500n }, Tp: 'COMM' }] }],
  ]);
});

test('FFFS camt.054.001.02: count, gross sum and INFO entry verified; its stated net is inconsistent', async () => {
  const p = await parseSample('fi_fffs_camt054_001_02_credit_advice.xml');
  expect(p.message).toMatchObject({ type: 'camt.054', version: '02' });
  expect(p.entries).toHaveLength(6);
  const info = p.entries[5]!;
  expect(info).toMatchObject({
    Sts: 'INFO',
    booked: false,
    RvslInd: true,
    CdtDbtInd: 'CRDT',
    Amt: { minor: 10000n },
  });
  expect(p.entries.filter((e) => e.booked)).toHaveLength(5);
  // camt.053 lump sum 091029ACCTSTMTARCH04 (2000.00) is detailed here by two transactions.
  const lump = p.entries.find((e) => e.AcctSvcrRef === '091029ACCTSTMTARCH04')!;
  expect(lump.NtryDtls[0]!.Btch).toEqual({
    MsgId: 'BANKFILEID998765',
    NbOfTxs: 2,
    TtlAmt: { Ccy: 'EUR', minor: 200000n },
    CdtDbtInd: 'CRDT',
  });
  expect(lump.NtryDtls[0]!.TxDtls.map((t) => t.Amt!.minor)).toEqual([190000n, 10000n]);

  // Entries: +2000.00 +500.00 +3000.00 -4230.05 -1000.00 and the INFO entry CRDT 100.00 with
  // RvslInd=true. Under ISO 20022 CdtDbtInd is the direction of this entry, so the net is
  // +369.95; the file states 169.95, which is what it gives only if that reversal credit is netted
  // as a debit (its comment: "Reversal Credit to indicate unsuccesfull crediting"). Count and gross
  // sum agree, so the file is refused for its net alone.
  expect(p.error).toBeInstanceOf(CamtControlTotalError);
  const error = p.error as CamtControlTotalError;
  expect(error.statementId).toBe('BANKFILEID00001NTR00001');
  expect(error.checks).toEqual([
    { check: 'TtlNtries/NbOfNtries', stated: '6', computed: '6', ok: true },
    { check: 'TtlNtries/Sum', stated: '10830.05', computed: '10830.05', ok: true },
    { check: 'TtlNtries/TtlNetNtryAmt', stated: '169.95 CRDT', computed: '369.95 CRDT', ok: false },
  ]);
});

test('genkgo camt.053.001.02 with two statements: both balances hold', async () => {
  const p = await parseSample('genkgo_camt053_001_02_multi_statement.xml');
  expect(p.error).toBeUndefined();
  expect(p.statements.map((s) => s.Id)).toEqual(['253EURNL26VAYB8060476890', '254EURNL26VAYB8060476890']);
  expect(p.totals.map((t) => t.checks)).toEqual([
    [
      {
        check: 'OPBD + credits - debits = CLBD',
        stated: '27.00 EUR CRDT',
        computed: '27.00 EUR CRDT',
        ok: true,
      },
    ],
    [
      {
        check: 'OPBD + credits - debits = CLBD',
        stated: '20.00 EUR CRDT',
        computed: '20.00 EUR CRDT',
        ok: true,
      },
    ],
  ]);
  expect(p.entries.map((e) => [e.CdtDbtInd, e.Amt.minor])).toEqual([
    ['CRDT', 885n],
    ['DBIT', 700n],
  ]);
});

test.each(['genkgo_camt053_001_04.xml', 'genkgo_camt053_001_08.xml'])(
  '%s: the entry parses; the published closing balance is in another currency and sign',
  async (file) => {
    const p = await parseSample(file);
    expect(p.entries).toHaveLength(1);
    expect(p.entries[0]).toMatchObject({ Amt: { Ccy: 'EUR', minor: 885n }, CdtDbtInd: 'CRDT', booked: true });
    if (file.includes('_08')) {
      // .001.08: Sts as a choice, BookgDt as DtTm.
      expect(p.message?.version).toBe('08');
      expect(p.entries[0]).toMatchObject({ Sts: 'BOOK', BookgDt: { DtTm: '2014-12-31T13:15:00+01:00' } });
    }
    // OPBD is 18.15 EUR CRDT and the one entry credits 8.85 EUR, so CLBD should be 27.00 EUR CRDT;
    // the file (synthetic test data, "balances in mixed currencies") states 27.00 SEK DBIT.
    expect(p.error).toBeInstanceOf(CamtControlTotalError);
    expect((p.error as CamtControlTotalError).checks).toEqual([
      {
        check: 'OPBD + credits - debits = CLBD',
        stated: '27.00 SEK DBIT',
        computed: '27.00 EUR CRDT',
        ok: false,
      },
    ]);
  },
);

test.each(['genkgo_camt054_001_02.xml', 'genkgo_camt054_001_04.xml', 'genkgo_camt054_001_08.xml'])(
  '%s: one booked debit of 200,000 SEK; the file states no totals, the details are read per version',
  async (file) => {
    const p = await parseSample(file);
    expect(p.error).toBeUndefined();
    expect(p.statements).toHaveLength(1);
    expect(p.statements[0]!.TxsSummry).toBeUndefined();
    expect(p.totals).toHaveLength(1);
    // Nothing stated means nothing to compare: no check passes vacuously.
    expect(p.totals[0]!.checks).toEqual([]);
    expect(p.totals[0]).toMatchObject({
      entries: 1,
      debits: { count: 1, minor: 20000000n },
      credits: { count: 0, minor: 0n },
    });
    const entry = p.entries[0]!;
    expect(entry).toMatchObject({
      Amt: { Ccy: 'SEK', minor: 20000000n },
      CdtDbtInd: 'DBIT',
      Sts: 'BOOK',
      booked: true,
    });
    const tx = entry.NtryDtls.flatMap((d) => d.TxDtls);
    expect(tx).toHaveLength(3);
    expect(tx[0]!.RmtInf.Strd[0]!.CdtrRefInf).toMatchObject({ Ref: 'ISR ref number V1' });
    if (file.includes('_02')) {
      // .001.02 has no TxDtls/Amt, and this sample no AmtDtls either.
      expect(tx.map((t) => t.Amt)).toEqual([undefined, undefined, undefined]);
    } else {
      // .001.04+ carry TxDtls/Amt (CHF here) and a Btch.
      expect(tx.map((t) => t.Amt && `${t.Amt.minor} ${t.Amt.Ccy}`)).toEqual([
        '310 CHF',
        '320 CHF',
        '320 CHF',
      ]);
      expect(entry.NtryDtls[0]!.Btch).toMatchObject({ NbOfTxs: 2, TtlAmt: { Ccy: 'CHF', minor: 630n } });
    }
  },
);
