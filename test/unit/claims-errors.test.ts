import {
  BankAuthenticationError,
  BankConflictError,
  BankInvalidRequestError,
  BankNetworkError,
  BankNotFoundError,
  BankPermissionError,
  BankRateLimitError,
  BankServerError,
  ClaimRejectedError,
  toBankError,
  type RawBankFailure,
} from '../../adapters/banks/claims-errors';
import { idempotencyKeyFor } from '../../adapters/banks/iobws-claims-client';
import { claimAccount, claimIdOf, parseClaimId } from '../../adapters/banks/claims-api';

// toBankError: every shape the standard (and OAuth2) answers with, to one typed, classified error.
const table: [
  string,
  RawBankFailure,
  new (...a: any[]) => Error,
  { retryable: boolean; code: string | null },
][] = [
  [
    'connection refused',
    { networkError: new Error('ECONNREFUSED') },
    BankNetworkError,
    { retryable: true, code: null },
  ],
  ['408 timeout', { status: 408 }, BankNetworkError, { retryable: true, code: null }],
  [
    '409 key in flight (TS 316)',
    { status: 409, body: '' },
    BankConflictError,
    { retryable: true, code: null },
  ],
  ['429', { status: 429 }, BankRateLimitError, { retryable: true, code: null }],
  ['500 empty', { status: 500, body: '' }, BankServerError, { retryable: true, code: null }],
  ['503', { status: 503 }, BankServerError, { retryable: true, code: null }],
  [
    '400 RFC 7807 FORMAT_ERROR',
    { status: 400, body: { type: 'urn:x', code: 'FORMAT_ERROR', detail: 'bad date' } },
    BankInvalidRequestError,
    { retryable: false, code: 'FORMAT_ERROR' },
  ],
  [
    '400 with a claim problem type (CLAIM_EXISTS)',
    { status: 400, body: { type: 'urn:iobws:claims:CLAIM_EXISTS', code: 'PARAMETER_NOT_CONSISTENT' } },
    ClaimRejectedError,
    { retryable: false, code: 'CLAIM_EXISTS' },
  ],
  [
    'batch claimStatusError item (CLAIM_IS_PAID)',
    { status: 200, body: { resultCode: 'CLAIM_IS_PAID', resultMessage: 'paid' } },
    ClaimRejectedError,
    { retryable: false, code: 'CLAIM_IS_PAID' },
  ],
  [
    'claimStatusSingleResponse error (CLAIM_NOT_FOUND)',
    { status: 201, body: { error: { resultCode: 'CLAIM_NOT_FOUND' } } },
    ClaimRejectedError,
    { retryable: false, code: 'CLAIM_NOT_FOUND' },
  ],
  [
    '401 TOKEN_EXPIRED',
    { status: 401, body: { type: 'urn:x', code: 'TOKEN_EXPIRED' } },
    BankAuthenticationError,
    { retryable: false, code: 'TOKEN_EXPIRED' },
  ],
  [
    '403 IOBWS messages[]',
    { status: 403, body: { messages: [{ category: 'ERROR', code: 'SERVICE_BLOCKED', text: 'scope' }] } },
    BankPermissionError,
    { retryable: false, code: 'SERVICE_BLOCKED' },
  ],
  [
    '404 RESOURCE_UNKNOWN',
    { status: 404, body: { messages: [{ category: 'ERROR', code: 'RESOURCE_UNKNOWN' }] } },
    BankNotFoundError,
    { retryable: false, code: 'RESOURCE_UNKNOWN' },
  ],
  [
    'OAuth2 invalid_client on 400',
    { status: 400, body: { error: 'invalid_client' } },
    BankAuthenticationError,
    { retryable: false, code: 'invalid_client' },
  ],
  [
    '502 with a claim code is still a server fault',
    { status: 502, body: { resultCode: 'CLAIM_OTHERS' } },
    BankServerError,
    { retryable: true, code: null },
  ],
];

test.each(table)('toBankError: %s', (_name, raw, type, want) => {
  const err = toBankError({ ...raw, requestId: 'r-1' });
  expect(err).toBeInstanceOf(type);
  expect({ retryable: err.retryable, code: err.code }).toEqual(want);
  expect(err.requestId).toBe('r-1');
});

test('idempotency keys are UUID v5 of the business identity: stable and distinct', () => {
  const a = idempotencyKeyFor('claim-batch/test/42');
  expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(idempotencyKeyFor('claim-batch/test/42')).toBe(a);
  expect(idempotencyKeyFor('claim-batch/test/43')).not.toBe(a);
});

test('claim ids: key ↔ string form of TS 315', () => {
  const key = { claimantId: '1111111119', account: claimAccount('0001', 7654), dueDate: '2025-02-25' };
  expect(claimIdOf(key)).toBe('1111111119000166007654+20250225');
  expect(parseClaimId('1111111119000166007654+20250225')).toEqual(key);
  expect(parseClaimId('1111111119000122007654+20250225')).toBeNull(); // ledger must be 66
  expect(() => claimAccount('0001', 1_000_000)).toThrow(RangeError);
});
