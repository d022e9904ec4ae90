import type { Locale } from '../../domain/locale';
import { html, type SafeHtml } from '../../html/html';

/** How a status reads at a glance: done, waiting on someone, gone wrong, or over. */
type Tone = 'ok' | 'warn' | 'danger' | 'neutral';

/**
 * The statuses the merchant's pages show (payments, refunds, subscriptions, kröfur, settlement runs,
 * payouts, webhook channels and deliveries, invoice deliveries, disputes), each with its tone and its words in both
 * languages. The API's value stays on the badge as `data-status`.
 */
const STATUSES: Record<string, { tone: Tone; en: string; is: string }> = {
  // Payment intents and refunds.
  requires_payment_method: { tone: 'warn', en: 'Needs a payment method', is: 'Vantar greiðslumáta' },
  requires_action: { tone: 'warn', en: 'Needs the buyer', is: 'Bíður greiðanda' },
  requires_capture: { tone: 'warn', en: 'Authorised', is: 'Heimilað' },
  processing: { tone: 'warn', en: 'Processing', is: 'Í vinnslu' },
  succeeded: { tone: 'ok', en: 'Succeeded', is: 'Tókst' },
  canceled: { tone: 'neutral', en: 'Cancelled', is: 'Hætt við' },
  cancelled: { tone: 'neutral', en: 'Cancelled', is: 'Felld niður' },
  pending: { tone: 'warn', en: 'Pending', is: 'Í bið' },
  failed: { tone: 'danger', en: 'Failed', is: 'Mistókst' },
  // Subscriptions.
  incomplete: { tone: 'warn', en: 'Incomplete', is: 'Ófrágengin' },
  incomplete_expired: { tone: 'neutral', en: 'Expired unpaid', is: 'Rann út ógreidd' },
  trialing: { tone: 'warn', en: 'Trial', is: 'Prufutími' },
  active: { tone: 'ok', en: 'Active', is: 'Virk' },
  past_due: { tone: 'danger', en: 'Past due', is: 'Í vanskilum' },
  unpaid: { tone: 'danger', en: 'Unpaid', is: 'Ógreidd' },
  // Kröfur.
  issued: { tone: 'warn', en: 'In the payer’s bank', is: 'Í netbanka greiðanda' },
  paid: { tone: 'ok', en: 'Paid', is: 'Greitt' },
  partially_paid: { tone: 'warn', en: 'Partly paid', is: 'Greitt að hluta' },
  expired: { tone: 'neutral', en: 'Expired', is: 'Útrunnin' },
  // Settlement runs and payouts.
  open: { tone: 'warn', en: 'Open', is: 'Opið' },
  pending_review: { tone: 'warn', en: 'In review', is: 'Í yfirferð' },
  approved: { tone: 'ok', en: 'Approved', is: 'Samþykkt' },
  submitted: { tone: 'warn', en: 'Sent to the bank', is: 'Sent bankanum' },
  // Webhook channels and deliveries.
  enabled: { tone: 'ok', en: 'Enabled', is: 'Virkur' },
  disabled: { tone: 'danger', en: 'Disabled', is: 'Óvirkur' },
  // Invoice deliveries (decision 0219).
  sent: { tone: 'warn', en: 'Sent, awaiting the access point', is: 'Sent, beðið svars skeytamiðlara' },
  delivered: { tone: 'ok', en: 'Delivered', is: 'Afhentur' },
  // Disputes.
  needs_response: { tone: 'danger', en: 'Needs response', is: 'Þarf svar' },
  under_review: { tone: 'warn', en: 'Under review', is: 'Til skoðunar' },
  won: { tone: 'ok', en: 'Won', is: 'Unnið' },
  lost: { tone: 'danger', en: 'Lost', is: 'Tapað' },
};

/** A status as a coloured badge in the page's language; an unknown one reads as its words. */
export function statusBadge(status: string, locale: Locale, testId?: string): SafeHtml {
  const known = STATUSES[status];
  const words = known ? known[locale] : status.replace(/_/g, ' ');
  return html`<span
    class="badge ${known?.tone ?? 'neutral'}"
    data-status="${status}"
    ${testId ? html`data-testid="${testId}"` : ''}
    >${words}</span
  >`;
}
