import { isTransientDatabaseError } from '../../stack/transient-database-errors';

// The failures a PostgreSQL restart or failover hands the driver, beside ones that are not the database's.
const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

test.each([
  [
    'server ended the backend (fast shutdown)',
    withCode('terminating connection due to administrator command', '57P01'),
    true,
  ],
  ['server starting up', withCode('the database system is starting up', '57P03'), true],
  ['server down: connection refused', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'), true],
  ['connection lost mid-query', new Error('Connection terminated unexpectedly'), true],
  [
    'wrapped by a service',
    new Error('could not load', { cause: withCode('read ECONNRESET', 'ECONNRESET') }),
    true,
  ],
  [
    'another service over HTTP',
    new TypeError('fetch failed', { cause: withCode('connect ECONNREFUSED', 'ECONNREFUSED') }),
    false,
  ],
  ['a unique violation', withCode('duplicate key value violates unique constraint', '23505'), false],
  ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'id')"), false],
])('%s → transient: %s', (_name, err, transient) => {
  expect(isTransientDatabaseError(err)).toBe(transient);
});
