import { z } from 'zod';
import { parseInput, zInt, zBool } from '../../api/validation';
import { InvalidRequestError } from '../../domain/errors';
import { requestHash } from '../../services/idempotency';

const schema = z
  .object({ amount: zInt(), config: z.object({ url: z.string() }).strict(), live: zBool().optional() })
  .strict();

function errorOf(input: unknown) {
  try {
    parseInput(schema, input, 'body');
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidRequestError);
    return (err as InvalidRequestError).toBody();
  }
  throw new Error('expected a rejection');
}

test('integers accept integer-formatted strings and nothing fractional', () => {
  expect(parseInput(schema, { amount: '1000', config: { url: 'x' } }, 'body').amount).toBe(1000);
  expect(errorOf({ amount: '10.5', config: { url: 'x' } })).toMatchObject({
    param: 'amount',
    code: 'parameter_invalid',
  });
  expect(errorOf({ amount: 10.5, config: { url: 'x' } })).toMatchObject({ param: 'amount' });
  expect(errorOf({ amount: '1e3', config: { url: 'x' } })).toMatchObject({ param: 'amount' });
});

test('booleans accept "true" and "false" from forms', () => {
  expect(parseInput(schema, { amount: 1, config: { url: 'x' }, live: 'true' }, 'body').live).toBe(true);
  expect(errorOf({ amount: 1, config: { url: 'x' }, live: 'yes' })).toMatchObject({ param: 'live' });
});

test('errors name missing, unknown and nested parameters', () => {
  expect(errorOf({ config: { url: 'x' } })).toMatchObject({ param: 'amount', code: 'parameter_missing' });
  expect(errorOf({ amount: 1, config: { url: 'x', port: 1 } })).toMatchObject({
    param: 'config.port',
    code: 'parameter_unknown',
  });
  expect(errorOf({ amount: 1, config: {} })).toMatchObject({
    param: 'config.url',
    code: 'parameter_missing',
  });
});

test('the idempotency hash ignores key order but not values, method or path', () => {
  const a = requestHash('POST', '/v1/x', { a: 1, b: { c: 2, d: [1, 2] } });
  expect(requestHash('POST', '/v1/x', { b: { d: [1, 2], c: 2 }, a: 1 })).toBe(a);
  expect(requestHash('POST', '/v1/x', { a: 1, b: { c: 2, d: [2, 1] } })).not.toBe(a);
  expect(requestHash('PATCH', '/v1/x', { a: 1, b: { c: 2, d: [1, 2] } })).not.toBe(a);
  expect(requestHash('POST', '/v1/y', { a: 1, b: { c: 2, d: [1, 2] } })).not.toBe(a);
});
