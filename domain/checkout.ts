/**
 * Pure rules of checkout sessions (spec §2.1 and §3): lifetime, form fields and the success URL
 * placeholder. The locale choice is in `domain/locale.ts`.
 */

/** Spec §8: a session lives 24 hours from creation. */
export const SESSION_LIFETIME_MS = 24 * 60 * 60 * 1000;

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

/** Replaces every `{CHECKOUT_SESSION_ID}` in the success URL with the session id. */
export function successRedirect(successUrl: string, sessionId: string): string {
  return successUrl.split('{CHECKOUT_SESSION_ID}').join(sessionId);
}

/** Whether an open session has passed its expires_at. */
export function isExpired(expiresAt: Date, now: Date = new Date()): boolean {
  return now.getTime() >= expiresAt.getTime();
}
