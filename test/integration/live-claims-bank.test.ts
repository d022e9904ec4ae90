/**
 * The live environment's claims bank (decision 0177), with certificates made here: the simulated
 * bank serves IOBWS over HTTPS, asks for a client certificate signed by the test CA and checks the
 * OAuth2 token on every call. The real API process is configured for it only by its environment
 * (BANK_CLAIMS_LIVE_*), as an operator would; the worker's client is built from the same variables
 * by the same function. A live krafa created through the API is issued over mutual TLS with a
 * valid token. Without the client certificate, with one from another CA or with a wrong secret the
 * bank refuses, the API answers 503 `bank_unavailable`, and nothing is stored half-way.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BankAuthenticationError, BankNetworkError } from '../../adapters/banks/claims-errors';
import { claimsBanksFromConfig } from '../../stack/claims-bank-from-config';
import { loadConfig } from '../../stack/config';
import { claimBatchWorkflowId } from '../../workflows/contract';
import { randomBase62 } from '../../domain/ids';
import { nextBankingDay } from '../../domain/banking-days';
import {
  createTestPki,
  startValidatedBank,
  type TestPki,
  type ValidatedBank,
} from '../helpers/simulated-bank';
import { startTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { spawnApi, type ApiProcess } from '../helpers/api-process';
import type { IobwsClaimsClient } from '../../adapters/banks/iobws-claims-client';
import { createOperator } from '../helpers/accounts';
import { until } from '../helpers/until';

const CLIENT_ID = 'skil-live';
const SECRET = 'live-bank-client-secret-of-this-test';
const PAYER = '1201603389';
const day = (n: number) => nextBankingDay(new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10));

let pki: TestPki;
/** A second CA and a client certificate it signed: a certificate the bank does not trust. */
let otherPki: TestPki;
let bank: ValidatedBank;
let stack: TestStack;
let merchant: TestMerchant;
let api: ApiProcess;
let noCertClient: IobwsClaimsClient | undefined;
/** The live krafa the tests issue, amend and try to change. */
let claimId: string;
const bankClaims = () => bank.bank.ledger.unpaidFor(PAYER);

/** The environment of a process whose live claims bank is the simulated one over mTLS. */
const liveBankEnv = (over: Record<string, string | undefined> = {}): Record<string, string> => {
  const env: Record<string, string | undefined> = {
    BANK_CLAIMS_LIVE_URL: bank.bank.url,
    BANK_CLAIMS_LIVE_CLIENT_ID: CLIENT_ID,
    BANK_CLAIMS_LIVE_CLIENT_SECRET_PATH: path.join(pki.dir, 'client-secret'),
    BANK_CLAIMS_LIVE_TLS_CERT_PATH: pki.clientCert,
    BANK_CLAIMS_LIVE_TLS_KEY_PATH: pki.clientKey,
    BANK_CLAIMS_LIVE_TLS_CA_PATH: pki.caCert,
    ...over,
  };
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
};

