import { html, trusted, type SafeHtml } from '../../html/html';
import type { Strings } from './strings';

/** Paying by krafa (a claim in the payer's online bank): the payer's kennitala and its button. */
export function krafaForm(t: Strings, v: Record<string, string>, errs: Record<string, string>): SafeHtml {
  return html`<h2>${t.claim}</h2>
    <p class="vat">${t.claimHint}</p>
    <label for="claim-kennitala">${t.nationalId}</label>
    <input
      id="claim-kennitala"
      name="claim_kennitala"
      inputmode="numeric"
      autocomplete="off"
      value="${v.claim_kennitala ?? ''}"
      ${errs.kennitala ? trusted('aria-invalid="true" aria-describedby="claim-kennitala-err"') : ''}
    />
    ${errs.kennitala ? html`<div class="field-error" id="claim-kennitala-err">${t.invalidKennitala}</div>` : ''}
    <button type="submit" class="secondary" id="pay-claim" name="action" value="claim">
      ${t.payByClaim}
    </button>`;
}
