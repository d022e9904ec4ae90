/**
 * The simulated access point as `npm start` runs it (decision 0216): no JVM, so it checks documents
 * with its own few rules. Through the HTTP adapter Skil uses: a business invoice rendered by Skil is
 * delivered; a consumer's (e-mail endpoint, no kennitala, no address) is refused with the official
 * rule ids it breaks; a person's kennitala is not in the directory; a repeated send answers the first
 * transmission; bad requests are refused as such.
 */
import { httpAccessPoint } from '../../adapters/access-point/http-access-point';
import {
  AccessPointRefusal,
  type AccessPoint,
  type Transmission,
} from '../../adapters/access-point/access-point';
import { startSimulatedAccessPoint, type SimulatedAccessPoint } from '../../simulators/access-point/service';
import { invoiceUbl } from '../../services/invoices/ubl';
import type { InvoiceRow } from '../../db/invoices';
import { until } from '../helpers/until';

let sim: SimulatedAccessPoint;
let ap: AccessPoint;
beforeAll(async () => {
  sim = await startSimulatedAccessPoint();
  ap = httpAccessPoint({ baseUrl: sim.url, token: sim.token });
});
afterAll(() => sim?.stop());

const SELLER = {
  name: 'Kaffibrennslan ehf.',
  kennitala: '5501692829',
  vat_number: '123456',
  address: { street: 'Laugavegur 1', city: 'Reykjavík', postalCode: '101', country: 'IS' },
  bank_account: '0133-26-012345',
};

function invoice(id: string, buyer: InvoiceRow['buyer']): InvoiceRow {
  return {
    id,
    merchant_id: 'acct_1',
    livemode: false,
    sequence: 1,
    number: 'TEST-000001',
    status: 'paid',
    payment_intent_id: 'pi_1',
    claim_id: null,
    claim_account: null,
    pos_sale_id: null,
    customer_id: 'cus_1',
    subscription_id: null,
    checkout_session_id: null,
    seller: SELLER,
    buyer,
    lines: [
      { description: 'Kaffi', quantity: 1, unit_amount: 1240, amount: 1240, net_amount: 1000, vat_rate: 24 },
    ],
    vat: [{ rate: 24, amount: 1240, taxable_amount: 1000, vat_amount: 240 }],
    total: 1240,
    total_vat: 240,
    amount_credited: 0,
    issued_at: new Date('2026-12-01T12:00:00Z'),
    supplied_at: new Date('2026-12-01T12:00:00Z'),
    due_date: null,
    final_due_date: null,
    payment_reference: 'TEST-000001',
    created_at: new Date('2026-12-01T12:00:00Z'),
  };
}

const outcome = (t: Transmission) =>
  until(
    () => ap.status(t.id),
    (s) => s.state !== 'pending',
    10_000,
  );

test('a business invoice is delivered; sending it again answers the first transmission', async () => {
  const xml = invoiceUbl(
    invoice('in_business', {
      name: 'Bókhaldsstofan ehf.',
      email: 'reikningar@example.is',
      kennitala: '4101692659',
      address: { line1: 'Hverfisgata 4', line2: null, postal_code: '101', city: 'Reykjavík', country: 'IS' },
    }),
  );
  const doc = {
    reference: 'in_business',
    kind: 'invoice' as const,
    sender: '0196:5501692829',
    receiver: '0196:4101692659',
    xml,
  };
  const [first, second] = await Promise.all([ap.send(doc), ap.send(doc)]);
  expect(second.id).toBe(first.id);
  await expect(outcome(first)).resolves.toMatchObject({ state: 'delivered', reasons: [] });
  expect(sim.transmissions().filter((t) => t.reference === 'in_business')).toHaveLength(1);
});

test("a consumer's invoice is refused with the rules it breaks; a person's kennitala is in no directory", async () => {
  // A consumer's invoice as it was served before decision 0210: addressed by e-mail (scheme EM).
  const consumer = invoiceUbl(
    invoice('in_consumer', { name: 'Guðrún', email: 'gudrun@example.is', kennitala: null, address: null }),
  ).replace(
    '<cac:AccountingCustomerParty><cac:Party>\n',
    '<cac:AccountingCustomerParty><cac:Party>\n<cbc:EndpointID schemeID="EM">gudrun@example.is</cbc:EndpointID>',
  );
  const refused = await outcome(
    await ap.send({
      reference: 'in_consumer',
      kind: 'invoice',
      sender: '0196:5501692829',
      receiver: '0196:4101692659',
      xml: consumer,
    }),
  );
  expect(refused.state).toBe('failed');
  expect(refused.reasons.map((r) => r.rule).sort()).toEqual([
    'IS-R-004',
    'IS-R-005',
    'PEPPOL-EN16931-CL008',
    'receiver_mismatch',
  ]);
  const person = await outcome(
    await ap.send({
      reference: 'in_person',
      kind: 'invoice',
      sender: '0196:5501692829',
      receiver: '0196:0101302989',
      xml: consumer,
    }),
  );
  expect(person).toMatchObject({ state: 'failed', reasons: [{ rule: 'receiver_not_registered' }] });
});

test('a request without routing or credentials is refused, not taken', async () => {
  await expect(
    ap.send({
      reference: 'x',
      kind: 'invoice',
      sender: 'kennitala',
      receiver: '0196:4101692659',
      xml: '<Invoice/>',
    }),
  ).rejects.toBeInstanceOf(AccessPointRefusal);
  const stranger = httpAccessPoint({ baseUrl: sim.url, token: 'wrong' });
  await expect(stranger.status('tx_1')).rejects.toMatchObject({ status: 401 });
});

test('a validator that cannot run refuses the document, saying why, and never delivers it', async () => {
  const broken = await startSimulatedAccessPoint({
    validate: () => Promise.reject(new Error('official e-invoice validation needs Java')),
  });
  try {
    const client = httpAccessPoint({ baseUrl: broken.url, token: broken.token });
    const sent = await client.send({
      reference: 'in_unchecked',
      kind: 'invoice',
      sender: '0196:5501692829',
      receiver: '0196:4101692659',
      xml: '<Invoice/>',
    });
    const done = await until(
      () => client.status(sent.id),
      (s) => s.state !== 'pending',
      10_000,
    );
    expect(done).toMatchObject({
      state: 'failed',
      reasons: [{ rule: 'validator_unavailable', message: 'official e-invoice validation needs Java' }],
    });
  } finally {
    await broken.stop();
  }
});
