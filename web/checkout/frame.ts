import { html, type SafeHtml } from '../../html/html';
import type { CheckoutSessionView, CheckoutView } from './view';

/** The page's main element around a session: logo, merchant name, the test-mode badge. */
export function sessionFrame(
  s: CheckoutSessionView,
  view: CheckoutView,
  embed: string | null,
  inner: SafeHtml,
  attrs: SafeHtml = html``,
): SafeHtml {
  const { theme, merchantName, t } = view;
  return html`<main
    class="skil-checkout"
    id="skil-checkout"
    data-session="${s.id}"
    ${embed ? html`data-embed-origin="${embed}"` : ''}
    ${attrs}
  >
    ${theme.logo_url ? html`<img class="skil-logo" src="${theme.logo_url}" alt="${merchantName}" referrerpolicy="no-referrer" />` : ''}
    <p class="skil-merchant">${merchantName}</p>
    ${s.livemode ? '' : html`<p class="test" data-testid="test-mode">${t.testMode}</p>`} ${inner}
  </main>`;
}
