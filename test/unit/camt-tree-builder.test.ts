/**
 * The scanner builds each element's plain objects in the pass that finds it (decision 0180). These tests
 * hold it to the reader it replaced, fast-xml-parser per element (test/helpers/fxp-fragment.ts):
 * the same objects for every element of every public sample, of generated claim files and of
 * awkward markup, in any chunking, built by the scanner or from the element's text.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CamtError } from '../../adapters/banks/camt';
import { scanElements, type ScanOptions } from '../../adapters/banks/camt/xml-element-scanner';
import { parseElement } from '../../adapters/banks/camt/xml-fragment';
import { claimNotificationOf } from '../../bench/reconcile-files';
import { parseFragment } from '../helpers/fxp-fragment';
import { chunks } from '../helpers/byte-chunks';

const SAMPLES = join(__dirname, '..', 'fixtures', 'bank-files');

// What parseCamt captures and cuts out.
const CAMT: Omit<ScanOptions, 'maxElementChars'> = {
  reportDepth: 3,
  capture: (path) =>
    (path.length === 3 && path[2] === 'GrpHdr') ||
    (path.length === 4 && (path[2] === 'Stmt' || path[2] === 'Ntfctn')),
  split: (path) => path.length === 6 && path[3] === 'Ntry' && path[4] === 'NtryDtls' && path[5] === 'TxDtls',
};

/** Every captured element: its name, text, and the objects the scanner built. */
async function built(
  xml: string,
  size: number,
  options: Omit<ScanOptions, 'maxElementChars'> = CAMT,
): Promise<{ name: string; xml: string; node: unknown }[]> {
  const out: { name: string; xml: string; node: unknown }[] = [];
  for await (const batch of scanElements(chunks(xml, size), {
    ...options,
    maxElementChars: 64 * 1024 * 1024,
    build: true,
  })) {
    for (const e of batch)
      if (e.type === 'element') out.push({ name: e.path.at(-1)!, xml: e.xml, node: e.node });
  }
  return out;
}

async function expectSameAsBefore(xml: string, sizes: number[], options = CAMT): Promise<number> {
  const reference = await built(xml, 64 * 1024, options);
  for (const element of reference) {
    const before = parseFragment(element.xml, element.name)[element.name];
    expect(element.node).toEqual(before);
    expect(parseElement(element.xml, element.name)).toEqual(before);
  }
  for (const size of sizes) {
    expect((await built(xml, size, options)).map((e) => e.node)).toEqual(reference.map((e) => e.node));
  }
  return reference.length;
}

test.each(readdirSync(SAMPLES).filter((f) => f.endsWith('.xml')))(
  '%s: every element is built as fast-xml-parser read it',
  async (file) => {
    const xml = readFileSync(join(SAMPLES, file), 'utf8');
    expect(await expectSameAsBefore(xml, [1, 7, 113])).toBeGreaterThan(2);
  },
);

test('a generated claim notification: every transaction and shell is built as before', async () => {
  const xml = claimNotificationOf('GEN', 300);
  expect(await expectSameAsBefore(xml, [97, 4096])).toBeGreaterThan(300);
});

// Awkward markup inside one captured element (<X> under <Document>), cut-out <C> elements beside it.
const AWKWARD: [string, string][] = [
  ['text split by a comment', '<A> one <!-- c --> two </A>'],
  ['text around a processing instruction', '<A> one <?pi x?> two </A>'],
  ['CDATA kept untrimmed beside trimmed text', '<A> a <![CDATA[ <b> & ]]> c </A><B><![CDATA[]]></B>'],
  ['CR LF and lone CR read as LF', '<A>l1\r\nl2\rl3</A><B Ccy="I\r\nSK">5</B>'],
  ['entity references left as written', '<A>Jón &amp; &#246; &xxe;</A><B k="&lt;"/>'],
  [
    'attributes: prefixes, quotes, declarations, spacing',
    `<A xmlns="u" xmlns:p="v" p:k='1' q = " 2 " r>t</A>`,
  ],
  ['attributes with children, empty and self-closing', '<A a="1"><B>x</B></A><C a="2"/><D a="3"></D><E/>'],
  ['mixed content and repeats', '<A>t1<B>1</B>t2<B>2</B><C/><B>3</B>t3</A>'],
  ['prefixed elements', '<p:A><q:B>1</q:B><B>2</B></p:A>'],
  ['whitespace-only text', '<A>\n  <B>\t</B>\n</A>'],
  ['a quoted ">" in an attribute', '<A k="a>b">v</A>'],
  ['children and an attribute of the same name', '<A k="1"><k>child</k></A>'],
  ['text in a cut-out element and its shell', '<A>before<C k="1">in<D>d</D></C>after<C/>end</A>'],
];

test.each(AWKWARD)('%s: built as before', async (_name, body) => {
  const xml = `<?xml version="1.0"?><Document><X>${body}</X><X/><X k="v"/></Document>`;
  const options = {
    reportDepth: 1,
    capture: (path: readonly string[]) => path.length === 2,
    split: (path: readonly string[]) => path.length === 4 && path[3] === 'C',
  };
  expect(await expectSameAsBefore(xml, [1, 3, 10], options)).toBeGreaterThan(2);
});

test.each([
  ['an element named __proto__', '<A><__proto__><B>1</B></__proto__></A>'],
  ['an element named constructor', '<A><constructor>1</constructor></A>'],
  ['elements nested deeper than 100', `${'<A>'.repeat(102)}${'</A>'.repeat(102)}`],
])('%s is refused, as fast-xml-parser refused it', async (_name, body) => {
  const xml = `<Document><X>${body}</X></Document>`;
  expect(() => parseFragment(body, 'X')).toThrow(CamtError);
  const options = { reportDepth: 1, capture: (path: readonly string[]) => path.length === 2 };
  await expect(built(xml, 16, options)).rejects.toMatchObject({ code: 'malformed' });
  expect(() => parseElement(body, 'X')).toThrow(CamtError);
});

test('100 levels of nesting are still read, as before', async () => {
  const body = `${'<A>'.repeat(100)}x${'</A>'.repeat(100)}`;
  const xml = `<Document><X>${body}</X></Document>`;
  const options = { reportDepth: 1, capture: (path: readonly string[]) => path.length === 2 };
  expect(await expectSameAsBefore(xml, [5], options)).toBe(1);
});
