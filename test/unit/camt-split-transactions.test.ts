/**
 * The parser reads a lump-sum entry's transactions one by one, cut out of the entry by the scanner
 * (decision 0080). These tests hold it to the plain reading: the same entries as parsing each whole
 * `<Ntry>` at once, for every public sample and for awkward markup, and no size bound on how many
 * transactions one entry may carry.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CamtError, parseCamt, type CamtEntry } from '../../adapters/banks/camt';
import { readEntry } from '../../adapters/banks/camt/read-entry';
import { all, text } from '../../adapters/banks/camt/xml-values';
import { parseFragment } from '../helpers/fxp-fragment';
import { chunks } from '../helpers/byte-chunks';
import { claimNotificationOf } from '../../bench/reconcile-files';

const SAMPLES = join(__dirname, '..', 'fixtures', 'bank-files');

async function streamedEntries(
  xml: string,
  size: number,
  options: { maxElementChars?: number; workers?: number; maxTransactionsPerEntry?: number } = {},
): Promise<CamtEntry[]> {
  const entries: CamtEntry[] = [];
  for await (const e of parseCamt(chunks(xml, size), options)) if (e.kind === 'entry') entries.push(e.entry);
  return entries;
}

/** The reference reading: the whole document in one parse, each `<Ntry>` read with its transactions in place. */
function wholeEntries(xml: string): CamtEntry[] {
  const document = parseFragment(xml, 'Document').Document;
  const message = Object.entries(document as Record<string, unknown>).find(([k]) => !k.startsWith('@'))![1];
  const entries: CamtEntry[] = [];
  for (const name of ['Stmt', 'Ntfctn', 'Rpt']) {
    for (const statement of all(message, name)) {
      const id = text(statement, 'Id')!;
      all(statement, 'Ntry').forEach((n, i) => entries.push(readEntry(n, i, id)));
    }
  }
  return entries;
}

const samples = readdirSync(SAMPLES).filter((f) => f.endsWith('.xml'));

test.each(samples)('%s: entries equal the whole-entry reading, in any chunking', async (file) => {
  const xml = readFileSync(join(SAMPLES, file), 'utf8');
  const expected = wholeEntries(xml);
  expect(expected.length).toBeGreaterThan(0);
  // Samples whose totals disagree are refused after their entries; the entries still compare.
  for (const [size, workers] of [
    [7, 0],
    [113, 0],
    [64 * 1024, 0],
    [113, 2],
  ] as const) {
    const entries: CamtEntry[] = [];
    try {
      for await (const e of parseCamt(chunks(xml, size), { workers }))
        if (e.kind === 'entry') entries.push(e.entry);
    } catch (error) {
      expect(error).toBeInstanceOf(CamtError);
    }
    expect(entries).toEqual(expected);
  }
});

test('the samples hold lump sums with several transactions, so the cut-out path is exercised', () => {
  const counts = samples.map((f) =>
    wholeEntries(readFileSync(join(SAMPLES, f), 'utf8')).map((e) =>
      e.NtryDtls.reduce((n, d) => n + d.TxDtls.length, 0),
    ),
  );
  expect(Math.max(...counts.flat())).toBeGreaterThan(1);
});

const ntfctnDoc = (entryXml: string) =>
  `<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08"><BkToCstmrDbtCdtNtfctn>` +
  `<GrpHdr><MsgId>M</MsgId><CreDtTm>2026-11-21T06:00:00Z</CreDtTm></GrpHdr>` +
  `<Ntfctn><Id>N</Id><Acct><Id><Othr><Id>013326000133</Id></Othr></Id></Acct>${entryXml}</Ntfctn>` +
  `</BkToCstmrDbtCdtNtfctn></Document>`;

