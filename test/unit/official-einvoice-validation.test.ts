/**
 * The official e-invoice validation harness (decision 0208) can pass and can fail: OpenPEPPOL's two
 * example documents have no fatal finding under either artefact, and copies broken in one place each
 * are rejected by the rule that covers that place — the buyer's name (BR-07), the amount due
 * (BR-CO-16), an electronic address scheme outside the code list (PEPPOL-EN16931-CL008). One batch:
 * one JVM per artefact. Without Saxon the harness throws and says what to install.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fatalIds, validateEInvoices } from '../helpers/official-einvoice-validation';

const EXAMPLES = join(__dirname, '..', 'fixtures', 'einvoice', 'examples');
const invoice = readFileSync(join(EXAMPLES, 'base-example.xml'), 'utf8');
const creditNote = readFileSync(join(EXAMPLES, 'base-creditnote-correction.xml'), 'utf8');

/** Replaces exactly one occurrence, so a broken copy differs from the example in one place only. */
function once(xml: string, from: RegExp, to: string): string {
  const hits = xml.match(new RegExp(from.source, 'g')) ?? [];
  expect(hits).toHaveLength(1);
  return xml.replace(from, to);
}

const customer = (xml: string) => {
  const start = xml.indexOf('<cac:AccountingCustomerParty>');
  const end = xml.indexOf('</cac:AccountingCustomerParty>');
  return { before: xml.slice(0, start), party: xml.slice(start, end), after: xml.slice(end) };
};

test('the official examples validate clean; a copy broken in one place is rejected by the rule for that place', async () => {
  const c = customer(invoice);
  const noBuyerName =
    c.before + once(c.party, /<cbc:RegistrationName>[^<]*<\/cbc:RegistrationName>/, '') + c.after;
  const wrongAmountDue = once(
    invoice,
    /<cbc:PayableAmount currencyID="EUR">[^<]*<\/cbc:PayableAmount>/,
    '<cbc:PayableAmount currencyID="EUR">1.00</cbc:PayableAmount>',
  );
  const emailEndpoint =
    c.before +
    once(
      c.party,
      /<cbc:EndpointID schemeID="[^"]*">[^<]*<\/cbc:EndpointID>/,
      '<cbc:EndpointID schemeID="EM">buyer@example.is</cbc:EndpointID>',
    ) +
    c.after;

  const started = Date.now();
  const [inv, note, nameless, amountDue, email] = await validateEInvoices([
    invoice,
    creditNote,
    noBuyerName,
    wrongAmountDue,
    emailEndpoint,
  ]);
  console.log(`official validation of 5 documents: ${Date.now() - started} ms`);

  for (const r of [inv!, note!]) {
    expect(r.en16931.fatal).toEqual([]);
    expect(r.peppol.fatal).toEqual([]);
  }
  expect(fatalIds(nameless!.en16931)).toEqual(['BR-07']);
  expect(nameless!.en16931.fatal[0]!.text).toContain('Buyer name');
  expect(fatalIds(amountDue!.en16931)).toEqual(['BR-CO-16']);
  expect(fatalIds(email!.peppol)).toEqual(['PEPPOL-EN16931-CL008']);
  expect(email!.peppol.fatal[0]!.location).toContain('AccountingCustomerParty');
  expect(fatalIds(email!.en16931)).toEqual([]);
}, 60_000);

test('without Saxon the harness fails and names what to install', async () => {
  const saved = process.env.SAXON_JAR;
  process.env.SAXON_JAR = '/nonexistent/Saxon-HE.jar';
  try {
    await expect(validateEInvoices([invoice])).rejects.toThrow(/libsaxonhe-java/);
  } finally {
    if (saved === undefined) delete process.env.SAXON_JAR;
    else process.env.SAXON_JAR = saved;
  }
});
