import { html, type SafeHtml } from '../../html/html';
import type { PortalStrings } from './strings';

/** The card on file and the form that replaces it. */
export function cardSection(t: PortalStrings, last4: string | null, action: string): SafeHtml {
  return html`<section>
    <h2>${t.card}</h2>
    ${last4 ? html`<p class="card-on-file">${t.cardOnFile(last4)}</p>` : ''}
    <form method="post" action="${action}">
      <label for="number">${t.cardNumber}</label>
      <input id="number" name="number" inputmode="numeric" autocomplete="cc-number" required />
      <label for="expiry">${t.expiry}</label>
      <input id="expiry" name="expiry" autocomplete="cc-exp" required />
      <label for="cvc">${t.cvc}</label>
      <input id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" required />
      <button type="submit" name="update-card">${t.updateCard}</button>
    </form>
  </section>`;
}
