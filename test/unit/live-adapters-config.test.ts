import { loadConfig } from '../../stack/config';
import { cardAcquirerFromConfig } from '../../adapters/acquirers/http-card-acquirer';

/** The live acquirer's settings (decisions 0163, 0165): one set, from configuration only. */

const teya = {
  SIMULATED_ACQUIRER_URL: 'http://127.0.0.1:3020',
  TEYA_API_URL: 'https://api.teya.xyz',
  TEYA_CLIENT_ID: 'client',
  TEYA_CLIENT_SECRET: 'secret',
  TEYA_STORE_ID: 'f47ac10b-58cc-4372-a567-0e02b2c3d479',
};

test('without TEYA_* the process has no live acquirer; with them, live cards and the wallets named', () => {
  expect(
    cardAcquirerFromConfig(loadConfig({ SIMULATED_ACQUIRER_URL: teya.SIMULATED_ACQUIRER_URL })).client.live,
  ).toBeUndefined();
  const none = cardAcquirerFromConfig(loadConfig(teya));
  expect(none.client.live).toEqual({ wallets: [] });
  expect(none.origin).toBe('http://127.0.0.1:3020');
  const apple = cardAcquirerFromConfig(loadConfig({ ...teya, TEYA_WALLETS: 'apple_pay' }));
  expect(apple.client.live).toEqual({ wallets: ['apple_pay'] });
});

test('half a set, a store that is not a UUID, or a wallet Teya does not take is refused at start', () => {
  const { TEYA_CLIENT_SECRET: _secret, ...half } = teya;
  expect(() => loadConfig(half)).toThrow(/TEYA_CLIENT_SECRET/);
  expect(() => loadConfig({ ...teya, TEYA_STORE_ID: 'store-1' })).toThrow(/TEYA_STORE_ID/);
  expect(() => loadConfig({ ...teya, TEYA_WALLETS: 'apple_pay,google_pay' })).toThrow(/google_pay/);
});
