/**
 * The suite's e-invoice rules (test/helpers/einvoice-rules.ts, decision 0139): the generated UBL of
 * an invoice with two VAT rates, a discount and a krafa's dates passes every rule, and each rule
 * fails on a counter-example that breaks it alone.
 */
import type { CreditNoteRow, InvoiceRow } from '../../db/invoices';
import { creditLines, invoiceAmounts } from '../../domain/invoices';
import { creditNoteUbl, invoiceUbl } from '../../services/invoices/ubl';
import { checkEInvoice, RULES, type RuleId } from '../helpers/einvoice-rules';

const amounts = invoiceAmounts([
  { description: 'Baunir 1 kg', quantity: 7, unit_amount: 3490, vat_rate: 11 },
  { description: 'Kvörn', quantity: 1, unit_amount: 12990, vat_rate: 24 },
  { description: 'Afsláttur', quantity: 1, unit_amount: -990, vat_rate: 24 },
  { description: 'Prufa', quantity: 1, unit_amount: 0, vat_rate: 0 },
]);

const invoice: InvoiceRow = {
  id: 'in_1',
  merchant_id: 'acct_1',
  livemode: false,
  sequence: 7,
  number: 'TEST-000007',
  status: 'paid',
  payment_intent_id: 'pi_1',
  claim_id: null,
  claim_account: null,
  pos_sale_id: null,
  customer_id: 'cus_1',
  subscription_id: null,
  checkout_session_id: 'cs_1',
  seller: {
    name: 'Kaffibrennslan ehf.',
    kennitala: '5501692829',
    vat_number: '123456',
    address: { street: 'Laugavegur 1', city: 'Reykjavík', postalCode: '101', country: 'IS' },
    bank_account: '0133-26-012345',
  },
  buyer: {
    name: 'Jón Jónsson',
    email: 'jon@example.is',
    kennitala: '0101302989',
    address: { line1: 'Hverfisgata 4', line2: null, postal_code: '101', city: 'Reykjavík', country: 'IS' },
  },
  lines: amounts.lines,
  vat: amounts.vat,
  total: amounts.total,
  total_vat: amounts.total_vat,
  amount_credited: 0,
  issued_at: new Date('2026-03-02T10:00:00Z'),
  supplied_at: new Date('2026-03-01T10:00:00Z'),
  due_date: '2026-03-10',
  final_due_date: '2026-03-20',
  payment_reference: 'pi_1',
  created_at: new Date('2026-03-02T10:00:00Z'),
};
const noteAmounts = invoiceAmounts(creditLines(amounts, 5000, 'Endurgreiðsla'));
const note: CreditNoteRow = {
  id: 'cn_1',
  merchant_id: 'acct_1',
  livemode: false,
  sequence: 8,
  number: 'TEST-000008',
  invoice_id: 'in_1',
  refund_id: 're_1',
  claim_id: null,
  pos_refund_id: null,
  lines: noteAmounts.lines,
  vat: noteAmounts.vat,
  total: noteAmounts.total,
  total_vat: noteAmounts.total_vat,
  issued_at: new Date('2026-03-05T10:00:00Z'),
  created_at: new Date('2026-03-05T10:00:00Z'),
};
const INVOICE = invoiceUbl(invoice);
const CREDIT = creditNoteUbl(note, invoice);

test('the generated invoice and credit note pass every rule', () => {
  expect(checkEInvoice(INVOICE)).toEqual([]);
  expect(checkEInvoice(CREDIT)).toEqual([]);
  // The discount is a negative quantity at a positive price; a quantity that does not divide its
  // net amount is priced per the whole quantity.
  expect(INVOICE).toContain('<cbc:InvoicedQuantity unitCode="C62">-1</cbc:InvoicedQuantity>');
  expect(INVOICE).toMatch(/<cbc:BaseQuantity unitCode="C62">7<\/cbc:BaseQuantity>/);
  expect(INVOICE).toContain('<cbc:DocumentDescription>EINDAGI</cbc:DocumentDescription>');
});

