/**
 * Pure rules of checkout sessions (spec §2.1 and §3): lifetime, locale choice, form fields and
 * the success URL placeholder.
 */

/** Spec §8: a session lives 24 hours from creation. */
export const SESSION_LIFETIME_MS = 24 * 60 * 60 * 1000;

export type Locale = 'is' | 'en';

export interface FormField {
  name: string;
  type: string;
  required: boolean;
}

/** Known fields (spec §2.1): answered into the session's own fields, never into custom_fields. */
export const KNOWN_FIELDS = ['name', 'email', 'phone', 'nationalId'] as const;

/** `form_fields: null` means the default step: name and email, both required. */
export const DEFAULT_FORM_FIELDS: readonly FormField[] = [
  { name: 'name', type: 'text', required: true },
  { name: 'email', type: 'email', required: true },
];

/** The fields the customer-info step shows. */
export function effectiveFormFields(formFields: readonly FormField[] | null): readonly FormField[] {
  return formFields ?? DEFAULT_FORM_FIELDS;
}

export function isKnownField(name: string): boolean {
  return (KNOWN_FIELDS as readonly string[]).includes(name);
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
  for (const w of wanted) if (w.lang === 'is' || w.lang === 'en') return w.lang;
  return 'en';
}

/** Replaces every `{CHECKOUT_SESSION_ID}` in the success URL with the session id. */
export function successRedirect(successUrl: string, sessionId: string): string {
  return successUrl.split('{CHECKOUT_SESSION_ID}').join(sessionId);
}

/** Whether an open session has passed its expires_at. */
export function isExpired(expiresAt: Date, now: Date = new Date()): boolean {
  return now.getTime() >= expiresAt.getTime();
}
