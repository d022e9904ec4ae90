import { html, type SafeHtml } from '../../html/html';
import type { Strings } from './strings';
import type { CheckoutSessionView } from './view';
import type { CheckoutService } from '../../services/checkout';

type Wallet = Awaited<ReturnType<CheckoutService['walletsOffered']>>[number];

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

const WALLET_NAMES: Record<Wallet, string> = { apple_pay: 'Apple Pay', google_pay: 'Google Pay' };

/**
 * The wallet buttons the checkout service offers for this session: the test wallets in test mode,
 * live only those the live acquirer reports (decision 0165).
 */
export function walletButtons(s: CheckoutSessionView, t: Strings, wallets: readonly Wallet[]): SafeHtml | '' {
  if (wallets.length === 0) return '';
  return html`<p class="vat">${t.orWallet}</p>
    ${wallets.map(
      (w) =>
        html`<button type="submit" class="wallet" name="action" value="wallet:${w}">
          ${s.livemode ? WALLET_NAMES[w] : t.walletTest(WALLET_NAMES[w])}
        </button>`,
    )}`;
}