const swap = (from: string | RegExp, to: string) => (xml: string) => {
  const out = xml.replace(from, to);
  if (out === xml) throw new Error(`counter-example changed nothing: ${String(from)}`);
  return out;
};
const drop = (re: RegExp) => swap(re, '');

/** One counter-example per rule: the document it breaks and how. */
const COUNTER: Record<RuleId, { doc?: 'credit'; break: (xml: string) => string }> = {
  'BR-01': { break: drop(/<cbc:CustomizationID>.*?<\/cbc:CustomizationID>/) },
  'BR-02': { break: swap(/<cbc:ID>TEST-000007<\/cbc:ID>/, '<cbc:ID></cbc:ID>') },
  'BR-03': {
    break: swap(/<cbc:IssueDate>2026-03-02<\/cbc:IssueDate>/, '<cbc:IssueDate>2.3.2026</cbc:IssueDate>'),
  },
  'BR-04': { break: drop(/<cbc:InvoiceTypeCode>380<\/cbc:InvoiceTypeCode>/) },
  'BR-05': {
    break: swap(
      '<cbc:DocumentCurrencyCode>ISK</cbc:DocumentCurrencyCode>',
      '<cbc:DocumentCurrencyCode></cbc:DocumentCurrencyCode>',
    ),
  },
  'BR-06': {
    break: swap(
      '<cbc:RegistrationName>Kaffibrennslan ehf.</cbc:RegistrationName>',
      '<cbc:RegistrationName></cbc:RegistrationName>',
    ),
  },
  'BR-07': {
    break: swap(
      '<cbc:RegistrationName>Jón Jónsson</cbc:RegistrationName>',
      '<cbc:RegistrationName></cbc:RegistrationName>',
    ),
  },
  'BR-08': { break: drop(/<cac:PostalAddress><cbc:StreetName>Laugavegur 1.*?<\/cac:PostalAddress>/) },
  'BR-09': {
    break: swap(
      /(<cbc:PostalZone>101<\/cbc:PostalZone>)<cac:Country><cbc:IdentificationCode>IS<\/cbc:IdentificationCode><\/cac:Country>/,
      '$1',
    ),
  },
  'BR-10': { break: drop(/<cac:PostalAddress><cbc:StreetName>Hverfisgata 4.*?<\/cac:PostalAddress>/) },
  'BR-11': {
    break: (xml) => {
      const at = xml.indexOf('Hverfisgata 4');
      return xml.slice(0, at) + swap(/<cac:Country>.*?<\/cac:Country>/, '')(xml.slice(at));
    },
  },
  'BR-12': {
    break: drop(
      /<cbc:LineExtensionAmount currencyID="ISK">-?\d+<\/cbc:LineExtensionAmount>(?=<cbc:TaxExclusiveAmount)/,
    ),
  },
  'BR-13': { break: drop(/<cbc:TaxExclusiveAmount[^>]*>\d+<\/cbc:TaxExclusiveAmount>/) },
  'BR-14': { break: drop(/<cbc:TaxInclusiveAmount[^>]*>\d+<\/cbc:TaxInclusiveAmount>/) },
  'BR-15': { break: drop(/<cbc:PayableAmount[^>]*>\d+<\/cbc:PayableAmount>/) },
  'BR-16': { break: drop(/<cac:InvoiceLine>[\s\S]*<\/cac:InvoiceLine>/) },
  'BR-21': { break: swap(/<cac:InvoiceLine><cbc:ID>1<\/cbc:ID>/, '<cac:InvoiceLine><cbc:ID></cbc:ID>') },
  'BR-22': { break: swap(/<cbc:InvoicedQuantity unitCode="C62">7<\/cbc:InvoicedQuantity>/, '') },
  'BR-24': {
    break: swap(
      /(<cac:InvoiceLine><cbc:ID>1<\/cbc:ID><cbc:InvoicedQuantity[^>]*>7<\/cbc:InvoicedQuantity>)<cbc:LineExtensionAmount[^>]*>\d+<\/cbc:LineExtensionAmount>/,
      '$1',
    ),
  },
  'BR-25': { break: swap('<cbc:Name>Kvörn</cbc:Name>', '<cbc:Name></cbc:Name>') },
  'BR-26': {
    break: swap(
      /<cac:Price><cbc:PriceAmount[^>]*>\d+<\/cbc:PriceAmount><\/cac:Price>/,
      '<cac:Price></cac:Price>',
    ),
  },
  'BR-27': {
    break: swap(
      /<cbc:InvoicedQuantity unitCode="C62">-1<\/cbc:InvoicedQuantity>(<cbc:LineExtensionAmount[^>]*>-(\d+)<\/cbc:LineExtensionAmount>[\s\S]*?)<cbc:PriceAmount currencyID="ISK">(\d+)<\/cbc:PriceAmount>/,
      '<cbc:InvoicedQuantity unitCode="C62">1</cbc:InvoicedQuantity>$1<cbc:PriceAmount currencyID="ISK">-$3</cbc:PriceAmount>',
    ),
  },
  'BR-55': { doc: 'credit', break: drop(/<cac:BillingReference>.*?<\/cac:BillingReference>/) },
  'BR-CO-09': {
    break: swap('<cbc:CompanyID>IS123456</cbc:CompanyID>', '<cbc:CompanyID>123456</cbc:CompanyID>'),
  },
  'BR-CO-10': {
    break: swap(
      /<cbc:LineExtensionAmount currencyID="ISK">(\d+)<\/cbc:LineExtensionAmount><cbc:TaxExclusiveAmount currencyID="ISK">(\d+)/,
      '<cbc:LineExtensionAmount currencyID="ISK">1</cbc:LineExtensionAmount><cbc:TaxExclusiveAmount currencyID="ISK">1',
    ),
  },
  'BR-CO-13': {
    break: swap(/<cbc:TaxExclusiveAmount currencyID="ISK">\d+/, '<cbc:TaxExclusiveAmount currencyID="ISK">1'),
  },
  'BR-CO-15': {
    break: swap(
      /<cbc:TaxInclusiveAmount currencyID="ISK">\d+<\/cbc:TaxInclusiveAmount><cbc:PayableAmount currencyID="ISK">\d+/,
      '<cbc:TaxInclusiveAmount currencyID="ISK">1</cbc:TaxInclusiveAmount><cbc:PayableAmount currencyID="ISK">1',
    ),
  },
  'BR-CO-16': {
    break: swap(/<cbc:PayableAmount currencyID="ISK">\d+/, '<cbc:PayableAmount currencyID="ISK">2'),
  },
  'BR-CO-17': {
    break: swap(
      /(<cac:TaxSubtotal><cbc:TaxableAmount[^>]*>\d+<\/cbc:TaxableAmount><cbc:TaxAmount currencyID="ISK">)(\d+)(<\/cbc:TaxAmount><cac:TaxCategory><cbc:ID>S<\/cbc:ID><cbc:Percent>11)/,
      '$10$3',
    ),
  },
  'BR-CO-18': { break: (xml) => xml.replace(/<cac:TaxSubtotal>[\s\S]*?<\/cac:TaxSubtotal>\n?/g, '') },
  'BR-S-02': { break: drop(/<cac:PartyTaxScheme>.*?<\/cac:PartyTaxScheme>/) },
  'BR-S-05': {
    break: swap(
      /(<cbc:Name>Kvörn<\/cbc:Name><cac:ClassifiedTaxCategory><cbc:ID>S<\/cbc:ID><cbc:Percent>)24/,
      '$10',
    ),
  },
  'BR-S-08': {
    break: swap(
      /(<cac:TaxSubtotal><cbc:TaxableAmount currencyID="ISK">)(\d+)(<\/cbc:TaxableAmount><cbc:TaxAmount[^>]*>\d+<\/cbc:TaxAmount><cac:TaxCategory><cbc:ID>S<\/cbc:ID><cbc:Percent>24)/,
      '$1999999$3',
    ),
  },
  'BR-Z-05': {
    break: swap(
      /(<cbc:Name>Prufa<\/cbc:Name><cac:ClassifiedTaxCategory><cbc:ID>Z<\/cbc:ID><cbc:Percent>)0/,
      '$111',
    ),
  },
  'PEPPOL-EN16931-R001': { break: swap(/billing:01:1\.0/, 'billing:99:1.0') },
  'PEPPOL-EN16931-R003': { break: drop(/<cbc:BuyerReference>.*?<\/cbc:BuyerReference>/) },
  'PEPPOL-EN16931-R004': {
    break: swap('poacc:billing:3.0</cbc:CustomizationID>', 'poacc:billing:2.0</cbc:CustomizationID>'),
  },
  'PEPPOL-EN16931-R010': { break: swap('<cbc:EndpointID schemeID="0196">0101302989</cbc:EndpointID>', '') },
  'PEPPOL-EN16931-R020': {
    break: swap(
      '<cbc:EndpointID schemeID="0196">5501692829</cbc:EndpointID>',
      '<cbc:EndpointID schemeID="XX">5501692829</cbc:EndpointID>',
    ),
  },
  'PEPPOL-EN16931-R053': { break: swap(/(<cac:TaxTotal>[\s\S]*?<\/cac:TaxTotal>)/, '$1$1') },
  'PEPPOL-EN16931-R120': {
    break: swap(/<cbc:BaseQuantity unitCode="C62">7<\/cbc:BaseQuantity>/, ''),
  },
  'PEPPOL-EN16931-CL008': {
    break: swap(
      '<cbc:DocumentCurrencyCode>ISK</cbc:DocumentCurrencyCode>',
      '<cbc:DocumentCurrencyCode>KRONA</cbc:DocumentCurrencyCode>',
    ),
  },
  'IS-R-001': {
    break: swap(
      '<cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>',
      '<cbc:InvoiceTypeCode>386</cbc:InvoiceTypeCode>',
    ),
  },
  'IS-R-002': {
    break: swap(
      '<cbc:CompanyID schemeID="0196">5501692829</cbc:CompanyID>',
      '<cbc:CompanyID>5501692829</cbc:CompanyID>',
    ),
  },
  'IS-R-003': { break: drop(/<cbc:StreetName>Laugavegur 1<\/cbc:StreetName>/) },
  'IS-R-004': { break: drop(/<cbc:CompanyID schemeID="0196">0101302989<\/cbc:CompanyID>/) },
  'IS-R-005': { break: drop(/<cbc:StreetName>Hverfisgata 4<\/cbc:StreetName>/) },
  'IS-R-006': {
    break: swap(
      /<cac:PaymentMeans>.*?<\/cac:PaymentMeans>/,
      '<cac:PaymentMeans><cbc:PaymentMeansCode>9</cbc:PaymentMeansCode><cac:PayeeFinancialAccount><cbc:ID>0133260123</cbc:ID></cac:PayeeFinancialAccount></cac:PaymentMeans>',
    ),
  },
  'IS-R-008': { break: swap('<cbc:ID>2026-03-20</cbc:ID>', '<cbc:ID>20.03.2026</cbc:ID>') },
  'IS-R-009': { break: drop(/<cbc:DueDate>.*?<\/cbc:DueDate>/) },
  'IS-R-010': {
    break: swap('<cbc:DueDate>2026-03-10</cbc:DueDate>', '<cbc:DueDate>2026-03-25</cbc:DueDate>'),
  },
};

test('every rule has a counter-example', () => {
  expect(Object.keys(COUNTER).sort()).toEqual([...RULES].sort());
});

test.each(RULES.map((r) => [r]))('%s fails on its counter-example', (rule) => {
  const c = COUNTER[rule];
  const broken = c.break(c.doc === 'credit' ? CREDIT : INVOICE);
  expect(checkEInvoice(broken)).toContain(rule);
});
