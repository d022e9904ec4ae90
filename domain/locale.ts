/**
 * The two languages every page, email and receipt speaks (spec §1: Icelandic and English), and the
 * rules that choose one for a request.
 */

export type Locale = 'is' | 'en';

/** The locales in the order the API documents them (a schema's enum). */
export const LOCALES = ['is', 'en'] as const satisfies readonly Locale[];

/** Whether a value from a query, a form, a cookie or a row names one of our locales. */
export function isLocale(value: unknown): value is Locale {
  return value === 'is' || value === 'en';
}

/**
 * The checkout language: the session's locale, else the first of `is`/`en` the browser's
 * Accept-Language asks for by quality, else English.
 */
export function chooseLocale(sessionLocale: Locale | null, acceptLanguage: string | undefined): Locale {
  if (sessionLocale) return sessionLocale;
  const wanted = (acceptLanguage ?? '')
    .split(',')
    .map((part, i) => {
      const [tag, ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return { lang: (tag ?? '').split('-')[0] ?? '', q: q === undefined ? 1 : Number(q), i };
    })
    .filter((w) => w.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const w of wanted) if (isLocale(w.lang)) return w.lang;
  return 'en';
}

/**
 * The locale of a dashboard or till request: `?lang=` first, then the language cookie, then
 * Icelandic if Accept-Language starts with it, else English. Only the first Accept-Language tag
 * counts here, where `chooseLocale` weighs them all by quality.
 */
export function pickLocale(
  query: unknown,
  cookie: string | undefined,
  acceptLanguage: string | undefined,
): Locale {
  for (const candidate of [query, cookie]) if (isLocale(candidate)) return candidate;
  return /^\s*is\b/i.test(acceptLanguage ?? '') ? 'is' : 'en';
}

/**
 * The locale of a signed-in dashboard request: `?lang=` first, then the language the user stored
 * (it follows them to every browser), then the browser's cookie, then Accept-Language as
 * `pickLocale` reads it, then English. Signed out, `stored` is null and this is `pickLocale`.
 */
export function pickUserLocale(
  query: unknown,
  stored: Locale | null | undefined,
  cookie: string | undefined,
  acceptLanguage: string | undefined,
): Locale {
  if (isLocale(query)) return query;
  if (isLocale(stored)) return stored;
  return pickLocale(undefined, cookie, acceptLanguage);
}
