import { startTestStack, type TestStack } from '../helpers/stack';
import { createRskCompanyRegistry } from '../../adapters/registry/rsk-company-registry';
import { startRskRegistryPeer, type RskRegistryPeer } from '../../simulators/registry/rsk-registry-peer';

/**
 * Issue 24, done-means 4: the registry adapter against a local peer (decision 0166). Live-mode
 * `POST /v1/merchant/registry-lookup` asks Skatturinn's company registry interface through the
 * adapter; test mode keeps its fixture behind the same interface.
 */

jest.setTimeout(60_000);

const XROAD_CLIENT = 'IS/COM/4602070880/skil-registry';
let peer: RskRegistryPeer;
let stack: TestStack;

beforeAll(async () => {
  peer = await startRskRegistryPeer({
    xroadClient: XROAD_CLIENT,
    companies: [
      {
        kennitala: '5902697199',
        nafn: 'Hönnunarhúsið ehf.',
        skrad: '1969-02-19',
        stada: 'Virk',
        rekstrarform: [{ tegund: 'ehf', heiti: 'Einkahlutafélag' }],
        heimilisfang: [
          {
            gerd: 'Póstfang',
            heimilisfang: 'Pósthólf 100',
            postnumer: '121',
            stadur: 'Reykjavík',
            sveitarfelaganumer: '0000',
            land: 'IS',
            er_postholf: 'J',
            byggd: 'Reykjavík',
          },
          {
            gerd: 'Lögheimili',
            heimilisfang: 'Laugavegur 26',
            postnumer: '101',
            stadur: 'Reykjavík',
            sveitarfelaganumer: '0000',
            land: 'Ísland',
            er_postholf: 'N',
            byggd: 'Reykjavík',
          },
        ],
      },
    ],
  });
  stack = await startTestStack({
    worker: false,
    liveRegistry: createRskCompanyRegistry({ baseUrl: peer.url, xroadClient: XROAD_CLIENT }),
  });
});
afterAll(async () => {
  await stack?.stop();
  await peer?.stop();
});

const lookup = (key: string, kennitala: unknown) =>
  stack.api(key, '/v1/merchant/registry-lookup', { method: 'POST', json: { kennitala } });

test('live: the company from the registry, its legal domicile as the legal address', async () => {
  const m = await stack.merchant();
  const res = await lookup(m.liveKey, '5902697199');
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    object: 'registry_company',
    kennitala: '5902697199',
    name: 'Hönnunarhúsið ehf.',
    legal_address: { street: 'Laugavegur 26', city: 'Reykjavík', postalCode: '101', country: 'IS' },
    source: 'skatturinn_fyrirtaekjaskra',
  });
  expect(peer.requests.at(-1)).toEqual({ path: '/5902697199', xroadClient: XROAD_CLIENT });
  expect(peer.violations).toEqual([]);
});

test('live: unknown is 404 naming kennitala; malformed never reaches the registry; test mode keeps its fixture', async () => {
  const m = await stack.merchant();
  const unknown = await lookup(m.liveKey, '4710080280');
  expect(unknown.status).toBe(404);
  expect(unknown.body.error).toMatchObject({ code: 'resource_missing', param: 'kennitala' });

  const asked = peer.requests.length;
  const bad = await lookup(m.liveKey, '12345');
  expect(bad.status).toBe(400);
  expect(bad.body.error.param).toBe('kennitala');
  expect(peer.requests.length).toBe(asked);

  // Test mode: the fixture, not the registry.
  const test = await lookup(m.testKey, '4710080280');
  expect(test.status).toBe(200);
  expect(test.body).toMatchObject({ name: 'Landsbankinn hf.', source: 'test_registry' });
  expect((await lookup(m.testKey, '5902697199')).status).toBe(404);
  expect(peer.requests.length).toBe(asked);
  expect(peer.violations).toEqual([]);
});

test('live: a failing or unreachable registry is 503 registry_unavailable, never a 500 or a false 404', async () => {
  const m = await stack.merchant();
  peer.failWith(500);
  try {
    const res = await lookup(m.liveKey, '5902697199');
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('registry_unavailable');
  } finally {
    peer.failWith(null);
  }
  const gone = createRskCompanyRegistry({ baseUrl: 'http://127.0.0.1:1', timeoutMs: 2_000 });
  await expect(gone.lookup('5902697199')).rejects.toThrow();
});
