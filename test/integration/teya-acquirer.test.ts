import { startTeyaPeer, type TeyaPeer } from '../../simulators/teya/teya-peer';
import { createTeyaCardAcquirer, declineCodeOf } from '../../adapters/acquirers/teya/teya-card-acquirer';
import {
  AcquirerCardError,
  AcquirerInvalidRequestError,
  AcquirerSignatureError,
  type CardAcquirer,
} from '../../adapters/acquirers/card-acquirer';

/**
 * Teya's adapter against the simulated Teya (decisions 0163, 0164), operation by operation: what
 * each `CardAcquirer` call sends, how Teya's answers map back, idempotent retries, the token's
 * reuse and renewal, and the operations Teya's public API does not offer. The peer's schema checks
 * are shown to bite: a request off the reference is refused and recorded.
 */

const STORE = 'f47ac10b-58cc-4372-a567-0e02b2c3d479';
let peer: TeyaPeer;
let teya: CardAcquirer;

beforeAll(async () => {
  peer = await startTeyaPeer({
    clientId: 'id-1',
    clientSecret: 'secret-1',
    storeId: STORE,
    tokenTtlSeconds: 120,
  });
  teya = createTeyaCardAcquirer({
    apiUrl: peer.apiUrl,
    tokenUrl: peer.tokenUrl,
    clientId: 'id-1',
    clientSecret: 'secret-1',
    storeId: STORE,
    backoffMs: () => 1,
  });
});
afterAll(async () => {
  await peer?.stop();
});
afterEach(() => {
  expect(peer.violations).toEqual([]);
});

const card = (number: string) => ({ number, exp_month: 3, exp_year: 2031, cvc: '123', livemode: true });
const authorize = (token: string, amount: number, key: string) =>
  teya.authorize({
    token,
    amount,
    currency: 'ISK',
    merchant: 'acct_1',
    return_url: 'https://skil.example/checkout/cs_1/return',
    idempotency_key: key,
  });

test('tokenize, authorize, capture and refund; one bearer token serves them all', async () => {
  const tokensBefore = peer.tokensIssued();
  const token = await teya.tokenize(card('4242424242424242'));
  expect(token).toMatchObject({ brand: 'visa', last4: '4242', exp_month: 3, exp_year: 2031, wallet: null });
  expect(token.token).toMatch(/^teya_tok_[0-9a-f-]{36}$/);
  const verification = peer.exchanges.at(-1)!.request as Record<string, any>;
  expect(verification).toMatchObject({
    type: 'ACCOUNT_VERIFICATION',
    amount: { currency: 'ISK', value: 0 },
    payment_method: { type: 'CARD', card: { expiry_month: '03', expiry_year: '2031' } },
    store_payment_method: true,
  });

  const auth = await authorize(token.token, 12_345, 'pi_abc:auth:1');
  expect(auth).toMatchObject({ status: 'authorized', amount: 12_345, decline_code: null });
  expect(auth.id).toMatch(/^teya_tr_/);
  // Retried with the same business key: Teya replays its answer, no second hold.
  expect(await authorize(token.token, 12_345, 'pi_abc:auth:1')).toEqual(auth);
  const keys = peer.exchanges
    .filter((e) => e.operation === 'process_online_transaction')
    .map((e) => e.idempotencyKey);
  expect(keys.at(-1)).toBe(keys.at(-2));
  expect(keys.at(-1)!.length).toBeLessThanOrEqual(64);

  expect((await teya.retrieve(auth.id)).status).toBe('authorized');
  const captured = await teya.capture({
    authorization: auth.id,
    amount: 12_345,
    idempotency_key: 'pi_abc:capture',
  });
  expect(captured).toMatchObject({ status: 'captured', amount_captured: 12_345, fee: null });
  // The same capture again (a crash after Teya took it): the same answer, not a second capture.
  await expect(
    teya.capture({ authorization: auth.id, amount: 12_345, idempotency_key: 'pi_abc:capture' }),
  ).resolves.toMatchObject({ status: 'captured' });
  // A different key for a second capture is Teya's 409: one capture per pre-authorisation.
  await expect(
    teya.capture({ authorization: auth.id, amount: 1, idempotency_key: 'pi_abc:capture:again' }),
  ).rejects.toBeInstanceOf(Error);

  const refund = await teya.refund({
    authorization: auth.id,
    amount: 2_345,
    idempotency_key: 'pi_abc:refund:re_customer_key_that_is_long_enough_to_pass_sixty_four_characters_easily',
  });
  expect(refund).toMatchObject({ authorization: auth.id, amount: 2_345 });
  await expect(
    teya.refund({ authorization: auth.id, amount: 10_001, idempotency_key: 'pi_abc:refund:too_much' }),
  ).rejects.toBeInstanceOf(AcquirerInvalidRequestError);
  expect(peer.tokensIssued() - tokensBefore).toBe(1);
});

