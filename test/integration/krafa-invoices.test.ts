import { randomBase62 } from '../../domain/ids';
import { claimBatchWorkflowId } from '../../workflows/contract';
import { SHARED_STACK_OPTIONS, startTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { fatalIds, validateEInvoices, warningIds } from '../helpers/official-einvoice-validation';
import { registeredSeller } from '../helpers/books';

/**
 * Sales paid by krafa are invoiced when the bank accepts the krafa (decision 0211), through the real
 * paths: the hosted checkout's "pay with a krafa", the claim batch to the simulated bank, the payer
 * paying at the bank and the claim-payments sync, and a merchant cancelling a krafa. The invoice is
 * open with the krafa's gjalddagi, eindagi and account (payment means 9), paid when the krafa is, and
 * credited in full when it is cancelled unpaid; invoice and credit note pass the official EN 16931
 * and Peppol/TS-236 artefacts with no fatal finding.
 */

const BUSINESS = '4101692659';
const PERSON = '1201603389';

let stack: TestStack;
let m: TestMerchant;

beforeAll(async () => {
  // A stack of its own (decision 0200): its claim batches take every pending krafa of the database.
  stack = await startTestStack(SHARED_STACK_OPTIONS);
  m = await stack.merchant('Kaffibrennslan ehf.');
  await registeredSeller(stack, m);
});
afterAll(async () => {
  await stack?.stop();
});

const get = (path: string) => stack.api(m.testKey, path);
const post = (path: string, json: unknown = {}) => stack.api(m.testKey, path, { method: 'POST', json });

interface Invoice {
  id: string;
  status: string;
  claim: string | null;
  payment_intent: string | null;
  due_date: string | null;
  final_due_date: string | null;
  payment_reference: string;
  total: number;
  amount_credited: number;
}

/** A session paid by krafa as the buyer does on the hosted checkout; the krafa once its batch issued it. */
async function sessionPaidByKrafa(
  json: Record<string, unknown>,
  payer: string,
  form: Record<string, string> = {},
) {
  const session = await post('/v1/checkout/sessions', { currency: 'ISK', ...json });
  expect(session.status).toBe(200);
  const res = await fetch(`${stack.url}/checkout/${session.body.id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      action: 'claim',
      f_name: 'Bókhaldsstofan ehf.',
      f_email: 'reikningar@bokhald.example.is',
      claim_kennitala: payer,
      ...form,
    }).toString(),
    redirect: 'manual',
  });
  expect(res.status).toBe(200);
  expect(await res.text()).toContain('data-payment-status="awaiting_claim"');
  const batch = stack.client.workflow.getHandle(claimBatchWorkflowId(false, `checkout-${session.body.id}`));
  expect(await batch.result()).toMatchObject({ issued: 1 });
  const claims = (await get('/v1/claims?limit=100')).body.data as {
    id: string;
    metadata: Record<string, string>;
  }[];
  const claim = (
    await get(`/v1/claims/${claims.find((c) => c.metadata.checkout_session === session.body.id)!.id}`)
  ).body as {
    id: string;
    status: string;
    due_date: string;
    final_due_date: string;
    claim_key: { claimant_id: string; account: string; due_date: string };
  };
  expect(claim.status).toBe('issued');
  return claim;
}

const invoiceOfClaim = async (claimId: string) =>
  ((await get('/v1/invoices?limit=100')).body.data as Invoice[]).filter((i) => i.claim === claimId);

const eventsFor = async (type: string, id: string) =>
  ((await get(`/v1/events?type=${type}&limit=100`)).body.data as { data: { id: string } }[]).filter(
    (e) => e.data.id === id,
  );

async function xml(path: string) {
  const res = await fetch(`${stack.url}${path}`, { headers: { authorization: `Bearer ${m.testKey}` } });
  expect(res.status).toBe(200);
  return res.text();
}

const runSync = () =>
  stack.client.workflow.execute('claimPaymentsSync', {
    workflowId: `claim-payments-sync/test/${randomBase62(6)}`,
    taskQueue: stack.taskQueue,
    args: [{}],
  });

test('a business paying by krafa: an open invoice at issue with its dates and account, paid with the krafa; a cancelled krafa credited; both valid', async () => {
  const customer = await post('/v1/customers', {
    name: 'Bókhaldsstofan ehf.',
    email: 'reikningar@bokhald.example.is',
    kennitala: BUSINESS,
    address: { line1: 'Hverfisgata 4', postal_code: '101', city: 'Reykjavík', country: 'IS' },
  });
  expect(customer.body.einvoice).toBe(true);
  const items = [
    { description: 'Kvörn', quantity: 1, unit_amount: 12_990, vat_rate: 24 },
    { description: 'Baunir 1 kg', quantity: 2, unit_amount: 3_490, vat_rate: 11 },
  ];

  // Issued: one open invoice, with the krafa's dates and account, and its event.
  const claim = await sessionPaidByKrafa({ customer: customer.body.id, items }, BUSINESS);
  const [open, ...more] = await invoiceOfClaim(claim.id);
  expect(more).toEqual([]);
  expect(open).toMatchObject({
    status: 'open',
    payment_intent: null,
    due_date: claim.due_date,
    final_due_date: claim.final_due_date,
    payment_reference: claim.claim_key.account,
    total: 12_990 + 2 * 3_490,
  });
  expect(await eventsFor('invoice.finalized', open!.id)).toHaveLength(1);
  const openXml = await xml(`/v1/invoices/${open!.id}/ubl`);
  expect(openXml).toContain(
    `<cbc:PaymentMeansCode>9</cbc:PaymentMeansCode><cbc:PaymentID>${claim.claim_key.account}</cbc:PaymentID><cac:PayeeFinancialAccount><cbc:ID>${claim.claim_key.account}</cbc:ID></cac:PayeeFinancialAccount>`,
  );
  expect(openXml).toContain(`<cbc:DueDate>${claim.due_date}</cbc:DueDate>`);
  expect(openXml).toContain(
    `<cbc:ID>${claim.final_due_date}</cbc:ID><cbc:DocumentDescription>EINDAGI</cbc:DocumentDescription>`,
  );

  // Paid at the bank: the sync pays the invoice with the krafa's payment intent, once.
  const bankId = `${claim.claim_key.claimant_id}${claim.claim_key.account}+${claim.claim_key.due_date.replaceAll('-', '')}`;
  stack.bank!.bank.ledger.pay(bankId);
  expect(await runSync()).toMatchObject({ applied: 1 });
  expect(await runSync()).toMatchObject({ applied: 0 });
  const paidClaim = (await get(`/v1/claims/${claim.id}`)).body as { status: string; payment_intent: string };
  expect(paidClaim.status).toBe('paid');
  const [paid] = await invoiceOfClaim(claim.id);
  expect(paid).toMatchObject({ id: open!.id, status: 'paid', payment_intent: paidClaim.payment_intent });
  expect(await eventsFor('invoice.paid', open!.id)).toHaveLength(1);

  // Cancelled unpaid: its invoice is credited in full by a credit note naming the krafa, once.
  const toCancel = await sessionPaidByKrafa({ customer: customer.body.id, amount: 9_900 }, BUSINESS);
  const [cancelledInvoice] = await invoiceOfClaim(toCancel.id);
  expect(cancelledInvoice).toMatchObject({ status: 'open', total: 9_900 });
  expect((await post(`/v1/claims/${toCancel.id}/cancel`)).body.status).toBe('cancelled');
  expect((await post(`/v1/claims/${toCancel.id}/cancel`)).body.status).toBe('cancelled');
  const notes = (await get(`/v1/credit-notes?invoice=${cancelledInvoice!.id}`)).body.data as {
    id: string;
    claim: string | null;
    refund: string | null;
    total: number;
  }[];
  expect(notes).toEqual([expect.objectContaining({ claim: toCancel.id, refund: null, total: 9_900 })]);
  expect((await get(`/v1/invoices/${cancelledInvoice!.id}`)).body.amount_credited).toBe(9_900);
  expect(await eventsFor('credit_note.created', notes[0]!.id)).toHaveLength(1);

  // A consumer paying by krafa gets the invoice, open, and no Peppol document (decision 0210).
  const consumer = await sessionPaidByKrafa({ amount: 4_500 }, PERSON);
  const [consumerInvoice] = await invoiceOfClaim(consumer.id);
  expect(consumerInvoice).toMatchObject({ status: 'open', total: 4_500 });
  const refused = await fetch(`${stack.url}/v1/invoices/${consumerInvoice!.id}/ubl`, {
    headers: { authorization: `Bearer ${m.testKey}` },
  });
  expect(refused.status).toBe(422);

  // A company given on the checkout's "invoice to a company" (decision 0212), paying by krafa: its
  // invoice is the company's, a business e-invoice.
  const viaPage = await sessionPaidByKrafa({ amount: 7_500, business_invoice: { enabled: true } }, BUSINESS, {
    business_invoice: '1',
    business_kennitala: BUSINESS,
    business_name: 'Bókhaldsstofan ehf.',
    business_line1: 'Hverfisgata 4',
    business_postal_code: '101',
    business_city: 'Reykjavík',
  });
  const [viaPageInvoice] = await invoiceOfClaim(viaPage.id);
  expect(viaPageInvoice).toMatchObject({ status: 'open', total: 7_500, einvoice: true });
  const viaPageSession = (await get(`/v1/claims/${viaPage.id}`)).body as { metadata: Record<string, string> };
  const companyCustomer = (await get(`/v1/checkout/sessions/${viaPageSession.metadata.checkout_session}`))
    .body.customer as string;
  expect(companyCustomer).toMatch(/^cus_/);
  expect((await get(`/v1/invoices/${viaPageInvoice!.id}`)).body.customer).toBe(companyCustomer);

  const documents = [
    await xml(`/v1/invoices/${viaPageInvoice!.id}/ubl`),
    openXml,
    await xml(`/v1/invoices/${cancelledInvoice!.id}/ubl`),
    await xml(`/v1/credit-notes/${notes[0]!.id}/ubl`),
  ];
  const reports = await validateEInvoices(documents);
  expect(
    reports.map((r) => ({
      en16931: [...fatalIds(r.en16931), ...warningIds(r.en16931)],
      peppol: [...fatalIds(r.peppol), ...warningIds(r.peppol)],
    })),
  ).toEqual(documents.map(() => ({ en16931: [], peppol: [] })));
}, 90_000);
