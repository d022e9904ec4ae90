import { html, type SafeHtml } from '../../html/html';
import type { Strings } from './strings';
import type { CheckoutSessionView } from './view';
import type { CheckoutService } from '../../services/checkout';

type Wallet = Awaited<ReturnType<CheckoutService['walletsOffered']>>[number];

/** The main button's text: save a card, pay a chosen amount, or pay the total. */
function payLabel(s: CheckoutSessionView, t: Strings, money: (amount: number) => string): string {
  return s.mode === 'setup' || (s.mode === 'subscription' && s.amount === 0)
    ? t.saveCard
    : s.allow_custom_amount
      ? t.pay
      : t.payAmount(money(s.amount));
}

/** The main button: save a card, pay a chosen amount, or pay the total. */
export function payButton(s: CheckoutSessionView, t: Strings, money: (amount: number) => string): SafeHtml {
  return html`<button type="submit" class="skil-pay" id="pay" name="action" value="pay">
    ${payLabel(s, t, money)}
  </button>`;
}

const WALLET_NAMES: Record<Wallet, string> = { apple_pay: 'Apple Pay', google_pay: 'Google Pay' };

/**
 * The wallet buttons the checkout service offers for this session (the test wallets in test mode,
 * live only those the live acquirer reports; decision 0165), first among the ways to pay, then the
 * divider to the card form when there is one (decision 0203).
 *
 * Enter in a field submits with the form's first submit button; with the wallets above the card
 * form that would be a wallet. So a pay button no one sees or tabs to comes first and keeps Enter
 * what it was: pay with the card typed (or apply the code, whose button comes earlier still).
 */
export function walletButtons(
  s: CheckoutSessionView,
  t: Strings,
  money: (amount: number) => string,
  wallets: readonly Wallet[],
  cardFollows: boolean,
): SafeHtml | '' {
  if (wallets.length === 0) return '';
  return html`<button
      type="submit"
      class="skil-enter"
      name="action"
      value="pay"
      tabindex="-1"
      aria-hidden="true"
    >
      ${payLabel(s, t, money)}
    </button>
    <div class="wallets" data-testid="wallets">
      ${wallets.map(
        (w) =>
          html`<button type="submit" class="wallet" name="action" value="wallet:${w}">
            ${s.livemode ? WALLET_NAMES[w] : t.walletTest(WALLET_NAMES[w])}
          </button>`,
      )}
    </div>
    ${cardFollows ? html`<p class="divider" data-testid="pay-by-card-divider">${t.orPayByCard}</p>` : ''}`;
}
