import { toAcquirerError, cardBrand } from '../../adapters/acquirers/card-acquirer';
import { cardFee } from '../../domain/fees';
import { formFieldLabel, readableFieldName, successRedirect, type FormField } from '../../domain/checkout';
import { formatIsk } from '../../domain/isk';
import { chooseLocale } from '../../domain/locale';

describe('toAcquirerError: one mapping with retry classification', () => {
  test.each([
    [{ status: null, networkError: 'ECONNREFUSED' }, 'AcquirerUnavailableError', true, 'network_error'],
    [
      { status: 500, body: { error: { code: 'processing_error', message: 'x' } } },
      'AcquirerUnavailableError',
      true,
      'processing_error',
    ],
    [{ status: 503 }, 'AcquirerUnavailableError', true, 'unknown'],
    [
      { status: 429, body: { error: { code: 'rate_limited' } } },
      'AcquirerUnavailableError',
      true,
      'rate_limited',
    ],
    [{ status: 409, body: { error: { code: 'in_flight' } } }, 'AcquirerConflictError', true, 'in_flight'],
    [
      { status: 402, body: { error: { code: 'expired_card', message: 'The card has expired' } } },
      'AcquirerCardError',
      false,
      'expired_card',
    ],
    [
      { status: 400, body: { error: { code: 'invalid_request' } } },
      'AcquirerInvalidRequestError',
      false,
      'invalid_request',
    ],
    [{ status: 404, body: 'not json' }, 'AcquirerInvalidRequestError', false, 'unknown'],
  ] as const)('%j → %s (retryable %s, code %s)', (raw, name, retryable, code) => {
    const err = toAcquirerError(raw);
    expect([err.name, err.retryable, err.code]).toEqual([name, retryable, code]);
  });

  test('brands', () => {
    expect(
      ['4242424242424242', '5555555555554444', '2223003122003222', '6011000990139424'].map(cardBrand),
    ).toEqual(['visa', 'mastercard', 'mastercard', 'unknown']);
  });
});

describe('service fee (spec §1), decimal and half up', () => {
  test.each([
    [1000, 'online', 15],
    [1033, 'online', 15], // 15.495
    [1100, 'online', 17], // 16.5
    [4900, 'online', 74], // 73.5
    [1, 'online', 0],
    [0, 'online', 0],
    [999_999_999_999, 'online', 15_000_000_000],
    [1000, 'pos', 8],
    [1063, 'pos', 9], // 8.504
    [1062, 'pos', 8], // 8.496
    [625, 'pos', 5], // 5.0
    [1187, 'pos', 9], // 9.496
  ] as const)('%d ISK %s → %d', (amount, channel, fee) => {
    expect(cardFee(amount, channel)).toBe(fee);
  });
  test('refuses non-integers', () => {
    expect(() => cardFee(10.5, 'online')).toThrow(RangeError);
  });
});

test('locale: the session decides, else Accept-Language by quality, else English', () => {
  expect(chooseLocale('is', 'en-US,en')).toBe('is');
  expect(chooseLocale(null, 'is-IS,is;q=0.9,en;q=0.8')).toBe('is');
  expect(chooseLocale(null, 'de-DE,en;q=0.5,is;q=0.7')).toBe('is');
  expect(chooseLocale(null, 'de,fr')).toBe('en');
  expect(chooseLocale(null, 'is;q=0,en')).toBe('en');
  expect(chooseLocale(null, undefined)).toBe('en');
});

test('success_url placeholder and ISK formatting', () => {
  expect(successRedirect('https://a.is/ok?s={CHECKOUT_SESSION_ID}&again={CHECKOUT_SESSION_ID}', 'cs_1')).toBe(
    'https://a.is/ok?s=cs_1&again=cs_1',
  );
  expect(formatIsk(1234567, 'is')).toBe('1.234.567 kr.');
  expect(formatIsk(1234567, 'en')).toBe('ISK 1,234,567');
});

test('a field name made readable: snake_case, camelCase, one word, capitals kept', () => {
  expect(
    ['company_size', 'companySize', 'kennitala', 'VAT_number', 'VATNumber', 'order__ref_2'].map(
      readableFieldName,
    ),
  ).toEqual(['Company size', 'Company size', 'Kennitala', 'VAT number', 'VAT number', 'Order ref 2']);
});

test("a field's label (decision 0203): the page's language, ours for a known field, the other language, the name", () => {
  const f = (name: string, label?: FormField['label']): FormField => ({
    name,
    type: 'text',
    required: false,
    label,
  });
  const both = f('company_size', { is: 'Stærð fyrirtækis', en: 'Company size' });
  const isOnly = f('delivery_note', { is: 'Athugasemd', en: null });
  const enOnly = f('gift', { en: 'Gift message' });
  const none = f('order_ref');
  const rows = [both, isOnly, enOnly, none].map((field) => [
    formFieldLabel(field, 'is'),
    formFieldLabel(field, 'en'),
  ]);
  expect(rows).toEqual([
    ['Stærð fyrirtækis', 'Company size'],
    ['Athugasemd', 'Athugasemd'],
    ['Gift message', 'Gift message'],
    ['Order ref', 'Order ref'],
  ]);
  // A known field: the merchant's label in the page's language, else the checkout's own word for it.
  const email = f('email', { is: 'Netfang fyrir kvittun' });
  expect([formFieldLabel(email, 'is', 'Netfang'), formFieldLabel(email, 'en', 'Email')]).toEqual([
    'Netfang fyrir kvittun',
    'Email',
  ]);
});
