/**
 * The test of record for the UBL Skil serves today (decision 0208): every kind of invoice and credit
 * note made through the real paths — checkout sessions paid by card, a subscription's first charge,
 * refunds — fetched from `/v1/invoices/{id}/ubl` and `/v1/credit-notes/{id}/ubl` and validated in
 * one batch by the standards' own artefacts (CEN's EN 16931 XSLT, OpenPEPPOL's BIS Billing 3.0 with
 * the Icelandic TS-236 rules).
 *
 * (a) A consumer's invoice (name and email only) rendered as UBL is rejected for its email endpoint
 *     (PEPPOL-EN16931-CL008): the positive control that the validators see what is wrong; the API
 *     therefore refuses it (422 `buyer_is_consumer`, decision 0210) and the PDF is the invoice.
 * (b) A business buyer with kennitala and address, a card checkout at 24 % and a partial refund:
 *     invoice and credit note have no fatal finding under either artefact.
 * (c) Each kind of document's fatal rule ids and warnings, printed; every business kind is held to
 *     no fatal finding, among them a sole trader marked business with a GLN and a Peppol id.
 *     Also: exempt lines (E, with reason text and VATEX code) and a line outside the scope (O),
 *     decision 0234; a till sale to a business and its till refund's credit note, decision 0235.
 * (d) What is refused, and why: a seller without kennitala and address, a business buyer without an
 *     address, a consumer's credit note; the consumer's PDF carries what an invoice must.
 */
import { sharedTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { createInvoiceRepository } from '../../db/invoices';
import { invoiceUbl } from '../../services/invoices/ubl';
import { pdfText } from '../helpers/pdf-text';
import { until } from '../helpers/until';
import { setPos, setUpTill } from '../helpers/pos';
import {
  fatalIds,
  validateEInvoices,
  warningIds,
  type DocumentReport,
} from '../helpers/official-einvoice-validation';

let stack: TestStack;
beforeAll(async () => {
  stack = await sharedTestStack();
});
afterAll(async () => {
  await stack?.stop();
});

const SUCCESS_URL = 'https://shop.example/ok';

async function seller(m: TestMerchant, vatNumber: string | null) {
  const res = await stack.api(m.testKey, '/v1/merchant', {
    method: 'PATCH',
    json: {
      name: vatNumber ? 'Kaffibrennslan ehf.' : 'Prjónastofa Siggu',
      merchant_type: 'company',
      kennitala: '5501692829',
      legal_address: { street: 'Laugavegur 1', city: 'Reykjavík', postalCode: '101', country: 'IS' },
      bank_account: '0133-26-012345',
      ...(vatNumber ? { vat_number: vatNumber, default_vat_rate: 24 } : {}),
    },
  });
  expect(res.status).toBe(200);
  expect(res.body.vat_number).toBe(vatNumber);
}

async function businessCustomer(m: TestMerchant, json: Record<string, unknown> = {}): Promise<string> {
  const res = await stack.api(m.testKey, '/v1/customers', {
    method: 'POST',
    json: {
      name: 'Bókhaldsstofan ehf.',
      email: 'reikningar@bokhald.example.is',
      kennitala: '4101692659',
      address: { line1: 'Hverfisgata 4', postal_code: '101', city: 'Reykjavík', country: 'IS' },
      ...json,
    },
  });
  expect(res.status).toBe(200);
  return res.body.id as string;
}

/** What the API answers a UBL request it refuses: the status and the envelope. */
async function refusedUbl(m: TestMerchant, path: string) {
  const res = await fetch(`${stack.url}${path}`, { headers: { authorization: `Bearer ${m.testKey}` } });
  return { status: res.status, error: ((await res.json()) as { error: Record<string, unknown> }).error };
}

/** A checkout session paid by card through the test completion (the hosted page's payment). */
async function payCheckout(m: TestMerchant, json: Record<string, unknown>): Promise<string> {
  const s = await stack.api(m.testKey, '/v1/checkout/sessions', {
    method: 'POST',
    json: { currency: 'ISK', success_url: SUCCESS_URL, ...json },
  });
  expect(s.status).toBe(200);
  const done = await stack.api(m.testKey, `/v1/test_helpers/checkout/sessions/${s.body.id}/complete`, {
    method: 'POST',
    json: {},
  });
  expect(done.status).toBe(200);
  return done.body.payment_intent as string;
}

async function invoiceOf(m: TestMerchant, paymentIntent: string): Promise<{ id: string; number: string }> {
  const list = await until(
    () => stack.api(m.testKey, `/v1/invoices?limit=100`),
    (r) => (r.body.data as { payment_intent: string }[]).some((i) => i.payment_intent === paymentIntent),
  );
  return (list.body.data as { id: string; number: string; payment_intent: string }[]).find(
    (i) => i.payment_intent === paymentIntent,
  )!;
}

async function refund(m: TestMerchant, paymentIntent: string, invoiceId: string, amount?: number) {
  const r = await stack.api(m.testKey, `/v1/payment-intents/${paymentIntent}/refund`, {
    method: 'POST',
    json: amount === undefined ? {} : { amount },
  });
  expect(r.status).toBe(200);
  const notes = await until(
    () => stack.api(m.testKey, `/v1/credit-notes?invoice=${invoiceId}`),
    (res) => (res.body.data as unknown[]).length === 1,
  );
  return notes.body.data[0] as { id: string; total: number };
}

/**
 * A till sale to a business buyer, paid in cash, and a partial refund at the till (decision 0235):
 * the sale's invoice and the refund's credit note.
 */
async function posSaleToBusiness(m: TestMerchant, customer: string) {
  await setPos(stack, m.id, true);
  const till = await setUpTill(stack, m.testKey);
  const device = (path: string, json: unknown) => stack.api(till.credential, path, { method: 'POST', json });
  expect((await device('/v1/pos/sign_in', { staff: till.manager.id, pin: till.managerPin })).status).toBe(
    200,
  );
  expect(
    (await device(`/v1/pos/registers/${till.register.id}/shift/open`, { opening_float: 20_000 })).status,
  ).toBe(200);
  // A consumer keeps the receipt: naming one for an invoice is refused, and no sale is made.
  const consumer = await stack.api(m.testKey, '/v1/customers', {
    method: 'POST',
    json: { name: 'Guðrún Jónsdóttir', email: 'gudrun@example.is' },
  });
  const refused = await device(`/v1/pos/registers/${till.register.id}/sales`, {
    customer: consumer.body.id,
    lines: [{ description: 'Kaffibolli', unit_amount: 690, vat_rate: 24, quantity: 1 }],
    payments: [{ method: 'cash', amount: 690 }],
  });
  expect({
    status: refused.status,
    code: refused.body.error?.code,
    param: refused.body.error?.param,
  }).toEqual({
    status: 400,
    code: 'customer_not_business',
    param: 'customer',
  });
  expect((await stack.api(m.testKey, '/v1/pos/sales')).body.data).toEqual([]);
  const sale = await device(`/v1/pos/registers/${till.register.id}/sales`, {
    customer,
    lines: [
      { description: 'Kaffivél', unit_amount: 49_900, vat_rate: 24, quantity: 1, discount_amount: 4_990 },
      { description: 'Kaffibaunir 1 kg', unit_amount: 3_490, vat_rate: 11, quantity: 3 },
    ],
    payments: [{ method: 'cash', amount: 55_380, tendered: 60_000 }],
  });
  expect(sale.status).toBe(200);
  expect(sale.body).toMatchObject({ customer, invoice: expect.stringMatching(/^in_/) });
  const invoice = await stack.api(m.testKey, `/v1/invoices/${sale.body.invoice}`);
  expect(invoice.body).toMatchObject({ pos_sale: sale.body.id, total: 55_380, status: 'paid', customer });
  const refund = await device(`/v1/pos/sales/${sale.body.id}/refunds`, { method: 'cash', amount: 3_490 });
  expect(refund.status).toBe(200);
  const notes = await stack.api(m.testKey, `/v1/credit-notes?invoice=${sale.body.invoice}`);
  expect(notes.body.data).toEqual([expect.objectContaining({ pos_refund: refund.body.id, total: 3_490 })]);
  return { invoice: sale.body.invoice as string, creditNote: notes.body.data[0].id as string };
}

async function ubl(m: TestMerchant, path: string): Promise<string> {
  const res = await fetch(`${stack.url}${path}`, { headers: { authorization: `Bearer ${m.testKey}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/xml/);
  return res.text();
}

test("today's invoices and credit notes, through the real paths, validated by the official artefacts", async () => {
  const vat = await stack.merchant();
  await seller(vat, '123456');
  const buyer = await businessCustomer(vat);
  const noVat = await stack.merchant();
  await seller(noVat, null);
  const noVatBuyer = await businessCustomer(noVat);

  // (a) A consumer: name and email, as a checkout page collects them.
  const consumerPi = await payCheckout(vat, {
    customer_name: 'Guðrún Jónsdóttir',
    customer_email: 'gudrun@example.is',
    items: [{ description: 'Kaffibolli', quantity: 2, unit_amount: 690, vat_rate: 24 }],
  });
  // (b) A business at 24 %, then a partial refund.
  const businessPi = await payCheckout(vat, {
    customer: buyer,
    items: [{ description: 'Kvörn', quantity: 1, unit_amount: 12990, vat_rate: 24 }],
  });
  // (c) The other kinds.
  const mixedPi = await payCheckout(vat, {
    customer: buyer,
    items: [
      { description: 'Kvörn', quantity: 1, unit_amount: 12990, vat_rate: 24 },
      { description: 'Baunir 1 kg', quantity: 2, unit_amount: 3490, vat_rate: 11 },
      { description: 'Gjafabréf', quantity: 1, unit_amount: 5000, vat_rate: 0 },
    ],
  });
  const amountOnlyPi = await payCheckout(vat, { customer: buyer, amount: 1500 });
  const fullRefundPi = await payCheckout(vat, {
    customer: buyer,
    items: [{ description: 'Baunir 1 kg', quantity: 3, unit_amount: 3490, vat_rate: 11 }],
  });
  // VAT categories beside the rate (decision 0234): an exempt product (text and VATEX code) sold with
  // an exempt line given by code alone; and a line outside the scope of VAT. Each kind is a sale of
  // its own (exempt beside taxable and anything beside O are refused, see below).
  const course = await stack.api(vat.testKey, '/v1/products', {
    method: 'POST',
    json: {
      name: 'Námskeið í kaffigerð',
      vat_rate: 0,
      vat_category: 'E',
      vat_exemption_reason: 'Kennsla, undanþegin VSK (2. gr. laga nr. 50/1988)',
      vat_exemption_reason_code: 'VATEX-EU-132-1I',
      default_price_data: { unit_amount: 15000 },
    },
  });
  expect(course.status).toBe(200);
  expect(course.body).toMatchObject({
    vat_rate: 0,
    vat_category: 'E',
    vat_exemption_reason_code: 'VATEX-EU-132-1I',
  });
  const exemptPi = await payCheckout(vat, {
    customer: buyer,
    items: [
      { product: course.body.id, quantity: 2 },
      {
        description: 'Prófgjald',
        quantity: 1,
        unit_amount: 3000,
        vat_rate: 0,
        vat_category: 'E',
        vat_exemption_reason_code: 'VATEX-EU-132-1J',
      },
    ],
  });
  const outsidePi = await payCheckout(vat, {
    customer: buyer,
    items: [
      {
        description: 'Útlagður kostnaður: sendingargjald',
        quantity: 1,
        unit_amount: 2500,
        vat_rate: 0,
        vat_category: 'O',
        vat_exemption_reason: 'Útlagður kostnaður fyrir hönd kaupanda',
      },
    ],
  });
  const noVatPi = await payCheckout(noVat, {
    customer: noVatBuyer,
    items: [{ description: 'Lopapeysa', quantity: 1, unit_amount: 24900, vat_rate: 0 }],
  });

  // A subscription's first charge: the renewal invoice (product, period, VAT of the product).
  const product = await stack.api(vat.testKey, '/v1/products', {
    method: 'POST',
    json: { name: 'Kaffiáskrift', vat_rate: 11 },
  });
  const price = await stack.api(vat.testKey, '/v1/prices', {
    method: 'POST',
    json: { product: product.body.id, unit_amount: 4990, recurring: { interval: 'month' } },
  });
  const card = await stack.api(vat.testKey, '/v1/payment-methods', {
    method: 'POST',
    json: {
      card: { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' },
      customer: buyer,
    },
  });
  expect(card.status).toBe(200);
  const sub = await stack.api(vat.testKey, '/v1/subscriptions', {
    method: 'POST',
    json: { customer: buyer, price: price.body.id, default_payment_method: card.body.id },
  });
  expect(sub.status).toBe(200);
  const renewalInvoice = await until(
    () => stack.api(vat.testKey, `/v1/invoices?limit=100`),
    (r) => (r.body.data as { subscription: string | null }[]).some((i) => i.subscription === sub.body.id),
  ).then((r) =>
    (r.body.data as { id: string; subscription: string | null }[]).find(
      (i) => i.subscription === sub.body.id,
    )!,
  );

  const consumer = await invoiceOf(vat, consumerPi);
  const business = await invoiceOf(vat, businessPi);
  const partial = await refund(vat, businessPi, business.id, 4000);
  expect(partial.total).toBe(4000);
  const pos = await posSaleToBusiness(vat, buyer);
  const exempt = await invoiceOf(vat, exemptPi);
  const exemptNote = await refund(vat, exemptPi, exempt.id, 10000);
  expect(exemptNote.total).toBe(10000);
  const full = await invoiceOf(vat, fullRefundPi);
  const fullNote = await refund(vat, fullRefundPi, full.id);
  expect(fullNote.total).toBe(3 * 3490);

  // A sole trader: a person's kennitala, marked business by the merchant, with a GLN and addressed
  // by it on Peppol.
  const soleTrader = await businessCustomer(vat, {
    name: 'Jón Jónsson smiður',
    kennitala: '1201603389',
    business: true,
    gln: '5690000000015',
    peppol_id: '0088:5690000000015',
  });
  const soleTraderPi = await payCheckout(vat, {
    customer: soleTrader,
    items: [{ description: 'Hilla', quantity: 2, unit_amount: 8900, vat_rate: 24 }],
  });

  // (a) The consumer's invoice as the renderer makes it; the API no longer serves it (d).
  const consumerRow = (await createInvoiceRepository(stack.knex).findById(
    { merchantId: vat.id, livemode: false },
    consumer.id,
  ))!;
  const documents: [kind: string, m: TestMerchant, path: string][] = [
    ['consumer invoice (name and email), card checkout at 24 %', vat, 'rendered in the test'],
    ['business invoice, card checkout at 24 %', vat, `/v1/invoices/${business.id}/ubl`],
    ['partial credit note (4000 of 12990)', vat, `/v1/credit-notes/${partial.id}/ubl`],
    [
      'business invoice, card checkout at 24, 11 and 0 %',
      vat,
      `/v1/invoices/${(await invoiceOf(vat, mixedPi)).id}/ubl`,
    ],
    [
      'business invoice, amount-only checkout',
      vat,
      `/v1/invoices/${(await invoiceOf(vat, amountOnlyPi)).id}/ubl`,
    ],
    ['business invoice, subscription renewal at 11 %', vat, `/v1/invoices/${renewalInvoice.id}/ubl`],
    ['business invoice at 11 %, refunded in full', vat, `/v1/invoices/${full.id}/ubl`],
    ['full credit note', vat, `/v1/credit-notes/${fullNote.id}/ubl`],
    [
      'business invoice, sole trader marked business, GLN and Peppol id 0088',
      vat,
      `/v1/invoices/${(await invoiceOf(vat, soleTraderPi)).id}/ubl`,
    ],
    ['business invoice, till sale in cash with a line discount', vat, `/v1/invoices/${pos.invoice}/ubl`],
    ['partial credit note of a till refund', vat, `/v1/credit-notes/${pos.creditNote}/ubl`],
    ['business invoice, exempt lines (E), two reasons', vat, `/v1/invoices/${exempt.id}/ubl`],
    ['partial credit note of the exempt invoice', vat, `/v1/credit-notes/${exemptNote.id}/ubl`],
    [
      'business invoice, a line outside the scope of VAT (O)',
      vat,
      `/v1/invoices/${(await invoiceOf(vat, outsidePi)).id}/ubl`,
    ],
    [
      'business invoice, merchant without VAT number',
      noVat,
      `/v1/invoices/${(await invoiceOf(noVat, noVatPi)).id}/ubl`,
    ],
  ];
  // As the API served it before decision 0210: addressed by the e-mail the buyer gave (scheme EM).
  const consumerXml = invoiceUbl(consumerRow).replace(
    '<cac:AccountingCustomerParty><cac:Party>\n',
    '<cac:AccountingCustomerParty><cac:Party>\n<cbc:EndpointID schemeID="EM">gudrun@example.is</cbc:EndpointID>',
  );
  expect(consumerXml).toContain('schemeID="EM"');
  const xml = [consumerXml, ...(await Promise.all(documents.slice(1).map(([, m, path]) => ubl(m, path))))];
  const soleTraderXml =
    xml[documents.findIndex(([kind]) => kind.startsWith('business invoice, sole trader'))]!;
  expect(soleTraderXml).toContain('<cbc:EndpointID schemeID="0088">5690000000015</cbc:EndpointID>');
  expect(soleTraderXml).toContain('<cbc:ID schemeID="0088">5690000000015</cbc:ID>');
  // The exempt invoice: one E group with both reasons (one breakdown per category, BR-E-01), its
  // lines classified E at 0 %; the outside-the-scope invoice without the seller's VAT number (BR-O-02).
  const exemptJson = await stack.api(vat.testKey, `/v1/invoices/${exempt.id}`);
  expect(exemptJson.body.lines.map((l: { vat_category: string }) => l.vat_category)).toEqual(['E', 'E']);
  expect(exemptJson.body.vat).toEqual([
    expect.objectContaining({
      rate: 0,
      category: 'E',
      // Two codes for one group: neither is the group's code, both are kept in its text.
      exemption_reason: 'Kennsla, undanþegin VSK (2. gr. laga nr. 50/1988); VATEX-EU-132-1I; VATEX-EU-132-1J',
      exemption_reason_code: null,
      vat_amount: 0,
    }),
  ]);
  const exemptXml = xml[documents.findIndex(([kind]) => kind.startsWith('business invoice, exempt'))]!;
  expect(exemptXml).toContain(
    '<cac:ClassifiedTaxCategory><cbc:ID>E</cbc:ID><cbc:Percent>0</cbc:Percent><cac:TaxScheme>',
  );
  expect(exemptXml).toContain(
    '<cbc:TaxExemptionReason>Kennsla, undanþegin VSK (2. gr. laga nr. 50/1988); VATEX-EU-132-1I; VATEX-EU-132-1J</cbc:TaxExemptionReason>',
  );
  const exemptNoteJson = await stack.api(vat.testKey, `/v1/credit-notes/${exemptNote.id}`);
  expect(exemptNoteJson.body.vat.map((v: { category: string }) => v.category)).toEqual(['E']);
  const outsideXml = xml[documents.findIndex(([kind]) => kind.includes('outside the scope'))]!;
  expect(outsideXml).toContain('<cac:ClassifiedTaxCategory><cbc:ID>O</cbc:ID><cac:TaxScheme>');
  expect(outsideXml).toContain(
    '<cbc:TaxExemptionReason>Útlagður kostnaður fyrir hönd kaupanda</cbc:TaxExemptionReason>',
  );
  expect(outsideXml).not.toContain('<cac:PartyTaxScheme>');
  // The PDF says why no VAT is charged on the exempt lines (decision 0234).
  const exemptPdf = await fetch(`${stack.url}/v1/invoices/${exempt.id}/pdf`, {
    headers: { authorization: `Bearer ${vat.testKey}` },
  });
  const exemptText = await pdfText(Buffer.from(await exemptPdf.arrayBuffer()));
  expect(exemptText).toContain('Prófgjald | 1 x 3.000 kr. | VSK 0% undanþegið / exempt | 3.000 kr.');
  expect(exemptText).toContain('VSK 0% undanþegið / exempt: stofn / taxable 33.000 kr., VSK / VAT 0 kr.');
  expect(exemptText).toContain('Kennsla, undanþegin VSK');
  const started = Date.now();
  const reports = await validateEInvoices(xml);
  const took = Date.now() - started;
  const byKind = new Map<string, DocumentReport>(documents.map(([kind], i) => [kind, reports[i]!]));

  console.log(
    [
      `official validation of ${xml.length} documents: ${took} ms`,
      ...[...byKind].map(
        ([kind, r]) =>
          `${kind}\n  EN 16931 fatal: ${fatalIds(r.en16931).join(' ') || '—'}; warnings: ${warningIds(r.en16931).join(' ') || '—'}` +
          `\n  Peppol   fatal: ${fatalIds(r.peppol).join(' ') || '—'}; warnings: ${warningIds(r.peppol).join(' ') || '—'}`,
      ),
    ].join('\n'),
  );

  // (a) The consumer's email endpoint is rejected, at the buyer's EndpointID.
  const c = byKind.get(documents[0]![0])!;
  expect(fatalIds(c.peppol)).toContain('PEPPOL-EN16931-CL008');
  expect(c.peppol.fatal.find((f) => f.id === 'PEPPOL-EN16931-CL008')!.location).toMatch(
    /AccountingCustomerParty.*EndpointID/,
  );
  // (b) The business buyer's invoice and its partial credit note pass both artefacts, and (c) so
  // does every other business kind (decisions 0208, 0210).
  for (const [kind] of documents.slice(1)) {
    const r = byKind.get(kind)!;
    expect({ kind, en16931: fatalIds(r.en16931), peppol: fatalIds(r.peppol) }).toEqual({
      kind,
      en16931: [],
      peppol: [],
    });
  }
}, 120_000);

test('a VAT category is checked beside its rate wherever a rate is taken, naming the field', async () => {
  const m = await stack.merchant();
  await seller(m, '123456');
  const post = (path: string, json: Record<string, unknown>, method = 'POST') =>
    stack.api(m.testKey, path, { method, json });
  const patch = (path: string, json: Record<string, unknown>) => post(path, json, 'PATCH');
  const refused = async (path: string, json: Record<string, unknown>, method = 'POST') => {
    const r = await post(path, json, method);
    return { status: r.status, param: r.body.error?.param };
  };
  const cases: [Record<string, unknown>, string][] = [
    [{ vat_rate: 0, vat_category: 'S' }, 'vat_rate'],
    [{ vat_rate: 24, vat_category: 'Z' }, 'vat_rate'],
    [{ vat_rate: 11, vat_category: 'O' }, 'vat_rate'],
    [{ vat_rate: 0, vat_category: 'E' }, 'vat_exemption_reason'],
    [
      { vat_rate: 0, vat_category: 'E', vat_exemption_reason_code: 'VATEX-EU-O' },
      'vat_exemption_reason_code',
    ],
    [{ vat_rate: 24, vat_exemption_reason: 'Af því bara' }, 'vat_exemption_reason'],
    [{ vat_rate: 0, vat_category: 'X' }, 'vat_category'],
  ];
  for (const [vat, param] of cases) {
    expect({ vat, ...(await refused('/v1/products', { name: 'Vara', ...vat })) }).toEqual({
      vat,
      status: 400,
      param,
    });
    expect(
      await refused('/v1/checkout/sessions', {
        currency: 'ISK',
        success_url: SUCCESS_URL,
        items: [
          { description: 'Kaffi', unit_amount: 500, vat_rate: 24 },
          { description: 'Lína', unit_amount: 1000, ...vat },
        ],
      }),
      // An unknown category fails the item's shape, which zod names by the item.
    ).toEqual({ status: 400, param: vat.vat_category === 'X' ? 'items.1' : `items.1.${param}` });
  }
  // One invoice holds one kind of line: nothing beside O (BR-O-11), no exempt beside taxable.
  for (const other of [
    { vat_rate: 0, vat_category: 'O' },
    { vat_rate: 0, vat_category: 'E', vat_exemption_reason: 'Kennsla' },
  ])
    expect(
      await refused('/v1/checkout/sessions', {
        currency: 'ISK',
        success_url: SUCCESS_URL,
        items: [
          { description: 'Kaffi', unit_amount: 500, vat_rate: 0 },
          { description: 'Lína', unit_amount: 1000, ...other },
        ],
      }),
    ).toEqual({ status: 400, param: 'items.1.vat_category' });
  // An update is checked as the product will stand: S cannot go to 0 %, and a category change
  // drops the old reason; null puts the category back to derived.
  const p = await post('/v1/products', { name: 'Vara', vat_rate: 24, vat_category: 'S' });
  expect(p.body).toMatchObject({ vat_category: 'S', vat_exemption_reason: null });
  expect(await refused(`/v1/products/${p.body.id}`, { vat_rate: 0 }, 'PATCH')).toEqual({
    status: 400,
    param: 'vat_rate',
  });
  const e = await patch(`/v1/products/${p.body.id}`, {
    vat_rate: 0,
    vat_category: 'E',
    vat_exemption_reason: 'Undanþegið',
  });
  expect(e.body).toMatchObject({ vat_rate: 0, vat_category: 'E', vat_exemption_reason: 'Undanþegið' });
  const z = await patch(`/v1/products/${p.body.id}`, { vat_category: 'Z' });
  expect(z.body).toMatchObject({ vat_category: 'Z', vat_exemption_reason: null });
  const derived = await patch(`/v1/products/${p.body.id}`, { vat_category: null });
  expect(derived.body).toMatchObject({ vat_rate: 0, vat_category: null });
  // Products and items that name no category are as they were: derived on the invoice.
  const plain = await post('/v1/products', { name: 'Vara', vat_rate: 11 });
  expect(plain.body).toMatchObject({ vat_rate: 11, vat_category: null, vat_exemption_reason_code: null });
});

test('what has no Peppol document is refused naming why, and the consumer gets the PDF invoice', async () => {
  const vat = await stack.merchant();
  await seller(vat, '123456');
  // (d) A consumer: UBL of the invoice and of its credit note refused, the PDF served.
  const consumerPi = await payCheckout(vat, {
    customer_name: 'Guðrún Jónsdóttir',
    customer_email: 'gudrun@example.is',
    items: [{ description: 'Kaffibolli', quantity: 2, unit_amount: 690, vat_rate: 24 }],
  });
  const consumer = await invoiceOf(vat, consumerPi);
  expect(await refusedUbl(vat, `/v1/invoices/${consumer.id}/ubl`)).toEqual({
    status: 422,
    error: expect.objectContaining({
      type: 'invalid_request_error',
      code: 'buyer_is_consumer',
      param: 'customer',
      message: expect.stringContaining('/pdf'),
    }),
  });
  const note = await refund(vat, consumerPi, consumer.id, 690);
  expect((await refusedUbl(vat, `/v1/credit-notes/${note.id}/ubl`)).error.code).toBe('buyer_is_consumer');
  const pdf = await fetch(`${stack.url}/v1/invoices/${consumer.id}/pdf`, {
    headers: { authorization: `Bearer ${vat.testKey}` },
  });
  expect(pdf.status).toBe(200);
  const text = await pdfText(Buffer.from(await pdf.arrayBuffer()));
  // What a sales invoice must carry (decision 0210): seller with kennitala, address and VAT number,
  // number, dates, the buyer as identified, lines with quantity, unit price and rate, VAT per rate.
  for (const required of [
    'Kaffibrennslan ehf.',
    'Kennitala: 5501692829',
    'Laugavegur 1, 101 Reykjavík',
    'VSK-númer / VAT number: 123456',
    consumer.number,
    'Útgáfudagur / Date of issue:',
    'Afhendingardagur / Date of supply:',
    'Guðrún Jónsdóttir',
    'gudrun@example.is',
    'Kaffibolli | 2 x 690 kr. | VSK 24% | 1.380 kr.',
    'Verð eru með virðisaukaskatti / Prices include VAT',
    'VSK 24%: stofn / taxable 1.113 kr., VSK / VAT 267 kr.',
    'Samtals / Total: 1.380 kr.',
  ])
    expect(text).toContain(required);

  // A business buyer without an address: refused naming the fields it lacks.
  const noAddress = await businessCustomer(vat, { address: null });
  const noAddressPi = await payCheckout(vat, { customer: noAddress, amount: 2500 });
  const refused = await refusedUbl(vat, `/v1/invoices/${(await invoiceOf(vat, noAddressPi)).id}/ubl`);
  expect(refused).toEqual({
    status: 422,
    error: expect.objectContaining({
      code: 'buyer_incomplete',
      param: 'customer.address.line1',
      params: ['customer.address.line1', 'customer.address.postal_code'],
    }),
  });

  // A test merchant that has not given its kennitala or address: the seller's fields named.
  const bare = await stack.merchant();
  const bareBuyer = await businessCustomer(bare);
  const barePi = await payCheckout(bare, { customer: bareBuyer, amount: 1000 });
  expect(await refusedUbl(bare, `/v1/invoices/${(await invoiceOf(bare, barePi)).id}/ubl`)).toEqual({
    status: 422,
    error: expect.objectContaining({
      code: 'seller_incomplete',
      param: 'kennitala',
      params: ['kennitala', 'legal_address'],
    }),
  });

  // The customer's e-invoice fields are checked on the way in, and nothing changes on a refusal.
  for (const [field, value] of [
    ['gln', '5690000000018'],
    ['peppol_id', 'EM:gudrun@example.is'],
    ['peppol_id', '0088:5690000000018'],
  ] as const) {
    const bad = await stack.api(vat.testKey, `/v1/customers/${noAddress}`, {
      method: 'PATCH',
      json: { [field]: value },
    });
    expect({ status: bad.status, param: bad.body.error?.param }).toEqual({ status: 400, param: field });
  }
  const after = await stack.api(vat.testKey, `/v1/customers/${noAddress}`);
  expect(after.body).toMatchObject({ gln: null, peppol_id: null, business: false, einvoice: false });
}, 60_000);

test('a renewal with a coupon and one with a proration, for a business on a test clock: no fatal finding', async () => {
  const m = await stack.merchant();
  await seller(m, '123456');
  const T0 = Date.UTC(2027, 0, 31, 12, 0, 0);
  const clock = await stack.api(m.testKey, '/v1/test_helpers/test_clocks', {
    method: 'POST',
    json: { frozen_time: Math.floor(T0 / 1000), name: 'e-invoice renewals' },
  });
  const advance = async (ms: number) => {
    const res = await stack.api(m.testKey, `/v1/test_helpers/test_clocks/${clock.body.id}/advance`, {
      method: 'POST',
      json: { frozen_time: Math.floor(ms / 1000) },
    });
    expect(res.status).toBe(200);
    await until(
      () => stack.api(m.testKey, `/v1/test_helpers/test_clocks/${clock.body.id}`),
      (r) => r.body.status === 'ready',
      55_000,
    );
  };
  const buyer = await businessCustomer(m, { test_clock: clock.body.id });
  const product = await stack.api(m.testKey, '/v1/products', {
    method: 'POST',
    json: { name: 'Kaffiáskrift', vat_rate: 11 },
  });
  const price = async (unit_amount: number) =>
    (
      await stack.api(m.testKey, '/v1/prices', {
        method: 'POST',
        json: { product: product.body.id, unit_amount, recurring: { interval: 'month' } },
      })
    ).body.id as string;
  const [cheap, dear] = [await price(2990), await price(5990)];
  const coupon = await stack.api(m.testKey, '/v1/coupons', {
    method: 'POST',
    json: { percent_off: 15, duration: 'forever' },
  });
  expect(coupon.status).toBe(200);
  const card = await stack.api(m.testKey, '/v1/payment-methods', {
    method: 'POST',
    json: {
      card: { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' },
      customer: buyer,
    },
  });
  const sub = await stack.api(m.testKey, '/v1/subscriptions', {
    method: 'POST',
    json: { customer: buyer, price: cheap, default_payment_method: card.body.id, coupon: coupon.body.id },
  });
  expect(sub.status).toBe(200);
  await until(
    () => stack.api(m.testKey, `/v1/subscriptions/${sub.body.id}`),
    (r) => r.body.status === 'active',
  );
  // Halfway through the period the price goes up, prorated to the day, settled at the next renewal.
  await advance(T0 + 14 * 86_400_000);
  const changed = await stack.api(m.testKey, `/v1/subscriptions/${sub.body.id}`, {
    method: 'POST',
    json: { price: dear, proration_behavior: 'create_prorations' },
  });
  expect(changed.body.proration_amount).toBeGreaterThan(0);
  await advance(T0 + 29 * 86_400_000);
  const invoices = (
    await until(
      () => stack.api(m.testKey, `/v1/invoices?subscription=${sub.body.id}`),
      (r) => (r.body.data as unknown[]).length === 2,
    )
  ).body.data as { id: string; lines: { description: string }[] }[];
  const descriptions = invoices.map((i) => i.lines.map((l) => l.description).sort());
  // The first period's discount, and the second's proration beside its discount.
  expect(descriptions).toEqual(
    expect.arrayContaining([
      ['Discount', 'Kaffiáskrift'],
      ['Discount', 'Kaffiáskrift', 'Proration'],
    ]),
  );
  const reports = await validateEInvoices(
    await Promise.all(invoices.map((i) => ubl(m, `/v1/invoices/${i.id}/ubl`))),
  );
  expect(reports.map((r) => [...fatalIds(r.en16931), ...fatalIds(r.peppol)])).toEqual([[], []]);
}, 120_000);
