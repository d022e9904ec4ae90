import { html, type SafeHtml } from '../../html/html';
import type { Strings } from './strings';
import type { CheckoutSessionView } from './view';

/** Whether the page asks for a card: something to pay now or a card to save. */
export function asksForCard(s: CheckoutSessionView): boolean {
  return s.amount > 0 || s.save_payment_method || s.allow_custom_amount;
}

/** The card fields, when the page asks for a card. */
export function cardForm(s: CheckoutSessionView, t: Strings): SafeHtml | '' {
  if (!asksForCard(s)) return '';
  return html`<h2>${t.card}</h2>
    <label for="card-number">${t.cardNumber}</label>
    <div class="card-number">
      <input
        id="card-number"
        name="card_number"
        inputmode="numeric"
        autocomplete="cc-number"
        maxlength="23"
        aria-describedby="card-brand"
        data-invalid-message="${t.invalidCardNumber}"
      />
      <span id="card-brand" class="card-brand" data-testid="card-brand" aria-live="polite"></span>
    </div>
    <p id="card-number-error" class="field-error" data-testid="card-number-error" role="alert" hidden></p>
    <div class="row">
      <div>
        <label for="card-exp">${t.expiry}</label>
        <input id="card-exp" name="card_exp" autocomplete="cc-exp" placeholder="${t.expiryPlaceholder}" />
      </div>
      <div>
        <label for="card-cvc">${t.cvc}</label>
        <input id="card-cvc" name="card_cvc" inputmode="numeric" autocomplete="cc-csc" />
      </div>
    </div>`;
}
