import { addBankingDays, isBankingDay, nextBankingDay } from '../../domain/banking-days';

describe('Icelandic banking days', () => {
  test.each([
    ['2026-01-01', false, "New Year's Day"],
    ['2026-01-02', true, 'an ordinary Friday'],
    ['2026-01-03', false, 'Saturday'],
    ['2026-04-02', false, 'Maundy Thursday (Easter − 3)'],
    ['2026-04-03', false, 'Good Friday'],
    ['2026-04-06', false, 'Easter Monday'],
    ['2026-04-23', false, 'First day of summer (first Thursday after 18 April)'],
    ['2026-05-01', false, 'Labour Day'],
    ['2026-05-14', false, 'Ascension Day (Easter + 39)'],
    ['2026-05-25', false, 'Whit Monday'],
    ['2026-06-17', false, 'National Day'],
    ['2026-08-03', false, 'Commerce Day (first Monday of August)'],
    ['2026-12-24', false, 'Christmas Eve (treated as closed by default)'],
    ['2026-12-25', false, 'Christmas Day'],
    ['2025-12-31', false, 'New Year’s Eve, closed by rule 912/2025'],
    ['2024-12-31', true, 'New Year’s Eve before the rule'],
    ['2026-01-21', true, 'Bóndadagur is an observance, not a holiday'],
    ['2027-03-25', false, 'Maundy Thursday 2027'],
  ])('%s → %s (%s)', (date, expected) => {
    expect(isBankingDay(date)).toBe(expected);
  });

  test('Christmas Eve can be configured as a banking day', () => {
    expect(isBankingDay('2026-12-24', { christmasEveIsBankingDay: true })).toBe(true);
  });

  test.each([
    ['2026-12-24', '2026-12-28'], // Christmas Eve (Thu), Christmas (Fri), weekend
    ['2026-12-31', '2027-01-04'], // 31 Dec (Thu), New Year's Day (Fri), weekend
    ['2026-04-02', '2026-04-07'], // Maundy Thursday to the Tuesday after Easter
    ['2026-11-21', '2026-11-23'], // Saturday to Monday
    ['2026-11-23', '2026-11-23'], // already a banking day
  ])('next banking day from %s is %s', (date, expected) => {
    expect(nextBankingDay(date)).toBe(expected);
  });

  test('adding banking days skips closed days', () => {
    expect(addBankingDays('2026-12-23', 1)).toBe('2026-12-28');
    expect(addBankingDays('2026-12-23', 2)).toBe('2026-12-29');
    expect(addBankingDays('2026-11-20', 0)).toBe('2026-11-20');
    expect(addBankingDays('2026-11-21', 0)).toBe('2026-11-23');
  });

  test('malformed dates are refused', () => {
    expect(() => isBankingDay('2026-02-30')).toThrow(RangeError);
    expect(() => isBankingDay('26-01-01')).toThrow(RangeError);
    expect(() => addBankingDays('2026-01-01', -1)).toThrow(RangeError);
  });
});
