import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { claimAccount, claimIdOf, type CreateClaimDetails } from '../../adapters/banks/claims-api';
import {
  BankAuthenticationError,
  BankInvalidRequestError,
  BankNetworkError,
  BankNotFoundError,
  ClaimRejectedError,
} from '../../adapters/banks/claims-errors';
import { IobwsClaimsClient, idempotencyKeyFor, waitForBatch } from '../../adapters/banks/iobws-claims-client';
import { loadIobwsValidator } from '../helpers/iobws-openapi';
import { createTestPki, startValidatedBank, type ValidatedBank } from '../helpers/simulated-bank';
import { REFUSED_PAYOR_KENNITALA } from '../../simulators/bank/claims-rules';

// The real IOBWS client against the simulated bank over HTTP (and mTLS), with every /v1 request and
// response checked against IOBWS-Claims3.1.yaml after each test.

const CLAIMANT = '5510730339';
const PAYOR = '1201603389';
const TODAY = new Date('2026-11-21T10:00:00Z');
let seq = 0;

function claim(over: Partial<CreateClaimDetails> = {}): CreateClaimDetails {
  seq++;
  return {
    claimKey: { claimantId: CLAIMANT, account: claimAccount('0001', seq), dueDate: '2026-12-01' },
    payorId: PAYOR,
    templateCode: '001',
    amount: 10_000,
    finalDueDate: '2026-12-15',
    paymentFee: { printingFee: 390, paperlessFee: 250 },
    defaultInterest: {
      referenceDate: 'DueDate',
      baseAmountType: 'Amount',
      baseTimeType: '360',
      percentage: 18,
    },
    ...over,
  };
}

let vb: ValidatedBank;
let client: IobwsClaimsClient;
let checkRequests = true;

beforeAll(async () => {
  vb = await startValidatedBank({ now: () => TODAY });
  client = vb.client();
});

afterAll(async () => {
  client.close();
  await vb.bank.stop();
});

afterEach(() => {
  const problems = vb.problems({ requests: checkRequests });
  vb.exchanges.length = 0;
  checkRequests = true;
  expect(problems).toEqual([]);
});

test('creates, reads, alters, cancels and recreates one claim', async () => {
  const c = claim();
  const created = await client.createClaim(c, { idempotencyIdentity: `t1:create` });
  expect(created).toEqual({
    claimKey: c.claimKey,
    claimId: claimIdOf(c.claimKey),
    directPaymentClaim: false,
  });
  const id = created.claimId!;

  const read = await client.getClaim(id);
  // Before the due date: 10 000 + 250 paperless notice fee.
  expect(read).toMatchObject({
    claimStatus: 'Unpaid',
    amount: 10_000,
    totalAmountDue: 10_250,
    expirationDate: '2030-12-01',
  });

  await client.alterClaim(id, { amount: 12_000, reference: 'INV-7' }, { idempotencyIdentity: 't1:alter' });
  expect(await client.getClaim(id)).toMatchObject({
    amount: 12_000,
    reference: 'INV-7',
    totalAmountDue: 12_250,
  });

  await client.cancelClaim(id, { idempotencyIdentity: 't1:cancel' });
  expect((await client.getClaim(id)).claimStatus).toBe('Cancelled');
  await expect(client.cancelClaim(id, { idempotencyIdentity: 't1:cancel-again' })).rejects.toMatchObject({
    resultCode: 'CLAIM_IS_CANCELLED',
    retryable: false,
  });

  await client.alterClaim(id, { claimStatus: 'Unpaid' }, { idempotencyIdentity: 't1:recreate' });
  expect((await client.getClaim(id)).claimStatus).toBe('Unpaid');
});