const call = async (to: ApiProcess, p: string, json?: unknown) => {
  const res = await fetch(`${to.url}${p}`, {
    method: json === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${merchant.liveKey}`, 'content-type': 'application/json' },
    ...(json !== undefined && { body: JSON.stringify(json) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

const issue = (batch: string) =>
  stack.client.workflow.start('claimBatch', {
    workflowId: claimBatchWorkflowId(true, batch),
    taskQueue: stack.taskQueue,
    args: [{ livemode: true, batch, pollMs: 50 }],
  });

beforeAll(async () => {
  pki = createTestPki(CLIENT_ID);
  otherPki = createTestPki(CLIENT_ID);
  writeFileSync(path.join(pki.dir, 'client-secret'), `${SECRET}\n`);
  writeFileSync(path.join(pki.dir, 'wrong-secret'), 'not-the-secret\n');
  bank = await startValidatedBank({
    clients: [{ clientId: CLIENT_ID, clientSecret: SECRET }],
    tls: {
      cert: readFileSync(pki.serverCert),
      key: readFileSync(pki.serverKey),
      ca: readFileSync(pki.caCert),
      requestCert: true,
    },
  });
  // The in-process API is one configured without the client certificate; the worker is started per test.
  noCertClient = claimsBanksFromConfig(
    loadConfig(
      liveBankEnv({ BANK_CLAIMS_LIVE_TLS_CERT_PATH: undefined, BANK_CLAIMS_LIVE_TLS_KEY_PATH: undefined }),
    ),
  ).live!;
  stack = await startTestStack({ worker: false, liveClaimsApi: noCertClient });
  // A merchant approved for live claims: profile, submission, approval, the claims agreement.
  merchant = await stack.merchant('Lifandi kröfur ehf.');
  const profile = await stack.api(merchant.testKey, '/v1/merchant', {
    method: 'PATCH',
    json: {
      merchant_type: 'company',
      kennitala: '4710080280',
      phone: '+354 410 4000',
      business_description: 'Wool',
      bank_account: '0133-26-012345',
    },
  });
  expect(profile.status).toBe(200);
  expect((await stack.api(merchant.testKey, '/v1/merchant/submit', { method: 'POST' })).status).toBe(200);
  const operator = await createOperator(stack.knex);
  for (const step of ['approve', 'claims-agreement/sign'])
    expect(
      (
        await stack.api(operator.token, `/v1/operator/merchants/${merchant.id}/${step}`, {
          method: 'POST',
          json: {},
        })
      ).status,
    ).toBe(200);
  // The real API process, configured for the live bank only through its environment.
  api = await spawnApi(stack, liveBankEnv());
  await stack.startWorker({ liveClaimsApi: claimsBanksFromConfig(loadConfig(liveBankEnv())).live! });
}, 120_000);

afterAll(async () => {
  await api?.stop();
  await stack?.stop();
  noCertClient?.close();
  await bank?.bank.stop();
  for (const p of [pki, otherPki]) if (p) rmSync(p.dir, { recursive: true, force: true });
});

test('the configuration: a live bank needs https, a client id and a secret or a certificate; files are read at start-up', () => {
  expect(claimsBanksFromConfig(loadConfig({})).live).toBeUndefined();
  expect(() => loadConfig({ BANK_CLAIMS_LIVE_URL: 'http://bank.example' })).toThrow(
    /BANK_CLAIMS_LIVE_URL: must be https.*BANK_CLAIMS_LIVE_CLIENT_ID: is required.*BANK_CLAIMS_LIVE_CLIENT_SECRET: the live bank needs/,
  );
  expect(() => loadConfig(liveBankEnv({ BANK_CLAIMS_LIVE_TLS_KEY_PATH: undefined }))).toThrow(
    /BANK_CLAIMS_LIVE_TLS_KEY_PATH/,
  );
  expect(() =>
    claimsBanksFromConfig(
      loadConfig(liveBankEnv({ BANK_CLAIMS_LIVE_CLIENT_SECRET_PATH: path.join(pki.dir, 'missing') })),
    ),
  ).toThrow(/BANK_CLAIMS_LIVE_CLIENT_SECRET_PATH: cannot read .*missing \(ENOENT\)/);
  const banks = claimsBanksFromConfig(loadConfig(liveBankEnv()));
  expect(banks.live).toBeDefined();
  expect(banks.test).toBeUndefined();
  banks.live!.close();
});

test("the client as configured: a wrong secret is refused by the token endpoint, no certificate or another CA's by the TLS handshake", async () => {
  const wrongSecret = claimsBanksFromConfig(
    loadConfig(liveBankEnv({ BANK_CLAIMS_LIVE_CLIENT_SECRET_PATH: path.join(pki.dir, 'wrong-secret') })),
  ).live!;
  const otherCa = claimsBanksFromConfig(
    loadConfig(
      liveBankEnv({
        BANK_CLAIMS_LIVE_TLS_CERT_PATH: otherPki.clientCert,
        BANK_CLAIMS_LIVE_TLS_KEY_PATH: otherPki.clientKey,
      }),
    ),
  ).live!;
  const noCert = claimsBanksFromConfig(
    loadConfig(
      liveBankEnv({ BANK_CLAIMS_LIVE_TLS_CERT_PATH: undefined, BANK_CLAIMS_LIVE_TLS_KEY_PATH: undefined }),
    ),
  ).live!;
  try {
    await expect(wrongSecret.getBatch('00000000-0000-4000-8000-000000000000')).rejects.toBeInstanceOf(
      BankAuthenticationError,
    );
    await expect(noCert.getBatch('00000000-0000-4000-8000-000000000000')).rejects.toBeInstanceOf(
      BankNetworkError,
    );
    await expect(otherCa.getBatch('00000000-0000-4000-8000-000000000000')).rejects.toBeInstanceOf(
      BankNetworkError,
    );
  } finally {
    otherCa.close();
    wrongSecret.close();
    noCert.close();
  }
  // Neither reached the claims API.
  expect(bank.exchanges).toEqual([]);
}, 60_000);

test('a live krafa created through the API is issued over mutual TLS with a valid token, and amended', async () => {
  const created = await call(api, '/v1/claims', { payer_kennitala: PAYER, amount: 4_500, due_date: day(20) });
  expect(created.status).toBe(200);
  expect(created.body).toMatchObject({ livemode: true, status: 'pending', claim_key: null });
  claimId = created.body.id;

  const totals = await (await issue(randomBase62(8))).result();
  expect(totals).toMatchObject({ claims: 1, issued: 1, failed: 0 });
  const issued = await call(api, `/v1/claims/${claimId}`);
  expect(issued.body).toMatchObject({ status: 'issued', amount: 4_500 });
  expect(issued.body.claim_key).not.toBeNull();

  // Every call reached the bank over the client certificate with a bearer token it had granted.
  expect(bank.exchanges.map((x) => `${x.method} ${x.path.replace(/[0-9a-f-]{36}$/, ':id')}`)).toEqual(
    expect.arrayContaining(['POST /v1/batches', 'GET /v1/batches/:id']),
  );
  for (const x of bank.exchanges) {
    expect(x.clientCertificate).toBe(CLIENT_ID);
    expect(String(x.requestHeaders.authorization)).toMatch(/^Bearer \S+$/);
    expect(x.status).toBeLessThan(300);
  }
  expect(bankClaims().map((c) => c.claim.amount)).toEqual([4_500]);

  const amended = await call(api, `/v1/claims/${claimId}`, { amount: 5_000 });
  expect(amended.status).toBe(200);
  expect(amended.body.amount).toBe(5_000);
  expect(bank.exchanges.at(-1)).toMatchObject({ method: 'PATCH', clientCertificate: CLIENT_ID });
  expect(bankClaims().map((c) => c.claim.amount)).toEqual([5_000]);
  expect(bank.problems()).toEqual([]);
}, 60_000);

test('an API without the client certificate: the bank refuses the connection, amend and cancel answer 503 bank_unavailable, the krafa is unchanged', async () => {
  const seen = bank.exchanges.length;
  const amend = await stack.api(merchant.liveKey, `/v1/claims/${claimId}`, {
    method: 'POST',
    json: { amount: 9_000 },
  });
  expect(amend.status).toBe(503);
  expect(amend.body.error).toMatchObject({ type: 'api_error', code: 'bank_unavailable' });
  expect(amend.body.error.message).toMatch(/the claim is unchanged/);
  const cancel = await stack.api(merchant.liveKey, `/v1/claims/${claimId}/cancel`, { method: 'POST' });
  expect(cancel.status).toBe(503);
  expect(cancel.body.error.code).toBe('bank_unavailable');
  expect((await call(api, `/v1/claims/${claimId}`)).body).toMatchObject({ status: 'issued', amount: 5_000 });
  expect(bank.exchanges.length).toBe(seen);
  expect(bankClaims().map((c) => c.claim.amount)).toEqual([5_000]);
}, 60_000);

test('a worker with a certificate from another CA cannot issue: the krafa stays pending with nothing at the bank; with the right one the same batch issues it', async () => {
  const seen = bank.exchanges.length;
  const wrongCert = claimsBanksFromConfig(
    loadConfig(
      liveBankEnv({
        BANK_CLAIMS_LIVE_TLS_CERT_PATH: otherPki.clientCert,
        BANK_CLAIMS_LIVE_TLS_KEY_PATH: otherPki.clientKey,
      }),
    ),
  ).live!;
  const good = claimsBanksFromConfig(loadConfig(liveBankEnv())).live!;
  try {
    await stack.stopWorker();
    await stack.startWorker({ liveClaimsApi: wrongCert });
    const second = await call(api, '/v1/claims', {
      payer_kennitala: PAYER,
      amount: 7_000,
      due_date: day(25),
    });
    expect(second.status).toBe(200);
    const handle = await issue(randomBase62(8));
    // The batch send fails at the TLS handshake, and Temporal retries it.
    const pending = await until(
      async () => (await handle.describe()).raw.pendingActivities?.[0],
      (a) => (a?.attempt ?? 0) >= 2,
    );
    expect(pending?.activityType?.name).toBe('submitClaimBatch');
    expect(pending?.lastFailure?.message ?? '').toMatch(/socket|certificate|TLS|ECONNRESET|alert/i);
    expect((await call(api, `/v1/claims/${second.body.id}`)).body).toMatchObject({
      status: 'pending',
      claim_key: null,
    });
    expect(bank.exchanges.length).toBe(seen);
    expect(bankClaims()).toHaveLength(1);

    await stack.stopWorker();
    await stack.startWorker({ liveClaimsApi: good });
    expect(await handle.result()).toMatchObject({ claims: 1, issued: 1 });
    expect((await call(api, `/v1/claims/${second.body.id}`)).body.status).toBe('issued');
    expect(bankClaims().map((c) => c.claim.amount)).toEqual([5_000, 7_000]);
    expect(bank.problems()).toEqual([]);
  } finally {
    await stack.stopWorker();
    wrongCert.close();
    good.close();
  }
}, 60_000);
