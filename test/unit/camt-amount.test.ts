import { formatMinorAmount, parseMinorAmount } from '../../adapters/banks/camt/amount';
import { minorUnitExponent } from '../../adapters/banks/camt/currency-exponents';

test.each([
  // text, currency, minor units
  ['10830.05', 'EUR', 1083005n],
  ['0.01', 'EUR', 1n],
  ['100', 'EUR', 10000n],
  ['100.5', 'EUR', 10050n],
  ['100.00', 'ISK', 100n], // trailing zeros beyond the exponent are harmless
  ['1500', 'ISK', 1500n],
  ['2700', 'JPY', 2700n],
  ['1.234', 'KWD', 1234n],
  ['999999999999999999', 'ISK', 999999999999999999n], // 18 digits, beyond 2^53: still exact
  ['999999999999999999.99', 'EUR', 99999999999999999999n],
  [' 8.85 ', 'EUR', 885n],
  ['0.1', 'EUR', 10n], // 0.1 is not representable in binary floating point; here it is exact
])('%s %s = %s', (text, currency, minor) => {
  expect(parseMinorAmount(text, currency)).toEqual({ ok: true, minor });
});

test.each([
  ['100.5', 'ISK', 'too_many_decimals'],
  ['0.001', 'EUR', 'too_many_decimals'],
  ['1.2345', 'KWD', 'too_many_decimals'],
  ['-5.00', 'EUR', 'syntax'], // amounts are unsigned; the sign is CdtDbtInd
  ['1e3', 'EUR', 'syntax'],
  ['1,00', 'EUR', 'syntax'],
  ['', 'EUR', 'syntax'],
  ['.5', 'EUR', 'syntax'],
  ['5.', 'EUR', 'syntax'],
  ['0x10', 'EUR', 'syntax'],
  ['1.000001', 'EUR', 'syntax'], // the schema allows at most 5 fraction digits
  ['1234567890123456789', 'ISK', 'syntax'], // and 18 digits in all
  ['10.00', 'XXX', 'unknown_currency'],
])('%s %s is refused: %s', (text, currency, problem) => {
  expect(parseMinorAmount(text, currency)).toEqual({ ok: false, problem });
});

test.each([
  [1083005n, 'EUR', '10830.05'],
  [5n, 'EUR', '0.05'],
  [0n, 'EUR', '0.00'],
  [-16995n, 'EUR', '-169.95'],
  [1500n, 'ISK', '1500'],
  [1234n, 'KWD', '1.234'],
])('formats %s %s as %s', (minor, currency, text) => {
  expect(formatMinorAmount(minor, currency)).toBe(text);
});

test('exponents follow ISO 4217', () => {
  expect([
    minorUnitExponent('ISK'),
    minorUnitExponent('EUR'),
    minorUnitExponent('JPY'),
    minorUnitExponent('BHD'),
  ]).toEqual([0, 2, 0, 3]);
  expect(minorUnitExponent('ZZZ')).toBeUndefined();
});
