import { html, type SafeHtml } from '../../html/html';
import type { Strings } from './strings';
import type { CheckoutSessionView } from './view';

/** The promotion code box; a custom-amount or setup session has no price to discount. */
export function promotionCodeField(
  s: CheckoutSessionView,
  t: Strings,
  v: Record<string, string>,
): SafeHtml | '' {
  if (s.allow_custom_amount || s.mode === 'setup') return '';
  return html`<div class="promo">
    <div>
      <label for="promo">${t.promoCode}</label>
      <input id="promo" name="promotion_code" value="${v.promotion_code ?? ''}" autocomplete="off" />
    </div>
    <button type="submit" class="secondary" name="action" value="apply_code" formnovalidate>
      ${t.apply}
    </button>
  </div>`;
}

/** The amount a buyer chooses (a pay-what-you-want session), with its minimum. */
export function customAmountField(
  s: CheckoutSessionView,
  t: Strings,
  v: Record<string, string>,
  errs: Record<string, string>,
  money: (amount: number) => string,
): SafeHtml | '' {
  if (!s.allow_custom_amount) return '';
  return html`<label for="custom_amount">${t.customAmount}</label>
    <input
      id="custom_amount"
      name="custom_amount"
      inputmode="numeric"
      value="${v.custom_amount ?? String(s.amount || '')}"
      required
    />
    ${s.minimum_amount ? html`<div class="vat">${t.minimum(money(s.minimum_amount))}</div>` : ''}
    ${errs.custom_amount ? html`<div class="field-error">${t.belowMinimum}</div>` : ''}`;
}
