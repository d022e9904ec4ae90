import { ApplicationFailure } from '@temporalio/common';
import { toActivityFailure } from '../../activities/adapter-failure';
import { toAcquirerError } from '../../adapters/acquirers/card-acquirer';
import { toBankError } from '../../adapters/banks/claims-errors';
import { toTransportError } from '../../adapters/banks/transport-errors';
import { TransportError } from '../../adapters/banks/bank-file-transport';
import { FailureType } from '../../workflows/contract';

// Every adapter's classified error goes through the one rule: retryable ones stay as they are
// (Temporal retries them), final ones become non-retryable failures of the contract's types.
const cases: [string, unknown, FailureType | 'retried'][] = [
  ['claims: network down', toBankError({ networkError: new Error('ECONNREFUSED') }), 'retried'],
  ['claims: 503', toBankError({ status: 503 }), 'retried'],
  ['claims: 409 in flight', toBankError({ status: 409 }), 'retried'],
  ['claims: 401', toBankError({ status: 401 }), FailureType.AdapterAccessRefused],
  ['claims: 403', toBankError({ status: 403 }), FailureType.AdapterAccessRefused],
  [
    'claims: invalid_client',
    toBankError({ status: 400, body: { error: 'invalid_client' } }),
    FailureType.AdapterAccessRefused,
  ],
  [
    'claims: claim rejected',
    toBankError({ status: 400, body: { resultCode: 'CLAIM_EXISTS' } }),
    FailureType.AdapterRequestRefused,
  ],
  ['claims: 400', toBankError({ status: 400 }), FailureType.AdapterRequestRefused],
  [
    'sftp: wrong password',
    toTransportError({
      message: 'All configured authentication methods failed',
      level: 'client-authentication',
    }),
    FailureType.AdapterAccessRefused,
  ],
  [
    'sftp: host key not the pinned one',
    new TransportError('host_key_mismatch', 'host key differs', false),
    FailureType.AdapterAccessRefused,
  ],
  ['sftp: connection refused', toTransportError({ message: 'connect', code: 'ECONNREFUSED' }), 'retried'],
  ['sftp: timeout', toTransportError({ message: 'x', code: 'ETIMEDOUT' }), 'retried'],
  [
    'sftp: no such file',
    toTransportError({ message: 'No such file', code: 2 }),
    FailureType.AdapterRequestRefused,
  ],
  ['acquirer: unreachable', toAcquirerError({ status: null, networkError: 'reset' }), 'retried'],
  ['acquirer: 409', toAcquirerError({ status: 409 }), 'retried'],
  ['acquirer: card refused', toAcquirerError({ status: 402 }), FailureType.AdapterRequestRefused],
  ['acquirer: bad request', toAcquirerError({ status: 400 }), FailureType.AdapterRequestRefused],
];

test.each(cases)('%s', (_name, error, expected) => {
  const thrown = toActivityFailure(error);
  if (expected === 'retried') {
    expect(thrown).toBe(error);
    return;
  }
  expect(thrown).toBeInstanceOf(ApplicationFailure);
  expect(thrown).toMatchObject({ type: expected, nonRetryable: true, message: (error as Error).message });
});

test('errors that are not the outside world pass through: Temporal retries them', () => {
  const db = new Error('connection terminated');
  expect(toActivityFailure(db)).toBe(db);
  const failure = ApplicationFailure.nonRetryable('gone', FailureType.NotFound);
  expect(toActivityFailure(failure)).toBe(failure);
});
