import { html, type SafeHtml } from '../../html/html';
import type { Strings } from './strings';
import type { CheckoutSessionView } from './view';

/** A closed session's page: expired (410), or complete with its payment status; null while open. */
export function resultState(
  s: CheckoutSessionView,
  t: Strings,
  embed: string | null,
): { inner: SafeHtml; attrs?: SafeHtml; status?: number } | null {
  if (s.status === 'expired') return { inner: html`<h1 data-testid="status">${t.expired}</h1>`, status: 410 };
  if (s.status !== 'complete') return null;
  const text =
    s.payment_status === 'awaiting_claim'
      ? t.awaitingClaim
      : s.payment_status === 'unpaid'
        ? t.claimUnpaid
        : t.paid;
  return {
    inner: html`<h1 data-testid="status" data-payment-status="${s.payment_status}">${text}</h1>`,
    // The embedding page learns of completion from this attribute (the SDK watches for it).
    ...(embed && { attrs: html`data-complete-session="${s.id}"` }),
  };
}
