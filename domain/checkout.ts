import type { Locale } from './locale';

/**
 * Pure rules of checkout sessions (spec §2.1 and §3): lifetime, form fields and the success URL
 * placeholder. The locale choice is in `domain/locale.ts`.
 */

/** Spec §8: a session lives 24 hours from creation. */
export const SESSION_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** A field's label in the checkout's two languages; either may be missing (decision 0203). */
export interface FormFieldLabel {
  is?: string | null | undefined;
  en?: string | null | undefined;
}

export interface FormField {
  name: string;
  type: string;
  required: boolean;
  /** The merchant's own label; rows stored before labels existed have none. */
  label?: FormFieldLabel | null | undefined;
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
 * A field name made readable: `company_size` and `companySize` read "Company size"; a word in
 * capitals stays so (`VAT_number`: "VAT number").
 */
export function readableFieldName(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[_\s]+/)
    .filter(Boolean)
    .map((w) => (w.length > 1 && w === w.toUpperCase() && /[A-Z]/.test(w) ? w : w.toLowerCase()));
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * The label a field shows on a page in `locale` (decision 0203): the merchant's label in that
 * language, else ours for a known field (we have both languages), else the merchant's label in the
 * other language, else the name made readable.
 */
export function formFieldLabel(field: FormField, locale: Locale, known?: string): string {
  const own = field.label?.[locale];
  if (own) return own;
  if (known) return known;
  return field.label?.[locale === 'is' ? 'en' : 'is'] || readableFieldName(field.name);
}

/** Replaces every `{CHECKOUT_SESSION_ID}` in the success URL with the session id. */
export function successRedirect(successUrl: string, sessionId: string): string {
  return successUrl.split('{CHECKOUT_SESSION_ID}').join(sessionId);
}

/** Whether an open session has passed its expires_at. */
export function isExpired(expiresAt: Date, now: Date = new Date()): boolean {
  return now.getTime() >= expiresAt.getTime();
}
