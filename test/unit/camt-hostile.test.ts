/**
 * Hostile, broken and awkward input: refused with a typed reason before anything is expanded or
 * trusted, whatever the chunking of the stream.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { CamtError, parseCamt, type CamtErrorCode, type CamtEvent } from '../../adapters/banks/camt';

const SAMPLES = join(__dirname, '..', 'fixtures', 'bank-files');
const sample = (name: string) => readFileSync(join(SAMPLES, name));

function chunks(data: Buffer | string, size: number): Readable {
  const buffer = typeof data === 'string' ? Buffer.from(data) : data;
  const parts: Buffer[] = [];
  for (let i = 0; i < buffer.length; i += size) parts.push(buffer.subarray(i, i + size));
  return Readable.from(parts);
}

async function collect(
  data: Buffer | string,
  size = 64 * 1024,
  maxElementChars?: number,
): Promise<CamtEvent[]> {
  const events: CamtEvent[] = [];
  for await (const e of parseCamt(chunks(data, size), maxElementChars ? { maxElementChars } : {}))
    events.push(e);
  return events;
}

async function refusal(data: Buffer | string, size?: number, max?: number): Promise<CamtErrorCode> {
  try {
    await collect(data, size, max);
  } catch (error) {
    if (error instanceof CamtError) return error.code;
    throw error;
  }
  throw new Error('parsed without complaint');
}

const doc = (body: string, ns = 'camt.054.001.08', root = 'BkToCstmrDbtCdtNtfctn', element = 'Ntfctn') =>
  `<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:${ns}"><${root}>` +
  `<GrpHdr><MsgId>M1</MsgId><CreDtTm>2026-11-21T06:00:00Z</CreDtTm></GrpHdr>` +
  `<${element}><Id>N1</Id><Acct><Id><IBAN>IS140159260076545510730339</IBAN></Id><Ccy>ISK</Ccy></Acct>${body}</${element}>` +
  `</${root}></Document>`;
const entry = (amount: string, extra = '', status = '<Sts><Cd>BOOK</Cd></Sts>') =>
  `<Ntry><Amt Ccy="ISK">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd>${status}<BookgDt><Dt>2026-11-20</Dt></BookgDt>${extra}</Ntry>`;

const BILLION_LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.02"><BkToCstmrDbtCdtNtfctn><GrpHdr><MsgId>&lol9;</MsgId></GrpHdr></BkToCstmrDbtCdtNtfctn></Document>`;

const XXE = `<?xml version="1.0"?>
<!DOCTYPE Document [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>&xxe;</MsgId></GrpHdr></BkToCstmrStmt></Document>`;

test.each<[string, CamtErrorCode, string]>([
  ['billion laughs', 'doctype_forbidden', BILLION_LAUGHS],
  ['external entity (XXE)', 'doctype_forbidden', XXE],
  ['a DOCTYPE without entities', 'doctype_forbidden', `<!DOCTYPE Document>${doc('')}`],
  ['an ENTITY declaration without a DOCTYPE', 'entity_forbidden', `<!ENTITY x "y">${doc('')}`],
  [
    'an undeclared entity reference in a value',
    'entity_forbidden',
    doc(entry('100', '<AcctSvcrRef>&xxe;</AcctSvcrRef>')),
  ],
  [
    'not camt',
    'unsupported_message',
    '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.03"><CstmrCdtTrfInitn/></Document>',
  ],
  ['camt.053.001.09', 'unsupported_message', doc('', 'camt.053.001.09', 'BkToCstmrStmt', 'Stmt')],
  ['camt.053.001.01', 'unsupported_message', doc('', 'camt.053.001.01', 'BkToCstmrStmt', 'Stmt')],
  ['message element of the other type', 'unsupported_message', doc('', 'camt.053.001.02')],
  ['ISK amount with decimals', 'invalid_amount', doc(entry('100.50'))],
  ['negative amount', 'invalid_amount', doc(entry('-100'))],
  [
    'amount without currency',
    'malformed',
    doc('<Ntry><Amt>5</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts></Ntry>'),
  ],
  ['entry without status', 'malformed', doc(entry('5', '', ''))],
  ['unknown credit/debit indicator', 'malformed', doc(entry('5').replace('CRDT', 'CREDIT'))],
  ['mismatched tags', 'malformed', doc(entry('5').replace('</BookgDt>', '</ValDt>'))],
  ['an empty file', 'truncated', ''],
  [
    'a summary that disagrees',
    'control_total_mismatch',
    doc(`<TxsSummry><TtlNtries><NbOfNtries>2</NbOfNtries></TtlNtries></TxsSummry>${entry('5')}`),
  ],
])('%s is refused: %s', async (_name, code, xml) => {
  expect(await refusal(xml)).toBe(code);
});

test('invalid UTF-8 bytes are refused', async () => {
  const bytes = Buffer.concat([
    Buffer.from(doc(entry('5')).slice(0, 400)),
    Buffer.from([0xc3, 0x28]),
    Buffer.from(doc(entry('5')).slice(400)),
  ]);
  expect(await refusal(bytes)).toBe('malformed');
});

test('a file cut anywhere is refused as truncated, never half-accepted', async () => {
  const full = sample('fi_fffs_camt053_001_02_statement.xml');
  const end = full.lastIndexOf('</Document>');
  for (let cut = 0; cut < end; cut += 211) {
    const code = await refusal(full.subarray(0, cut), 4096);
    expect([cut, code]).toEqual([cut, 'truncated']);
  }
});

test('an entry larger than the bound is refused instead of buffered', async () => {
  const huge = doc(entry('5', `<AddtlNtryInf>${'x'.repeat(50_000)}</AddtlNtryInf>`));
  expect(await refusal(huge, 1024, 10_000)).toBe('element_too_large');
  // A comment or tag that never ends is bounded the same way.
  expect(await refusal(doc(`<!--${'x'.repeat(50_000)}`), 1024, 10_000)).toBe('element_too_large');
});

test('chunk boundaries do not matter: byte by byte equals all at once', async () => {
  const file = sample('genkgo_camt054_001_08.xml');
  const whole = await collect(file);
  const byteByByte = await collect(file, 1);
  expect(byteByByte).toEqual(whole);
  expect(whole.map((e) => e.kind)).toEqual(['message', 'statement', 'entry', 'statement-end']);
});

test('commented-out and CDATA text is not an entry; predefined entities and a BOM are fine', async () => {
  const xml =
    '\uFEFF' +
    doc(
      `<!-- <Ntry><Amt Ccy="ISK">999</Amt></Ntry> -->` +
        entry('100', '<AddtlNtryInf>Jón &amp; Gunna &#246; &#x2713; <![CDATA[<Ntry>]]></AddtlNtryInf>') +
        entry('5', '', '<Sts>PDNG</Sts>'),
    );
  const events = await collect(xml, 7);
  const entries = events.flatMap((e) => (e.kind === 'entry' ? [e.entry] : []));
  expect(entries.map((e) => [e.Amt.minor, e.Sts, e.booked])).toEqual([
    [100n, 'BOOK', true],
    [5n, 'PDNG', false],
  ]);
  expect(entries[0]!.AddtlNtryInf).toContain('Jón & Gunna ö ✓');
  const end = events.at(-1)!;
  expect(end.kind === 'statement-end' && end.totals.booked).toEqual({ credits: 100n, debits: 0n, count: 1 });
});

test('namespace prefixes are accepted', async () => {
  const xml = doc(entry('7'))
    .replace(/<(\/?)([A-Za-z])/g, '<$1c:$2')
    .replace('xmlns=', 'xmlns:c=');
  const events = await collect(xml);
  expect(events.filter((e) => e.kind === 'entry')).toHaveLength(1);
});
