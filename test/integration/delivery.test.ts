import { sharedTestStack, type TestStack, type TestMerchant } from '../helpers/stack';

/**
 * Issue 20, done-means 3 and 4: the delivery capability follows the carriers switched on per
 * environment; pickup-point search by postcode, name and distance on the simulated carriers' fixed
 * points; a delivery booked only once its session is paid, moved on with one event per status, and
 * canceled before shipment.
 */
let stack: TestStack;
let m: TestMerchant;

beforeAll(async () => {
  stack = await sharedTestStack();
  m = await stack.merchant('Sendill ehf.');
});
afterAll(async () => {
  await stack?.stop();
});

const get = (path: string, key = m.testKey) => stack.api(key, path);
const post = (path: string, json: unknown = {}, key = m.testKey) =>
  stack.api(key, path, { method: 'POST', json });
const capabilities = async (key: string) =>
  ((await get('/v1/merchant', key)).body.enabled_capabilities as string[]).filter((c) =>
    c.startsWith('delivery.'),
  );
const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((p) => p.id);
const eventsOf = async (type: string, deliveryId: string) =>
  (
    (await get(`/v1/events?type=${type}&limit=100`)).body.data as { data: { id: string; status: string } }[]
  ).filter((e) => e.data.id === deliveryId);

test('a test key sees no delivery capability until a carrier is active for the test environment', async () => {
  const fresh = await stack.merchant('Nýr ehf.');
  expect(await capabilities(fresh.testKey)).toEqual([]);
  expect((await get('/v1/delivery/carriers', fresh.testKey)).body.data).toEqual([
    expect.objectContaining({ id: 'dropp', active: false, available: true, livemode: false }),
    expect.objectContaining({ id: 'posturinn', active: false, available: true, livemode: false }),
  ]);
  // Pickup points of a carrier that is not active are not offered.
  const refused = await get('/v1/delivery/pickup-points?carrier=dropp', fresh.testKey);
  expect(refused.status).toBe(400);
  expect(refused.body.error).toMatchObject({ code: 'carrier_not_active', param: 'carrier' });

  expect((await post('/v1/delivery/carriers/dropp', { active: true }, fresh.testKey)).body).toMatchObject({
    id: 'dropp',
    active: true,
  });
  expect(await capabilities(fresh.testKey)).toEqual(['delivery.dropp']);
  // The live environment is separate, and has no carrier contract configured to switch on.
  expect(await capabilities(fresh.liveKey)).toEqual([]);
  const live = await post('/v1/delivery/carriers/dropp', { active: true }, fresh.liveKey);
  expect(live.status).toBe(400);
  expect(live.body.error).toMatchObject({ code: 'carrier_unavailable', param: 'active' });
  expect(await capabilities(fresh.liveKey)).toEqual([]);

  await post('/v1/delivery/carriers/posturinn', { active: true }, fresh.testKey);
  expect(await capabilities(fresh.testKey)).toEqual(['delivery.dropp', 'delivery.posturinn']);
  await post('/v1/delivery/carriers/dropp', { active: false }, fresh.testKey);
  expect(await capabilities(fresh.testKey)).toEqual(['delivery.posturinn']);
  expect((await post('/v1/delivery/carriers/ups', { active: true }, fresh.testKey)).status).toBe(404);
});

