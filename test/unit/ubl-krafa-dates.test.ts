/**
 * A krafa's dates in the UBL (TS-236; decision 0208), held to the official artefacts: the gjalddagi
 * is the due date and the eindagi the supporting document described EINDAGI, which the Icelandic
 * rules IS-R-008…010 read, and the krafa's account is payment means 9 (decision 0211). Rendered from
 * an invoice row, so an eindagi before the gjalddagi — which no path makes — can be shown rejected
 * (IS-R-010): the validator reads the eindagi where it is written. Kröfur invoiced through the real
 * path: test/integration/krafa-invoices.test.ts.
 */
import type { InvoiceRow } from '../../db/invoices';
import { invoiceAmounts } from '../../domain/invoices';
import { invoiceUbl } from '../../services/invoices/ubl';
import { fatalIds, validateEInvoices, warningIds } from '../helpers/official-einvoice-validation';

const amounts = invoiceAmounts([
  { description: 'Baunir 1 kg', quantity: 2, unit_amount: 3490, vat_rate: 11 },
  { description: 'Kvörn', quantity: 1, unit_amount: 12990, vat_rate: 24 },
]);
const invoice: InvoiceRow = {
  id: 'in_1',
  merchant_id: 'acct_1',
  livemode: false,
  sequence: 3,
  number: 'TEST-000003',
  status: 'open',
  payment_intent_id: null,
  claim_id: 'clm_1',
  claim_account: '013366000042',
  pos_sale_id: null,
  customer_id: 'cus_1',
  subscription_id: null,
  checkout_session_id: null,
  seller: {
    name: 'Kaffibrennslan ehf.',
    kennitala: '5501692829',
    vat_number: '123456',
    address: { street: 'Laugavegur 1', city: 'Reykjavík', postalCode: '101', country: 'IS' },
    bank_account: '0133-26-012345',
  },
  buyer: {
    name: 'Bókhaldsstofan ehf.',
    email: 'reikningar@bokhald.example.is',
    kennitala: '4101692659',
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
  payment_reference: '013366000042',
  created_at: new Date('2026-03-02T10:00:00Z'),
};

test("a krafa's gjalddagi and eindagi pass the official artefacts; an eindagi before the gjalddagi does not", async () => {
  const xml = invoiceUbl(invoice);
  expect(xml).toContain('<cbc:DueDate>2026-03-10</cbc:DueDate>');
  // Collected by krafa: payment means 9 and the krafa's account (IS-R-006, decision 0211).
  expect(xml).toContain(
    '<cbc:PaymentMeansCode>9</cbc:PaymentMeansCode><cbc:PaymentID>013366000042</cbc:PaymentID><cac:PayeeFinancialAccount><cbc:ID>013366000042</cbc:ID></cac:PayeeFinancialAccount>',
  );
  expect(xml).toContain(
    '<cac:AdditionalDocumentReference><cbc:ID>2026-03-20</cbc:ID><cbc:DocumentDescription>EINDAGI</cbc:DocumentDescription></cac:AdditionalDocumentReference>',
  );
  const [valid, early] = await validateEInvoices([
    xml,
    invoiceUbl({ ...invoice, final_due_date: '2026-03-05' }),
  ]);
  expect(fatalIds(valid!.en16931)).toEqual([]);
  expect(fatalIds(valid!.peppol)).toEqual([]);
  expect([...warningIds(valid!.en16931), ...warningIds(valid!.peppol)]).toEqual([]);
  expect(fatalIds(early!.en16931)).toEqual([]);
  expect(fatalIds(early!.peppol)).toEqual(['IS-R-010']);
}, 60_000);
