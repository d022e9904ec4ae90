/**
 * The test of record for Skil's UBL e-invoices (decision 0208): the standards' own validation
 * artefacts in test/fixtures/einvoice/ — CEN's EN 16931 XSLT and OpenPEPPOL's Peppol BIS Billing 3.0
 * rules with the Icelandic TS-236 rules — run by Saxon-HE, their SVRL read into findings.
 *
 * A batch costs one JVM per stylesheet, not one per document: the documents are written to a
 * temporary directory and Saxon applies each stylesheet, compiled once, to the whole directory
 * (`-s:dir -o:outdir`). Compiling is nearly all of the cost (about 1.5 s of CPU per stylesheet with
 * the JIT's first tier; a document takes tens of milliseconds); Saxon-HE cannot export a compiled
 * stylesheet to reuse across runs (SEF export needs Saxon-EE). The two stylesheets run side by side.
 *
 * Missing Java or Saxon is a failure with what to install, never a skip: a validator that silently
 * does not run proves nothing.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';

const FIXTURES = join(__dirname, '..', 'fixtures', 'einvoice');

/** The two artefacts, by the name findings are reported under. */
export const ARTEFACTS = {
  en16931: join(FIXTURES, 'EN16931-UBL-validation.xslt'),
  peppol: join(FIXTURES, 'PEPPOL-EN16931-UBL.xsl'),
} as const;
export type Artefact = keyof typeof ARTEFACTS;

export interface Finding {
  /** The rule's id: BR-07, PEPPOL-EN16931-CL008, IS-R-004 … */
  id: string;
  /** XPath of the offending node, as the artefact reports it. */
  location: string;
  text: string;
}
export interface ArtefactReport {
  fatal: Finding[];
  warnings: Finding[];
}
export type DocumentReport = Record<Artefact, ArtefactReport>;

const INSTALL =
  'apt-get install default-jre-headless libsaxonhe-java (as root; .ci/run does it) — see docs/guides/developing.md, "The tests", and decision 0208';

function saxonJar(): string {
  const jar = process.env.SAXON_JAR ?? '/usr/share/java/Saxon-HE.jar';
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (java.error || java.status !== 0)
    throw new Error(
      `official e-invoice validation needs Java, and \`java -version\` failed (${java.error?.message ?? java.stderr.trim()}): ${INSTALL}`,
    );
  if (!existsSync(jar))
    throw new Error(`official e-invoice validation needs Saxon-HE, and ${jar} does not exist: ${INSTALL}`);
  return jar;
}

/**
 * One Saxon over a directory. The JIT's first tier only (TieredStopAtLevel=1): the JVM lives a few
 * seconds, and the optimising tier's compile threads cost more than they save (decision 0208).
 */
function runSaxon(jar: string, stylesheet: string, input: string, output: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      'java',
      ['-XX:TieredStopAtLevel=1', '-jar', jar, `-s:${input}`, `-o:${output}`, `-xsl:${stylesheet}`],
      { maxBuffer: 16 * 1024 * 1024 },
      (error, _stdout, stderr) => {
        if (error)
          reject(new Error(`Saxon failed on ${stylesheet} (exit ${String(error.code)}):\n${stderr}`));
        else resolve();
      },
    );
  });
}

const svrl = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  ignoreDeclaration: true,
  isArray: (name) => name === 'failed-assert' || name === 'successful-report',
});

type SvrlAssertion = { '@id'?: string; '@flag'?: string; '@location'?: string; text?: unknown };
const flat = (v: unknown): string => {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object') {
    const t = (v as Record<string, unknown>)['#text'];
    return typeof t === 'string' ? t : '';
  }
  return '';
};

/** The assertions of one SVRL report: fatal (a rejection) unless flagged warning or information. */
export function parseSvrl(xml: string): ArtefactReport {
  const root = (svrl.parse(xml) as Record<string, Record<string, unknown> | undefined>)['schematron-output'];
  if (!root) throw new Error(`not an SVRL report: ${xml.slice(0, 200)}`);
  const report: ArtefactReport = { fatal: [], warnings: [] };
  const all = [
    ...((root['failed-assert'] as SvrlAssertion[] | undefined) ?? []),
    ...((root['successful-report'] as SvrlAssertion[] | undefined) ?? []),
  ];
  for (const a of all) {
    const finding = {
      id: a['@id'] ?? '(no id)',
      location: a['@location'] ?? '',
      text: flat(a.text).replace(/\s+/g, ' ').trim(),
    };
    if (a['@flag'] === 'warning' || a['@flag'] === 'information') report.warnings.push(finding);
    else report.fatal.push(finding);
  }
  return report;
}

/**
 * Validates UBL documents with both official artefacts; the reports are in the documents' order.
 * One JVM per artefact for the whole batch: gather a test file's documents and call this once.
 */
export async function validateEInvoices(documents: readonly string[]): Promise<DocumentReport[]> {
  if (documents.length === 0) return [];
  const jar = saxonJar();
  const dir = await mkdtemp(join(tmpdir(), 'skil-einvoice-'));
  try {
    const input = join(dir, 'in');
    await mkdir(input);
    const names = documents.map((_, i) => `doc-${String(i).padStart(4, '0')}.xml`);
    await Promise.all(documents.map((d, i) => writeFile(join(input, names[i]!), d)));
    const artefacts = Object.keys(ARTEFACTS) as Artefact[];
    await Promise.all(artefacts.map((a) => mkdir(join(dir, a))));
    await Promise.all(artefacts.map((a) => runSaxon(jar, ARTEFACTS[a], input, join(dir, a))));
    return await Promise.all(
      names.map(async (name) => {
        const entries = await Promise.all(
          artefacts.map(async (a) => {
            const out = join(dir, a, name);
            if (!existsSync(out)) throw new Error(`Saxon wrote no report for ${name} under ${a}`);
            return [a, parseSvrl(await readFile(out, 'utf8'))] as const;
          }),
        );
        return Object.fromEntries(entries) as DocumentReport;
      }),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The ids of a report's fatal findings, sorted and without repeats: what a test compares. */
export const fatalIds = (r: ArtefactReport): string[] => [...new Set(r.fatal.map((f) => f.id))].sort();
export const warningIds = (r: ArtefactReport): string[] => [...new Set(r.warnings.map((f) => f.id))].sort();
