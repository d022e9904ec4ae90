import { checkKennitala } from '../../domain/kennitala';

describe('checkKennitala', () => {
  test.each([
    ['4710080280', 'company', '2008-10-07'], // Landsbankinn hf.
    ['491008-0160', 'company', '2008-10-09'], // Íslandsbanki hf.
    ['6312051780', 'company', '2005-12-23'], // Icelandair Group hf.
    ['1201603389', 'person', '1960-01-12'],
    ['3108962099', 'person', '1996-08-31'],
  ])('%s is a valid %s registered %s', (input, kind, date) => {
    const r = checkKennitala(input);
    expect(r).toEqual({
      ok: true,
      kennitala: { value: input.replace('-', ''), kind, date, checksumValid: true },
    });
  });

  test.each(['2811913049', '0209804299', '0404044400', '1005148220', '2412198560', '3003228340'])(
    '%s, issued without a check digit after 18 Feb 2026, is accepted with a warning flag',
    (input) => {
      const r = checkKennitala(input);
      expect(r.ok).toBe(true);
      expect(r.ok && r.kennitala.checksumValid).toBe(false);
    },
  );

  test.each([
    ['123456789', 'must be exactly 10 digits'],
    ['12345678901', 'must be exactly 10 digits'],
    ['12016a3389', 'must be exactly 10 digits'],
    ['1201603385', 'the last digit (century) must be 8, 9 or 0'],
    ['3202603389', 'the first six digits are not a valid date'],
    ['7201603389', 'the first six digits are not a valid date'],
    ['2902013389', 'the first six digits are not a valid date'], // 29 Feb 2001
  ])('%s is refused: %s', (input, reason) => {
    expect(checkKennitala(input)).toEqual({ ok: false, reason });
  });

  test('29 February of a leap year is a date', () => {
    expect(checkKennitala('2902003380').ok).toBe(true);
  });
});
