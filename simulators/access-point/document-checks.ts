import { XMLParser } from 'fast-xml-parser';
import type { RefusalReason } from '../../adapters/access-point/access-point';

/**
 * What the simulated access point checks in `npm start`, where there is no JVM to run the official
 * artefacts (decision 0216): that the document is a Peppol BIS Billing 3.0 invoice or credit note
 * addressed to the receiver it is sent to, and a few of the rules an Icelandic buyer's document
 * most often breaks, reported under the official rule ids. It is not the validation of record: the
 * tests run the simulated access point with CEN's and OpenPEPPOL's artefacts under Saxon.
 */
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  processEntities: false,
  parseTagValue: false,
});

type Node = Record<string, unknown>;
const text = (v: unknown): string | undefined => {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object') {
    const t = (v as Node)['#text'];
    return typeof t === 'string' ? t : undefined;
  }
  return undefined;
};
const attr = (v: unknown, name: string): string | undefined =>
  v && typeof v === 'object' ? (text((v as Node)[`@${name}`]) ?? undefined) : undefined;
const child = (v: unknown, name: string): unknown =>
  v && typeof v === 'object' ? (v as Node)[name] : undefined;

const CUSTOMIZATION = 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0';
const PROFILE = 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0';
/** The codes of the Electronic Address Scheme list a Skil document can use (BIS 3.0.19). */
const EAS = new Set(['0088', '0192', '0196', '0007', '0184', '0208', '9918']);

/** The party's `EndpointID` as a participant id (`scheme:value`), or undefined. */
export function endpointOf(party: unknown): string | undefined {
  const endpoint = child(child(party, 'Party'), 'EndpointID');
  const value = text(endpoint);
  const scheme = attr(endpoint, 'schemeID');
  return value && scheme ? `${scheme}:${value}` : undefined;
}

/** The sender and receiver a document names, from its supplier's and customer's `EndpointID`. */
export function documentParties(xml: string): { sender?: string; receiver?: string } {
  const root = parser.parse(xml) as Node;
  const doc = root.Invoice ?? root.CreditNote;
  return {
    sender: endpointOf(child(doc, 'AccountingSupplierParty')),
    receiver: endpointOf(child(doc, 'AccountingCustomerParty')),
  };
}

export function checkDocument(xml: string, receiver: string): RefusalReason[] {
  let root: Node;
  try {
    root = parser.parse(xml) as Node;
  } catch (err) {
    return [{ rule: 'xml', message: `not well-formed XML: ${(err as Error).message}` }];
  }
  const doc = root.Invoice ?? root.CreditNote;
  if (!doc || typeof doc !== 'object')
    return [{ rule: 'document_type', message: 'not a UBL Invoice or CreditNote' }];
  const reasons: RefusalReason[] = [];
  if (text(child(doc, 'CustomizationID')) !== CUSTOMIZATION)
    reasons.push({
      rule: 'PEPPOL-EN16931-R004',
      message: 'Specification identifier is not Peppol BIS Billing 3.0',
    });
  if (text(child(doc, 'ProfileID')) !== PROFILE)
    reasons.push({ rule: 'PEPPOL-EN16931-R001', message: 'Business process is not the billing process' });
  const supplier = child(child(doc, 'AccountingSupplierParty'), 'Party');
  const customer = child(child(doc, 'AccountingCustomerParty'), 'Party');
  for (const party of [supplier, customer]) {
    const scheme = attr(child(party, 'EndpointID'), 'schemeID');
    if (scheme !== undefined && !EAS.has(scheme))
      reasons.push({
        rule: 'PEPPOL-EN16931-CL008',
        message: `Electronic address scheme ${scheme} is not in the Electronic Address Scheme code list`,
      });
  }
  const named = endpointOf(child(doc, 'AccountingCustomerParty'));
  if (named !== receiver)
    reasons.push({
      rule: 'receiver_mismatch',
      message: `The document's buyer endpoint (${named ?? 'none'}) is not the receiver it was sent to (${receiver})`,
    });
  const country = (p: unknown) =>
    text(child(child(child(p, 'PostalAddress'), 'Country'), 'IdentificationCode'));
  if (country(supplier) === 'IS' && country(customer) === 'IS') {
    const legal = child(child(customer, 'PartyLegalEntity'), 'CompanyID');
    if (!text(legal) || attr(legal, 'schemeID') !== '0196')
      reasons.push({ rule: 'IS-R-004', message: "The buyer's kennitala (scheme 0196) is required" });
    const address = child(customer, 'PostalAddress');
    if (!text(child(address, 'StreetName')) || !text(child(address, 'PostalZone')))
      reasons.push({ rule: 'IS-R-005', message: "The buyer's street name and postcode are required" });
  }
  return reasons;
}
