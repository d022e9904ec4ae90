import { TransportError } from '../../adapters/banks/bank-file-transport';
import { backoffDelay, withRetry } from '../../adapters/banks/connect-retry';
import { toTransportError } from '../../adapters/banks/transport-errors';

const err = (message: string, fields: Record<string, unknown> = {}) =>
  Object.assign(new Error(message), fields);

// Shapes as they reach us: ssh2 (with `level`), ssh2-sftp-client's rewraps (`connect: …`, `code`),
// socket errnos, and SFTP status numbers.
test.each<[string, unknown, string, boolean]>([
  [
    'ssh2 auth failure',
    err('All configured authentication methods failed', { level: 'client-authentication' }),
    'authentication_failed',
    false,
  ],
  [
    'rewrapped auth failure',
    err('connect: All configured authentication methods failed', { code: 'ERR_GENERIC_CLIENT' }),
    'authentication_failed',
    false,
  ],
  [
    'ssh2-sftp-client bad auth code',
    err('connect: bad auth', { code: 'ERR_BAD_AUTH' }),
    'authentication_failed',
    false,
  ],
  [
    'host key refused',
    err('connect: Host denied (verification failed)', { code: 'ERR_GENERIC_CLIENT' }),
    'host_key_mismatch',
    false,
  ],
  [
    'connection refused',
    err('connect: Remote host refused connection', { code: 'ECONNREFUSED' }),
    'connection_failed',
    true,
  ],
  [
    'connection reset',
    err('list: Remote host has reset the connection: read ECONNRESET', { code: 'ECONNRESET' }),
    'connection_failed',
    true,
  ],
  ['host unreachable', err('connect EHOSTUNREACH', { code: 'EHOSTUNREACH' }), 'connection_failed', true],
  [
    'DNS failure',
    err('connect: Address lookup failed for host', { code: 'ENOTFOUND' }),
    'connection_failed',
    true,
  ],
  ['socket timeout', err('connect ETIMEDOUT 10.0.0.1:22', { code: 'ETIMEDOUT' }), 'timeout', true],
  [
    'handshake timeout',
    err('Timed out while waiting for handshake', { level: 'client-timeout' }),
    'timeout',
    true,
  ],
  [
    'rewrapped handshake timeout',
    err('connect: Timed out while waiting for handshake', { code: 'ERR_GENERIC_CLIENT' }),
    'timeout',
    true,
  ],
  [
    'not connected',
    err('list: No SFTP connection available', { code: 'ERR_NOT_CONNECTED' }),
    'connection_failed',
    true,
  ],
  ['sftp no such file', err('_xstat: No such file: /inbox/x', { code: 2 }), 'not_found', false],
  ['ssh2-sftp-client ENOENT', err('get: No such file /inbox/x', { code: 'ENOENT' }), 'not_found', false],
  ['sftp permission denied', err('Permission denied /x', { code: 3 }), 'permission_denied', false],
  [
    'sftp failure: target exists',
    err('_rename: target already exists From: a To: b', { code: 4 }),
    'already_exists',
    false,
  ],
  ['sftp failure, no reason', err('Failure', { code: 4 }), 'protocol_error', false],
  ['sftp connection lost', err('Connection lost', { code: 7 }), 'connection_failed', true],
  [
    'sftp op unsupported',
    err('Server does not support this extended request', { code: 8 }),
    'protocol_error',
    false,
  ],
  ['unknown', err('something odd'), 'protocol_error', false],
  ['not an Error at all', 'boom', 'protocol_error', false],
  ['undefined', undefined, 'protocol_error', false],
])('%s → %s', (_name, raw, kind, retryable) => {
  const mapped = toTransportError(raw);
  expect(mapped).toBeInstanceOf(TransportError);
  expect([mapped.kind, mapped.retryable]).toEqual([kind, retryable]);
});

test('an already classified error passes through unchanged', () => {
  const original = new TransportError('incomplete_transfer', 'short read', true);
  expect(toTransportError(original)).toBe(original);
});

test.each([
  [1, 0, 250],
  [1, 1, 500],
  [2, 1, 1000],
  [3, 1, 2000],
  [10, 1, 8000], // capped
  [10, 0, 4000],
])('backoff before retry %i with jitter %d is %i ms', (retry, jitter, ms) => {
  expect(backoffDelay({ attempts: 20, initialDelayMs: 500, maxDelayMs: 8000 }, retry, () => jitter)).toBe(ms);
});

test('withRetry stops at once on a final error and retries transient ones up to the limit', async () => {
  const sleeps: number[] = [];
  const sleep = (ms: number) => {
    sleeps.push(ms);
    return Promise.resolve();
  };
  const policy = { attempts: 4, initialDelayMs: 100, maxDelayMs: 1000 };
  const retryable = (e: unknown) => toTransportError(e).retryable;

  let calls = 0;
  await expect(
    withRetry(
      policy,
      () => {
        calls++;
        return Promise.reject(
          err('All configured authentication methods failed', { level: 'client-authentication' }),
        );
      },
      retryable,
      sleep,
    ),
  ).rejects.toThrow('authentication');
  expect([calls, sleeps.length]).toEqual([1, 0]);

  calls = 0;
  await expect(
    withRetry(
      policy,
      () => {
        calls++;
        return Promise.reject(err('refused', { code: 'ECONNREFUSED' }));
      },
      retryable,
      sleep,
    ),
  ).rejects.toThrow('refused');
  expect([calls, sleeps.length]).toEqual([4, 3]);

  calls = 0;
  const result = await withRetry(
    policy,
    (n) => {
      calls++;
      return n < 3 ? Promise.reject(err('reset', { code: 'ECONNRESET' })) : Promise.resolve('connected');
    },
    retryable,
    sleep,
  );
  expect([result, calls]).toEqual(['connected', 3]);
});
