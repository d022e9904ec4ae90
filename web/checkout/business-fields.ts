import { html, trusted, type SafeHtml } from '../../html/html';
import type { PayInput } from '../../services/checkout/inputs';
import type { Strings } from './strings';
import type { CheckoutSessionView } from './view';

const FIELDS = ['kennitala', 'name', 'line1', 'postal_code', 'city'] as const;

/**
 * "Invoice to a company" (decision 0212): a box that, ticked, shows the company's kennitala, name and
 * address. Without script: the fields follow the ticked box by CSS (`:checked ~`), and the server
 * checks them only when it is ticked, so an unticked box never blocks paying.
 */
export function businessFields(
  s: CheckoutSessionView,
  t: Strings,
  v: Record<string, string>,
  errs: Record<string, string>,
): SafeHtml | '' {
  if (!s.business_invoice) return '';
  const labels = {
    kennitala: t.companyKennitala,
    name: t.companyName,
    line1: t.street,
    postal_code: t.postalCode,
    city: t.city,
  };
  const autocomplete = {
    kennitala: 'off',
    name: 'organization',
    line1: 'address-line1',
    postal_code: 'postal-code',
    city: 'address-level2',
  };
  return html`<div class="business-invoice">
    <input
      type="checkbox"
      id="business-invoice"
      name="business_invoice"
      value="1"
      ${v.business_invoice === '1' ? trusted('checked') : ''}
    />
    <label for="business-invoice" class="inline">${t.businessInvoice}</label>
    <div class="business-fields">
      <p class="vat">${t.businessHint}</p>
      ${FIELDS.map((f) => {
        const id = `business-${f.replace('_', '-')}`;
        const err = errs[`business_${f}`];
        return html`<label for="${id}">${labels[f]}</label>
          <input
            id="${id}"
            name="business_${f}"
            value="${v[`business_${f}`] ?? ''}"
            autocomplete="${autocomplete[f]}"
            ${f === 'kennitala' || f === 'postal_code' ? trusted('inputmode="numeric"') : ''}
            ${err ? trusted(`aria-invalid="true" aria-describedby="${id}-err"`) : ''}
          />
          ${
            err
              ? html`<div class="field-error" id="${id}-err">
                  ${err === 'invalid' ? t.invalidKennitala : t.required}
                </div>`
              : ''
          }`;
      })}
    </div>
  </div>`;
}

/** What the buyer gave for the company, when the box was ticked. */
export function businessAnswers(values: Record<string, string>): PayInput['business'] {
  if (values.business_invoice !== '1') return undefined;
  return {
    kennitala: values.business_kennitala ?? '',
    name: values.business_name ?? '',
    line1: values.business_line1 ?? '',
    postal_code: values.business_postal_code ?? '',
    city: values.business_city ?? '',
  };
}
