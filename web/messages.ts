import { IntlMessageFormat } from 'intl-messageformat';
import type { Locale } from '../domain/locale';

/** Values a message may interpolate: ICU `{name}`, `{count, plural, …}`, `{n, number}`. */
export type MessageValues = Record<string, string | number>;

/**
 * One page area's is/en messages in ICU MessageFormat (plurals, numbers), compiled once per
 * message and locale on first use. The Icelandic and English tables must hold the same keys: the
 * type makes a missing translation a compile error.
 */
export function defineMessages<K extends string>(tables: Record<Locale, Record<K, string>>) {
  const compiled = new Map<string, IntlMessageFormat>();
  return function t(locale: Locale, key: K, values?: MessageValues): string {
    const id = `${locale}\u0000${key}`;
    let format = compiled.get(id);
    if (!format) {
      format = new IntlMessageFormat(tables[locale][key], locale === 'is' ? 'is-IS' : 'en-GB');
      compiled.set(id, format);
    }
    return String(format.format(values));
  };
}
