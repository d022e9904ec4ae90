import { html, type SafeHtml } from '../../html/html';
import type { Strings } from './strings';
import type { CheckoutSessionView } from './view';

/** The main button: save a card, pay a chosen amount, or pay the total. */
export function payButton(s: CheckoutSessionView, t: Strings, money: (amount: number) => string): SafeHtml {
  const label =
    s.mode === 'setup' || (s.mode === 'subscription' && s.amount === 0)
      ? t.saveCard
      : s.allow_custom_amount
        ? t.pay
        : t.payAmount(money(s.amount));
  return html`<button type="submit" class="skil-pay" id="pay" name="action" value="pay">${label}</button>`;
}

/** Test wallets (Apple Pay, Google Pay) for one-off payments in test mode. */
export function walletButtons(s: CheckoutSessionView, t: Strings): SafeHtml | '' {
  if (s.livemode || s.mode !== 'payment') return '';
  return html`<p class="vat">${t.orWallet}</p>
    <button type="submit" class="wallet" name="action" value="wallet:apple_pay">
      ${t.walletTest('Apple Pay')}
    </button>
    <button type="submit" class="wallet" name="action" value="wallet:google_pay">
      ${t.walletTest('Google Pay')}
    </button>`;
}
