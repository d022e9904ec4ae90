import { effectiveFormFields, formFieldLabel, isKnownField, type FormField } from '../../domain/checkout';
import type { Locale } from '../../domain/locale';
import { html, trusted, type SafeHtml } from '../../html/html';
import type { Strings } from './strings';
import type { CheckoutSessionView } from './view';

function fieldInput(field: FormField, value: string, t: Strings, locale: Locale, err?: string) {
  const { name, type, required } = field;
  const ours = isKnownField(name) ? (t as unknown as Record<string, string>)[name] : undefined;
  const label = formFieldLabel(field, locale, ours);
  const autocomplete = { name: 'name', email: 'email', phone: 'tel' }[name] ?? 'off';
  const id = `f-${name}`;
  return html`<label for="${id}">${label}${required ? ' *' : ''}</label>
    <input
      id="${id}"
      name="f_${name}"
      type="${type}"
      value="${value}"
      autocomplete="${autocomplete}"
      ${required ? trusted('required') : ''}
      ${err ? trusted(`aria-invalid="true" aria-describedby="${id}-err"`) : ''}
    />
    ${err ? html`<div class="field-error" id="${id}-err">${err === 'email' ? t.invalidEmail : t.required}</div>` : ''}`;
}

/** The value a field shows: what the buyer typed, else what the session already knows. */
function prefill(s: CheckoutSessionView, v: Record<string, string>, name: string): string {
  const known =
    name === 'name'
      ? s.customer_name
      : name === 'email'
        ? s.customer_email
        : name === 'phone'
          ? s.customer_phone
          : null;
  return v[`f_${name}`] ?? known ?? s.custom_fields?.[name] ?? '';
}

/** The customer information the session asks for (spec §4.1 form fields). */
export function customerFields(
  s: CheckoutSessionView,
  t: Strings,
  locale: Locale,
  v: Record<string, string>,
  errs: Record<string, string>,
): SafeHtml | '' {
  const fields = effectiveFormFields(s.form_fields);
  if (fields.length === 0) return '';
  return html`<h2>${t.customerInfo}</h2>
    ${fields.map((f) => fieldInput(f, prefill(s, v, f.name), t, locale, errs[f.name]))}`;
}