test('an existing claim key is CLAIM_EXISTS; the same idempotency identity replays the first answer', async () => {
  const c = claim();
  const first = await client.createClaim(c, { idempotencyIdentity: 't2:create' });
  const replay = await client.createClaim(c, { idempotencyIdentity: 't2:create' });
  expect(replay).toEqual(first);
  const err = await client.createClaim(c, { idempotencyIdentity: 't2:other' }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ClaimRejectedError);
  expect(err).toMatchObject({ resultCode: 'CLAIM_EXISTS', retryable: false, status: 400 });
  const replayed = vb.exchanges.filter((x) => x.responseHeaders['idempotent-replayed'] === 'true');
  expect(replayed).toHaveLength(1);
  expect(replayed[0]!.requestHeaders['x-idempotency-key']).toBe(idempotencyKeyFor('t2:create'));
});

test('a batch is created in the background, polled, reports each claim, and replays on retry', async () => {
  const existing = claim();
  await client.createClaim(existing, { idempotencyIdentity: 't3:existing' });
  const fresh = Array.from({ length: 50 }, () => claim());
  const bad = claim({ payorId: '9999999999' });
  const unknownPayor = claim({ payorId: REFUSED_PAYOR_KENNITALA });
  const list = [...fresh, existing, bad, unknownPayor];

  const accepted = await client.createClaimsBatch(list, { idempotencyIdentity: 'claim-batch/test/t3' });
  expect(accepted).toMatchObject({ actionType: 'create', pending: 53, success: 0 });
  const { status } = await waitForBatch(client, accepted.batchId!, { intervalMs: 5 });
  expect(status).toMatchObject({ success: 50, failed: 3, pending: 0 });
  expect(status.actions!.successes!.map((s) => s.claimId)).toEqual(fresh.map((c) => claimIdOf(c.claimKey)));
  expect(status.actions!.errors).toEqual([
    expect.objectContaining({ claimId: claimIdOf(existing.claimKey), resultCode: 'CLAIM_EXISTS' }),
    expect.objectContaining({ claimId: claimIdOf(bad.claimKey), resultCode: 'CLAIM_OTHERS' }),
    // The documented test payer the bank refuses: a valid kennitala, not in the register.
    expect.objectContaining({
      claimId: claimIdOf(unknownPayor.claimKey),
      resultCode: 'CLAIM_OTHERS',
      resultMessage: 'payorId is not in the national register',
    }),
  ]);

  // A retried batch call (same business identity) gets the same batch, and creates nothing twice.
  const again = await client.createClaimsBatch(list, { idempotencyIdentity: 'claim-batch/test/t3' });
  expect(again.batchId).toBe(accepted.batchId);
  expect((await client.getBatch(accepted.batchId!)).success).toBe(50);

  const altered = await client.alterClaimsBatch(
    [
      { claimKey: fresh[0]!.claimKey, amount: 11_000 },
      { claimKey: fresh[1]!.claimKey, claimStatus: 'Cancelled' },
      { claimKey: { ...fresh[2]!.claimKey, dueDate: '2027-01-01' }, amount: 1 },
    ],
    { idempotencyIdentity: 'claim-batch/test/t3:alter' },
  );
  const done = (await waitForBatch(client, altered.batchId!, { intervalMs: 5 })).status;
  expect(done).toMatchObject({ actionType: 'alter', success: 2, failed: 1 });
  expect(done.actions!.errors![0]!.resultCode).toBe('CLAIM_NOT_FOUND');
  expect((await client.getClaim(claimIdOf(fresh[0]!.claimKey))).amount).toBe(11_000);
  expect((await client.getClaim(claimIdOf(fresh[1]!.claimKey))).claimStatus).toBe('Cancelled');
});

