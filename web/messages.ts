import { IntlMessageFormat } from 'intl-messageformat';

export type PageLocale = 'is' | 'en';

/** Values a message may interpolate: ICU `{name}`, `{count, plural, …}`, `{n, number}`. */
export type MessageValues = Record<string, string | number>;

/**
 * One page area's is/en messages in ICU MessageFormat (plurals, numbers), compiled once per
 * message and locale on first use. The Icelandic and English tables must hold the same keys: the
 * type makes a missing translation a compile error.
 */
export function defineMessages<K extends string>(tables: Record<PageLocale, Record<K, string>>) {
  const compiled = new Map<string, IntlMessageFormat>();
  return function t(locale: PageLocale, key: K, values?: MessageValues): string {
    const id = `${locale}\u0000${key}`;
    let format = compiled.get(id);
    if (!format) {
      format = new IntlMessageFormat(tables[locale][key], locale === 'is' ? 'is-IS' : 'en-GB');
      compiled.set(id, format);
    }
    return String(format.format(values));
  };
}

/** The locale a request asks for: `?lang=` first, then the `skil_lang` cookie, then Accept-Language. */
export function pickLocale(
  query: unknown,
  cookie: string | undefined,
  acceptLanguage: string | undefined,
): PageLocale {
  for (const candidate of [query, cookie]) if (candidate === 'is' || candidate === 'en') return candidate;
  return /^\s*is\b/i.test(acceptLanguage ?? '') ? 'is' : 'en';
}
