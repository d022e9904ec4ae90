import { redactChanges } from '../../domain/audit-redaction';
import { csvCell } from '../../services/audit/audit-log-service';

// What the merchant audit log keeps of a change, and how its export writes a cell (decision 0227).

test.each([
  ['=HYPERLINK("http://x")', `"'=HYPERLINK(""http://x"")"`],
  ['+1', `"'+1"`],
  ['-2', `"'-2"`],
  ['@SUM(A1)', `"'@SUM(A1)"`],
  ['\tx', `"'\tx"`],
  ['\rx', `"'\rx"`],
  ['Guðrún "Gunna"', `"Guðrún ""Gunna"""`],
  ['a=b', `"a=b"`],
  ['', `""`],
])('csvCell(%j) is %s', (value, cell) => {
  expect(csvCell(value)).toBe(cell);
});

test('secrets are removed at any depth, keys wherever they appear, and long values are cut', () => {
  const kept = redactChanges({
    name: 'Anna',
    password: 'hunter2',
    new_password: 'x',
    config: { url: 'https://example.is/hook', secret: 'whsec_abc' },
    card: { number: '4242424242424242', cvc: '123', exp_month: 12 },
    totp_seed: 'JBSWY3DPEHPK3PXP',
    recovery_codes: ['a', 'b'],
    code: '123456',
    pin: '1234',
    _csrf: 'token',
    note: 'sk_live_0123456789abcdefghijABCDEFGHIJ',
    metadata: { order: 'A-1' },
    description: 'x'.repeat(500),
    bank_account: '0101-26-123456',
  });
  expect(kept).toEqual({
    name: 'Anna',
    password: '[redacted]',
    new_password: '[redacted]',
    config: { url: 'https://example.is/hook', secret: '[redacted]' },
    card: { number: '[redacted]', cvc: '[redacted]', exp_month: 12 },
    totp_seed: '[redacted]',
    recovery_codes: '[redacted]',
    code: '[redacted]',
    pin: '[redacted]',
    _csrf: '[redacted]',
    note: '[redacted]',
    metadata: { order: 'A-1' },
    description: `${'x'.repeat(200)}…`,
    bank_account: '0101-26-123456',
  });
  expect(redactChanges('not an object')).toEqual({});
  expect(redactChanges(['a'])).toEqual({});
});
