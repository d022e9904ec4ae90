import { loadIobwsValidator, type Exchange } from '../helpers/iobws-openapi';

// The validator the simulated-bank tests rely on must itself reject what the document forbids.
const v = loadIobwsValidator();
const rid = '99391c7e-ad88-49ec-a2ad-99ddcb1f7721';
const x = (over: Partial<Exchange>): Exchange => ({
  method: 'POST',
  path: '/v1/batches',
  query: {},
  requestHeaders: { 'x-request-id': rid },
  requestBody: undefined,
  status: 201,
  responseHeaders: { 'x-request-id': rid, 'content-type': 'application/json' },
  responseBody: {},
  ...over,
});
const claim = {
  claimKey: { claimantId: '5510730339', account: '000166000001', dueDate: '2026-12-01' },
  payorId: '1201603389',
  templateCode: '001',
  amount: 1000,
  finalDueDate: '2026-12-15',
};

test('batch bodies: the discriminator picks the branch by actionType', () => {
  expect(v.request(x({ requestBody: { actionType: 'create', createList: [claim] } }))).toEqual([]);
  expect(
    v.request(x({ requestBody: { actionType: 'create', createList: [{ ...claim, amount: '1' }] } })),
  ).toContain('body/createList/0/amount must be number');
  expect(v.request(x({ requestBody: { actionType: 'alter', alterList: [{ amount: 1 }] } }))).toContain(
    "body/alterList/0 must have required property 'claimKey'",
  );
  expect(v.request(x({ requestBody: { actionType: 'delete' } }))).toContain(
    'body/actionType must be equal to one of the allowed values',
  );
});

test('responses: schema, required headers and undocumented statuses are checked', () => {
  expect(v.response(x({ responseBody: { batchId: 'nope' } }))).toContain(
    'body/batchId must match pattern "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"',
  );
  expect(v.response(x({ responseHeaders: { 'content-type': 'application/json' } }))).toContain(
    'response header X-Request-ID is required',
  );
  expect(v.response(x({ status: 418 }))[0]).toMatch(/not a documented response/);
  expect(
    v.response(
      x({
        method: 'GET',
        path: '/v1/claims/1',
        status: 200,
        responseBody: { ...claim, expirationDate: '2030-12-01', amount: 'x' },
      }),
    ),
  ).toEqual(['body/amount must be number']);
});

test('paths: /v1/claims/transactions is not read as a claim id; query and path parameters are checked', () => {
  expect(
    v.request(x({ method: 'GET', path: '/v1/claims/transactions', query: { dateFrom: '2026-11-01' } })),
  ).toEqual(['query parameter dateTo is required']);
  expect(v.request(x({ method: 'GET', path: '/v1/batches/not-a-uuid' }))[0]).toMatch(/^path batchId/);
});
