import {
  base32Decode,
  base32Encode,
  hotp,
  matchTotp,
  newTotpSecret,
  otpauthUri,
  totp,
  totpStep,
  type TotpHash,
} from '../../domain/totp';

// RFC 6238 Appendix B: the seeds are ASCII digits, 20, 32 and 64 bytes long for the three hashes.
const SEEDS: Record<TotpHash, Buffer> = {
  sha1: Buffer.from('12345678901234567890', 'ascii'),
  sha256: Buffer.from('12345678901234567890123456789012', 'ascii'),
  sha512: Buffer.from('1234567890123456789012345678901234567890123456789012345678901234', 'ascii'),
};

const VECTORS: [number, string, TotpHash][] = [
  [59, '94287082', 'sha1'],
  [59, '46119246', 'sha256'],
  [59, '90693936', 'sha512'],
  [1111111109, '07081804', 'sha1'],
  [1111111109, '68084774', 'sha256'],
  [1111111109, '25091201', 'sha512'],
  [1111111111, '14050471', 'sha1'],
  [1111111111, '67062674', 'sha256'],
  [1111111111, '99943326', 'sha512'],
  [1234567890, '89005924', 'sha1'],
  [1234567890, '91819424', 'sha256'],
  [1234567890, '93441116', 'sha512'],
  [2000000000, '69279037', 'sha1'],
  [2000000000, '90698825', 'sha256'],
  [2000000000, '38618901', 'sha512'],
  [20000000000, '65353130', 'sha1'],
  [20000000000, '77737706', 'sha256'],
  [20000000000, '47863826', 'sha512'],
];

test.each(VECTORS)('RFC 6238 Appendix B: T=%d gives %s with %s', (time, code, hash) => {
  expect(totp(SEEDS[hash], time, { digits: 8, hash })).toBe(code);
});

test('RFC 4226 Appendix D: HOTP values of the first ten counters', () => {
  const expected = [
    '755224',
    '287082',
    '359152',
    '969429',
    '338314',
    '254676',
    '287922',
    '162583',
    '399871',
    '520489',
  ];
  expect(expected.map((_, i) => hotp(SEEDS.sha1, i))).toEqual(expected);
});

test('base32 round-trips and reads the forms people type', () => {
  const secret = newTotpSecret();
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  expect(base32Encode(base32Decode(secret))).toBe(secret);
  expect(base32Encode(Buffer.from('12345678901234567890'))).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
  expect(base32Decode('gezd gnbv gy3t qojq gezd gnbv gy3t qojq').toString()).toBe('12345678901234567890');
  expect(() => base32Decode('GEZ1')).toThrow();
});

test('a code matches its own step and one either side, and nothing else', () => {
  const secret = base32Encode(SEEDS.sha1);
  const now = 1_800_000_000;
  const key = base32Decode(secret);
  const step = totpStep(now);
  expect(matchTotp(secret, hotp(key, step), now)).toBe(step);
  expect(matchTotp(secret, hotp(key, step - 1), now)).toBe(step - 1);
  expect(matchTotp(secret, hotp(key, step + 1), now)).toBe(step + 1);
  expect(matchTotp(secret, hotp(key, step - 2), now)).toBeNull();
  expect(matchTotp(secret, '12345', now)).toBeNull();
  expect(matchTotp(secret, 'abcdef', now)).toBeNull();
});

test('the otpauth URI names the issuer, the account and the parameters', () => {
  const uri = new URL(otpauthUri('GEZDGNBV', 'Skil', 'anna@example.is'));
  expect(uri.protocol).toBe('otpauth:');
  expect(uri.searchParams.get('secret')).toBe('GEZDGNBV');
  expect(uri.searchParams.get('issuer')).toBe('Skil');
  expect(uri.searchParams.get('digits')).toBe('6');
  expect(decodeURIComponent(uri.pathname)).toContain('Skil:anna@example.is');
});
