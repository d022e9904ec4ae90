import { createSecretBox, generateSecretsKey, isSealed, parseSecretsKey } from '../../domain/secret-box';

const box = createSecretBox(generateSecretsKey());

test('sealed values open to the plaintext, differ every time and never show it', () => {
  const a = box.seal('whsec_abc', 'ctx');
  const b = box.seal('whsec_abc', 'ctx');
  expect(a).not.toBe(b);
  expect(a).not.toContain('whsec_abc');
  expect(isSealed(a)).toBe(true);
  expect(box.open(a, 'ctx')).toBe('whsec_abc');
  expect(box.open('', 'ctx')).toBe('');
  expect(box.open(box.seal('', 'ctx'), 'ctx')).toBe('');
  expect(box.open(box.seal('ð😀', 'ctx'), 'ctx')).toBe('ð😀');
});

test('a value sealed for one row does not open in another, nor after tampering', () => {
  const sealed = box.seal('whsec_abc', 'notification_channels.secret:nc_1');
  expect(() => box.open(sealed, 'notification_channels.secret:nc_2')).toThrow();
  const parts = sealed.split('.');
  parts[3] = Buffer.from('whsec_abd').toString('base64url');
  expect(() => box.open(parts.join('.'), 'notification_channels.secret:nc_1')).toThrow();
});

test('a value sealed under another key is named as such', () => {
  const other = createSecretBox(generateSecretsKey());
  expect(() => other.open(box.seal('x', 'c'), 'c')).toThrow(/sealed under key [0-9a-f]{8}/);
});

test('plaintext from before encryption reads as is', () => {
  expect(box.open('{"id":"nc_1"}', 'c')).toBe('{"id":"nc_1"}');
});

test('keys are 64 hex digits or base64 of 32 bytes, nothing else', () => {
  expect(parseSecretsKey('ab'.repeat(32))).toHaveLength(32);
  expect(parseSecretsKey(Buffer.alloc(32, 1).toString('base64'))).toHaveLength(32);
  for (const bad of ['', 'ab'.repeat(31), 'x'.repeat(64), Buffer.alloc(16).toString('base64')])
    expect(() => parseSecretsKey(bad)).toThrow(/32 bytes/);
});