test('declines map to Skil decline codes; a bad number is refused at tokenizing', async () => {
  const poor = await teya.tokenize(card('4000000000009995'));
  expect(await authorize(poor.token, 500, 'pi_poor:auth:1')).toMatchObject({
    status: 'declined',
    decline_code: 'insufficient_funds',
  });
  const declined = await teya.tokenize(card('4000000000000002'));
  expect(await authorize(declined.token, 500, 'pi_dec:auth:1')).toMatchObject({
    status: 'declined',
    decline_code: 'generic_decline',
  });
  await expect(teya.tokenize(card('4000000000000069'))).rejects.toMatchObject({ code: 'expired_card' });
  await expect(teya.tokenize(card('4242424242424241'))).rejects.toBeInstanceOf(AcquirerCardError);
  expect(declineCodeOf('INCORRECT_CARD_AUTHENTICATION')).toBe('authentication_failed');
  expect(declineCodeOf(undefined)).toBe('generic_decline');
});

test('a hold is voided by a reversal; a 3-D Secure challenge is declined until Skil can show it', async () => {
  const token = await teya.tokenize(card('4242424242424242'));
  const auth = await authorize(token.token, 700, 'pi_void:auth:1');
  expect(await teya.void(auth.id, 'pi_void:void')).toMatchObject({ status: 'voided', amount: 700 });
  const reversal = peer.exchanges.at(-1)!;
  expect(reversal).toMatchObject({ operation: 'reversal', status: 200, idempotencyKey: null });

  const challenged = await teya.tokenize(card('4000000000003220'));
  expect(await authorize(challenged.token, 900, 'pi_3ds:auth:1')).toMatchObject({
    status: 'declined',
    decline_code: 'authentication_failed',
  });
});

test("what Teya's public API does not offer is a clear not_supported", async () => {
  await expect(teya.acceptDispute('dp_1', 'k')).rejects.toMatchObject({ code: 'not_supported' });
  await expect(
    teya.submitDisputeEvidence({ dispute: 'dp_1', evidence: { text: 'x' }, idempotency_key: 'k' }),
  ).rejects.toBeInstanceOf(AcquirerInvalidRequestError);
  expect(() => teya.parseNotification(Buffer.from('{}'), 'sig')).toThrow(AcquirerSignatureError);
  await expect(teya.tokenize({ ...card('4242424242424242'), wallet: 'apple_pay' })).rejects.toMatchObject({
    code: 'wallet_data_required',
  });
});

test('the peer holds requests to the reference: an off-schema request is refused and recorded', async () => {
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: 'id-1',
    client_secret: 'secret-1',
    scope: 'transactions/online/create',
  });
  const token = (await (
    await fetch(peer.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    })
  ).json()) as { access_token: string };
  const res = await fetch(`${peer.apiUrl}/v3/transactions/online`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token.access_token}`,
      'content-type': 'application/json',
      'idempotency-key': 'k1',
    },
    // `amount` as a bare number and a field the reference does not have.
    body: JSON.stringify({
      amount: 100,
      initiator: 'CUSTOMER',
      type: 'SALE',
      store_id: STORE,
      payment_method: { type: 'CARD' },
      currency: 'ISK',
    }),
  });
  expect(res.status).toBe(400);
  const body = (await res.json()) as { code: string; invalid_params: { field: string }[] };
  expect(body.code).toBe('BAD_REQUEST');
  expect(body.invalid_params.map((p: { field: string }) => p.field)).toEqual(
    expect.arrayContaining(['amount', 'payment_method.card', '(body)']),
  );
  expect(peer.violations).toHaveLength(1);
  expect(peer.violations[0]).toMatch(/^process_online_transaction request/);
  // A token without a scope cannot capture.
  const capture = await fetch(`${peer.apiUrl}/v1/transactions/tr_x/capture`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: 1 }),
  });
  expect(capture.status).toBe(403);
  peer.violations.length = 0;
});
