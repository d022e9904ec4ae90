import { pickLocale, pickUserLocale } from '../../domain/locale';
import { defineMessages } from '../../web/messages';

const t = defineMessages({
  is: { payments: '{count, plural, one {# greiðsla} other {# greiðslur}}', hello: 'Halló {name}' },
  en: { payments: '{count, plural, one {# payment} other {# payments}}', hello: 'Hello {name}' },
});

test('ICU plurals in both languages, Icelandic plural rules included (21 is singular)', () => {
  expect(t('en', 'payments', { count: 1 })).toBe('1 payment');
  expect(t('en', 'payments', { count: 21 })).toBe('21 payments');
  expect(t('is', 'payments', { count: 21 })).toBe('21 greiðsla');
  expect(t('is', 'payments', { count: 3 })).toBe('3 greiðslur');
  expect(t('is', 'hello', { name: 'Jón' })).toBe('Halló Jón');
});

test('the locale comes from the query, then the cookie, then Accept-Language, else English', () => {
  expect(pickLocale('is', 'en', 'en')).toBe('is');
  expect(pickLocale(undefined, 'is', 'en')).toBe('is');
  expect(pickLocale('xx', undefined, 'is-IS,is;q=0.9')).toBe('is');
  expect(pickLocale(undefined, undefined, 'de')).toBe('en');
});

test("a signed-in dashboard request: the query, then the user's stored language, then the cookie, then Accept-Language, else English", () => {
  expect(pickUserLocale('en', 'is', 'is', 'is')).toBe('en');
  expect(pickUserLocale(undefined, 'is', 'en', 'en-US,en;q=0.9')).toBe('is');
  expect(pickUserLocale('xx', 'en', 'is', 'is')).toBe('en');
  expect(pickUserLocale(undefined, null, 'is', 'en')).toBe('is');
  expect(pickUserLocale(undefined, null, 'xx', 'is-IS')).toBe('is');
  expect(pickUserLocale(undefined, undefined, undefined, 'de')).toBe('en');
});