describe('with both carriers active', () => {
  beforeAll(async () => {
    await post('/v1/delivery/carriers/dropp', { active: true });
    await post('/v1/delivery/carriers/posturinn', { active: true });
  });

  test('pickup points by postcode, by name and nearest, in a fixed order', async () => {
    expect(ids(await get('/v1/delivery/pickup-points?postcode=101'))).toEqual([
      'dropp:d-grandi',
      'dropp:d-hallveigarstigur',
      'posturinn:pb-101-austurstraeti',
    ]);
    expect(ids(await get('/v1/delivery/pickup-points?carrier=posturinn&postcode=600'))).toEqual([
      'posturinn:pb-600-hof',
    ]);
    // By name, without regard to case or accents.
    expect(ids(await get('/v1/delivery/pickup-points?q=SMARALIND'))).toEqual(['dropp:d-smaralind']);
    expect(ids(await get('/v1/delivery/pickup-points?q=pakkaport'))).toEqual([
      'posturinn:pp-108-skeifan',
      'posturinn:pp-200-hamraborg',
    ]);
    // Nearest to Hlemmur first, with the distance in metres.
    const near = await get('/v1/delivery/pickup-points?latitude=64.1432&longitude=-21.9153&limit=4');
    expect(ids(near)).toEqual([
      'posturinn:pb-105-hlemmur',
      'dropp:d-hallveigarstigur',
      'posturinn:pb-101-austurstraeti',
      'dropp:d-kringlan',
    ]);
    const distances = near.body.data.map((p: { distance_m: number }) => p.distance_m);
    expect(distances[0]).toBe(0);
    expect([...distances].sort((a, b) => a - b)).toEqual(distances);
    expect(near.body.data[1]).toMatchObject({
      object: 'pickup_point',
      carrier: 'dropp',
      kind: 'location',
      name: 'Dropp Hallveigarstígur',
      address: { line1: 'Hallveigarstígur 1', postal_code: '101', city: 'Reykjavík' },
      latitude: 64.1455,
      longitude: -21.9325,
      opening_hours: ['Mán–fös 10:00–18:00', 'Lau 11:00–16:00'],
    });
    const half = await get('/v1/delivery/pickup-points?latitude=64.1');
    expect(half.status).toBe(400);
    expect(half.body.error.param).toBe('longitude');
  });

  /** A paid session with a pickup point chosen, and its delivery. */
  async function paidDelivery(point: string) {
    const s = await post('/v1/checkout/sessions', {
      amount: 4990,
      pickup_point: point,
      customer_name: 'Jóna Jónsdóttir',
      customer_email: 'jona@example.is',
    });
    expect(s.status).toBe(200);
    expect(s.body.pickup_point).toMatchObject({ id: point });
    // Nothing is booked before payment, and the carrier has no parcel.
    expect((await get(`/v1/deliveries?checkout_session=${s.body.id}`)).body.data).toEqual([]);
    const paid = await post(`/v1/test_helpers/checkout/sessions/${s.body.id}/complete`);
    expect(paid.body.payment_status).toBe('paid');
    const [d] = (await get(`/v1/deliveries?checkout_session=${s.body.id}`)).body.data;
    return d as { id: string; status: string; tracking_number: string; carrier_order_id: string };
  }

  test('booked on paid; each status change emits its event once; collected cannot be canceled', async () => {
    const d = await paidDelivery('dropp:d-kringlan');
    expect(d).toMatchObject({
      object: 'delivery',
      carrier: 'dropp',
      status: 'booked',
      tracking_number: d.id,
      recipient: { name: 'Jóna Jónsdóttir', email: 'jona@example.is' },
      pickup_point: { id: 'dropp:d-kringlan', name: 'Dropp Kringlan' },
    });
    expect(await eventsOf('delivery.booked', d.id)).toHaveLength(1);
    const steps = [
      ['in_transit', 'delivery.shipped'],
      ['ready_for_pickup', 'delivery.arrived'],
      ['collected', 'delivery.collected'],
    ] as const;
    for (const [status, event] of steps) {
      const moved = await post(`/v1/test_helpers/deliveries/${d.id}/advance`);
      expect(moved.body.status).toBe(status);
      const emitted = await eventsOf(event, d.id);
      expect(emitted).toHaveLength(1);
      expect(emitted[0]!.data.status).toBe(status);
    }
    const late = await post(`/v1/deliveries/${d.id}/cancel`);
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('delivery_not_cancelable');
    expect((await post(`/v1/test_helpers/deliveries/${d.id}/advance`)).status).toBe(409);
  });

  test('a delivery is canceled before shipment, at the carrier too', async () => {
    const d = await paidDelivery('posturinn:pp-108-skeifan');
    expect(d.status).toBe('booked');
    const canceled = await post(`/v1/deliveries/${d.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ status: 'canceled', canceled_at: expect.any(Number) });
    expect(await eventsOf('delivery.canceled', d.id)).toHaveLength(1);
    const atCarrier = await fetch(`${stack.carriers.url}/wscm/v1/shipments/${d.carrier_order_id}`, {
      headers: { 'x-api-key': 'k' },
    });
    expect(((await atCarrier.json()) as { status: string }).status).toBe('CANCELLED');
    expect((await post(`/v1/deliveries/${d.id}/cancel`)).status).toBe(409);
    expect((await post(`/v1/test_helpers/deliveries/${d.id}/advance`)).status).toBe(409);
  });

  test('a parcel not collected goes back: delivery.returned', async () => {
    const d = await paidDelivery('posturinn:pb-105-hlemmur');
    expect((await post(`/v1/test_helpers/deliveries/${d.id}/advance`)).body.status).toBe('in_transit');
    const back = await post(`/v1/test_helpers/deliveries/${d.id}/advance`, { to: 'returned' });
    expect(back.body.status).toBe('returned');
    expect(await eventsOf('delivery.returned', d.id)).toHaveLength(1);
  });

  test('a session paid by concurrent requests books one delivery, once', async () => {
    for (let i = 0; i < 5; i++) {
      const s = await post('/v1/checkout/sessions', { amount: 1500, pickup_point: 'dropp:d-grandi' });
      const tries = await Promise.all(
        Array.from({ length: 4 }, () => post(`/v1/test_helpers/checkout/sessions/${s.body.id}/complete`)),
      );
      expect(tries.filter((t) => t.status === 200)).toHaveLength(1);
      const list = (await get(`/v1/deliveries?checkout_session=${s.body.id}`)).body.data;
      expect(list).toHaveLength(1);
      expect(list[0].status).toBe('booked');
      expect(await eventsOf('delivery.booked', list[0].id)).toHaveLength(1);
    }
  });

  test('a session asking for a pickup step cannot be paid without a point', async () => {
    const s = await post('/v1/checkout/sessions', { amount: 1500, pickup_point_carriers: ['dropp'] });
    expect(s.status).toBe(200);
    expect(s.body.pickup_point).toBeNull();
    const refused = await post(`/v1/test_helpers/checkout/sessions/${s.body.id}/complete`);
    expect(refused.status).toBe(400);
    expect(refused.body.error.param).toBe('fields.pickup_point');
    const wrong = await post('/v1/checkout/sessions', { amount: 1500, pickup_point: 'dropp:nowhere' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({ code: 'resource_missing', param: 'pickup_point' });
  });
});