test('payments, partial then complete, appear in the claim-transactions endpoints', async () => {
  const c = claim({ isPartialPaymentAllowed: true, reference: 'ORDER-1', billNumber: '1234567' });
  const { claimId } = await client.createClaim(c, { idempotencyIdentity: 't4:create' });
  const partial = vb.bank.ledger.pay(claimId!, { amount: 4_250 });
  // Costs first (250 notice fee), the rest reduces the principal: 4 000.
  expect(partial).toMatchObject({ paymentType: 'Partial', amount: 4_000, noticeChargeAmountPaid: 250 });
  expect(await client.getClaim(claimId!)).toMatchObject({ isPartiallyPaid: true, totalAmountDue: 6_000 });
  vb.bank.ledger.pay(claimId!);

  const mine = await client.getClaimTransactions(claimId!);
  expect(mine.items.map((t) => [t.paymentType, t.amount, t.totalAmountPaid])).toEqual([
    ['Partial', 4_000, 4_250],
    ['Complete', 6_000, 6_000],
  ]);
  // Paid on Saturday 21 Nov 2026: booked on Monday 23 Nov, value date the day of payment.
  expect(mine.items[0]).toMatchObject({
    valueDate: '2026-11-21',
    bookingDate: '2026-11-23',
    reference: 'ORDER-1',
  });

  const all = await client.listClaimTransactions({
    claimantId: CLAIMANT,
    dateFrom: '2026-11-23',
    dateTo: '2026-11-23',
    itemsPerPage: 1,
    page: 2,
  });
  expect(all).toMatchObject({ page: 2, perPage: 1, totalItems: 2, totalPages: 2 });
  expect(all.items[0]!.paymentType).toBe('Complete');
  expect((await client.getClaim(claimId!)).claimStatus).toBe('Paid');
  await expect(client.cancelClaim(claimId!, { idempotencyIdentity: 't4:cancel' })).rejects.toMatchObject({
    resultCode: 'CLAIM_IS_PAID',
  });
});

test('unknown claims, refused credentials and malformed requests are typed, and the document agrees', async () => {
  await expect(client.getClaim(`${CLAIMANT}000166999999+20261201`)).rejects.toBeInstanceOf(BankNotFoundError);

  const wrong = vb.client({ clientSecret: 'nope' });
  await expect(wrong.getBatch(randomUUID())).rejects.toBeInstanceOf(BankAuthenticationError);
  wrong.close();

  // A raw call without X-Request-ID: the bank refuses it, and the validator flags the request too.
  const token = await fetch(`${vb.bank.url}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&client_id=skil-test&client_secret=simulated-bank-test-secret',
  }).then((r) => r.json() as Promise<{ access_token: string }>);
  const res = await fetch(`${vb.bank.url}/v1/claims`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' },
    body: JSON.stringify(claim()),
  });
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ code: 'FORMAT_ERROR' });
  const validator = loadIobwsValidator();
  expect(validator.request(vb.exchanges.at(-1)!)).toEqual(['header parameter X-Request-ID is required']);
  expect(validator.response(vb.exchanges.at(-1)!)).toEqual([]);
  checkRequests = false;

  const broken = await fetch(`${vb.bank.url}/v1/batches`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token.access_token}`,
      'content-type': 'application/json',
      'x-request-id': randomUUID(),
    },
    body: '{"actionType": "create", ',
  });
  expect(broken.status).toBe(400);
  expect(await broken.json()).toMatchObject({ code: 'FORMAT_ERROR' });

  await expect(
    client.createClaim(claim({ templateCode: 'toolong' }), { idempotencyIdentity: 't5:bad' }),
  ).rejects.toBeInstanceOf(ClaimRejectedError);
});