test('comments, CDATA, self-closing transactions and several NtryDtls keep their order and grouping', async () => {
  const tx = (id: string, amount: number) =>
    `<TxDtls><Refs><EndToEndId>${id}</EndToEndId></Refs><!-- <TxDtls>not one</TxDtls> -->` +
    `<Amt Ccy="ISK">${amount}</Amt><AddtlTxInf><![CDATA[<TxDtls/> & text]]></AddtlTxInf></TxDtls>`;
  const entry =
    `<Ntry><Amt Ccy="ISK">600</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>` +
    `<NtryDtls><Btch><NbOfTxs>2</NbOfTxs></Btch>${tx('A', 100)}${tx('B', 200)}</NtryDtls>` +
    `<NtryDtls><TxDtls/>${tx('C', 300)}</NtryDtls><AddtlNtryInf>after</AddtlNtryInf></Ntry>`;
  const xml = ntfctnDoc(entry);
  for (const [size, workers] of [
    [5, 0],
    [64, 0],
    [4096, 0],
    [64, 1],
  ] as const) {
    const [streamed] = await streamedEntries(xml, size, { workers });
    expect(streamed).toEqual(wholeEntries(xml)[0]);
    expect(streamed!.NtryDtls.map((d) => d.TxDtls.map((t) => t.Refs.EndToEndId))).toEqual([
      ['A', 'B'],
      [undefined, 'C'],
    ]);
    expect(streamed!.NtryDtls[0]!.TxDtls[0]!.AddtlTxInf).toBe('<TxDtls/> & text');
    expect(streamed!.AddtlNtryInf).toBe('after');
  }
});

test('a lump sum larger than the element bound parses: the bound applies to each transaction', async () => {
  const xml = claimNotificationOf('BIG', 45_000);
  // Amounts 1000 + i for i < 45,000.
  const net = 45_000 * 1000 + (45_000 * 44_999) / 2;
  // ~17.5 MB in one <Ntry>: over the 16 MiB bound that used to refuse the whole entry.
  expect(xml.length).toBeGreaterThan(16 * 1024 * 1024);
  for (const workers of [0, 2]) {
    const [entry] = await streamedEntries(xml, 256 * 1024, { workers });
    const transactions = entry!.NtryDtls[0]!.TxDtls;
    expect(transactions).toHaveLength(45_000);
    expect(transactions.reduce((s, t) => s + t.Amt!.minor, 0n)).toBe(BigInt(net));
    expect(transactions[44_999]!.Refs.TxId).toBe('TB44999');
  }

  // One transaction over the bound is still refused.
  const huge = ntfctnDoc(
    `<Ntry><Amt Ccy="ISK">1</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><NtryDtls>` +
      `<TxDtls><AddtlTxInf>${'x'.repeat(5000)}</AddtlTxInf></TxDtls></NtryDtls></Ntry>`,
  );
  await expect(streamedEntries(huge, 1024, { maxElementChars: 4096 })).rejects.toMatchObject({
    code: 'element_too_large',
  });
});

test('an entry with more transactions than the bound is refused, the file not half-read', async () => {
  const tx = `<TxDtls><Amt Ccy="ISK">1</Amt></TxDtls>`;
  const xml = ntfctnDoc(
    `<Ntry><Amt Ccy="ISK">4</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>` +
      `<NtryDtls>${tx.repeat(4)}</NtryDtls></Ntry>`,
  );
  expect(await streamedEntries(xml, 64, { maxTransactionsPerEntry: 4 })).toHaveLength(1);
  await expect(streamedEntries(xml, 64, { maxTransactionsPerEntry: 3 })).rejects.toMatchObject({
    code: 'element_too_large',
    message: expect.stringContaining('more than 3 transactions'),
  });
});

test('on worker threads a bad transaction is refused with its typed reason and place', async () => {
  const tx = (amount: string) => `<TxDtls><Amt Ccy="ISK">${amount}</Amt></TxDtls>`;
  const xml = ntfctnDoc(
    `<Ntry><Amt Ccy="ISK">3</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>` +
      `<NtryDtls>${tx('1')}${tx('1.5')}${tx('1')}</NtryDtls></Ntry>`,
  );
  for (const workers of [0, 1]) {
    await expect(streamedEntries(xml, 64, { workers })).rejects.toMatchObject({
      name: 'CamtError',
      code: 'invalid_amount',
      message: expect.stringContaining('N Ntry[0] TxDtls[1]'),
    });
  }
});