test('retries 5xx, 429 and an expired token with the same request and idempotency keys; not 400', async () => {
  const seen: { path: string; requestId?: string; key?: string }[] = [];
  const script: [number, unknown, Record<string, string>?][] = [
    [503, ''],
    [429, '', { 'retry-after': '0' }],
    [401, { type: 'urn:x', code: 'TOKEN_EXPIRED' }],
    [201, { batchId: '00000000-0000-4000-8000-000000000001', pending: 1 }],
    [400, { type: 'urn:x', code: 'FORMAT_ERROR', detail: 'bad' }],
  ];
  const fake = http.createServer((req, res) => {
    if (req.url === '/oauth2/token') {
      seen.push({ path: 'token' });
      res.setHeader('content-type', 'application/json');
      return void res.end(JSON.stringify({ access_token: randomUUID(), expires_in: 3600 }));
    }
    seen.push({
      path: req.url!,
      requestId: req.headers['x-request-id'] as string,
      key: req.headers['x-idempotency-key'] as string,
    });
    const [status, body, headers] = script.shift()!;
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  });
  await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  const flaky = new IobwsClaimsClient({ baseUrl: url, clientId: 'x', clientSecret: 'y', baseDelayMs: 5 });
  try {
    const batch = await flaky.createClaimsBatch([claim()], { idempotencyIdentity: 'claim-batch/test/flaky' });
    expect(batch.batchId).toBe('00000000-0000-4000-8000-000000000001');
    const calls = seen.filter((s) => s.path !== 'token');
    expect(calls).toHaveLength(4);
    expect(new Set(calls.map((c) => c.requestId)).size).toBe(1);
    expect(new Set(calls.map((c) => c.key))).toEqual(new Set([idempotencyKeyFor('claim-batch/test/flaky')]));
    expect(seen.filter((s) => s.path === 'token')).toHaveLength(2); // refreshed once after TOKEN_EXPIRED

    await expect(flaky.getBatch('00000000-0000-4000-8000-000000000001')).rejects.toBeInstanceOf(
      BankInvalidRequestError,
    );
    expect(seen.filter((s) => s.path !== 'token')).toHaveLength(5); // 400: one attempt only
  } finally {
    flaky.close();
    await new Promise((r) => fake.close(r));
  }
  const down = new IobwsClaimsClient({
    baseUrl: url,
    clientId: 'x',
    clientSecret: 'y',
    baseDelayMs: 1,
    maxAttempts: 2,
  });
  await expect(down.getBatch(randomUUID())).rejects.toBeInstanceOf(BankNetworkError);
  down.close();
});

test('over mutual TLS: the client certificate authenticates the client, no secret', async () => {
  const pki = createTestPki('skil-mtls');
  const tlsBank = await startValidatedBank({
    now: () => TODAY,
    clients: [{ clientId: 'skil-mtls' }],
    tls: {
      cert: readFileSync(pki.serverCert),
      key: readFileSync(pki.serverKey),
      ca: readFileSync(pki.caCert),
      requestCert: true,
    },
  });
  const mtls = new IobwsClaimsClient({
    baseUrl: tlsBank.bank.url,
    clientId: 'skil-mtls',
    tls: { certPath: pki.clientCert, keyPath: pki.clientKey, caPath: pki.caCert },
  });
  const noCert = new IobwsClaimsClient({
    baseUrl: tlsBank.bank.url,
    clientId: 'skil-mtls',
    maxAttempts: 1,
  });
  try {
    expect(tlsBank.bank.url).toMatch(/^https:/);
    const c = claim();
    const { claimId } = await mtls.createClaim(c, { idempotencyIdentity: 't7:create' });
    expect((await mtls.getClaim(claimId!)).payorId).toBe(PAYOR);
    await expect(noCert.getClaim(claimId!)).rejects.toBeInstanceOf(BankNetworkError);
    expect(tlsBank.exchanges).toHaveLength(2);
    expect(tlsBank.problems()).toEqual([]);
  } finally {
    mtls.close();
    noCert.close();
    await tlsBank.bank.stop();
    rmSync(pki.dir, { recursive: true, force: true });
  }
});

test('with a data directory the ledger survives a restart (npm start)', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'simbank-'));
  try {
    const first = await startValidatedBank({ now: () => TODAY, dataDir });
    const c1 = first.client();
    const { claimId } = await c1.createClaim(claim(), { idempotencyIdentity: 't8:create' });
    first.bank.ledger.pay(claimId!);
    c1.close();
    await first.bank.stop();

    const second = await startValidatedBank({ now: () => TODAY, dataDir });
    const c2 = second.client();
    expect((await c2.getClaim(claimId!)).claimStatus).toBe('Paid');
    expect((await c2.getClaimTransactions(claimId!)).items).toHaveLength(1);
    c2.close();
    await second.bank.stop();
    expect([...first.problems(), ...second.problems()]).toEqual([]);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
