import type { Request } from 'express';
import { formatIsk } from '../../domain/isk';
import { html, type SafeHtml } from '../../html/html';
import { defineMessages } from '../messages';
import { field } from './context';
import type { DisputeObject } from '../../services/disputes/dispute-object';
import { facts, when, type MerchantView } from './frame';
import { statusBadge } from './status-badge';

/**
 * A payment's dispute on its dashboard page (decision 0156): status, reason, amount and deadline,
 * and, while it needs a response and before the deadline, the evidence form. Members who may
 * refund may answer a dispute: both decide what happens to a customer's money.
 */

const t = defineMessages({
  en: {
    title: 'Dispute',
    status: 'Status',
    reason: 'Reason',
    amount: 'Disputed amount',
    dueBy: 'Evidence due by',
    pastDue: '{date} (passed)',
    evidenceTitle: 'Submit evidence',
    evidenceHint:
      'Sent to the cardholder’s bank through the acquirer; after this the dispute is under review.',
    product_description: 'Product or service description',
    customer_email_address: 'Customer email address',
    uncategorized_text: 'Other evidence (what happened, why the payment stands)',
    submit: 'Submit evidence',
    submitted: 'Evidence submitted: the dispute is under review.',
    noEvidence: 'Give at least one piece of evidence.',
  },
  is: {
    title: 'Endurkrafa',
    status: 'Staða',
    reason: 'Ástæða',
    amount: 'Upphæð endurkröfu',
    dueBy: 'Frestur til að skila gögnum',
    pastDue: '{date} (liðinn)',
    evidenceTitle: 'Senda gögn',
    evidenceHint: 'Send banka korthafans um færsluhirðinn; eftir það er endurkrafan til skoðunar.',
    product_description: 'Lýsing á vöru eða þjónustu',
    customer_email_address: 'Netfang viðskiptavinar',
    uncategorized_text: 'Önnur gögn (hvað gerðist, hvers vegna greiðslan stendur)',
    submit: 'Senda gögn',
    submitted: 'Gögn send: endurkrafan er til skoðunar.',
    noEvidence: 'Gefðu að minnsta kosti ein gögn.',
  },
});

const FORM_FIELDS = ['product_description', 'customer_email_address', 'uncategorized_text'] as const;

export const disputeMessages = t;

/** The dispute section of a payment page; empty when the payment has no dispute. */
export function disputeSection(view: MerchantView, disputes: DisputeObject[]): SafeHtml {
  const l = view.locale;
  return html`${disputes.map((d) => {
    const due = when(d.evidence_details.due_by, l);
    const form =
      view.can('refund') && d.status === 'needs_response' && !d.evidence_details.past_due
        ? html`<form method="post" action="/dashboard/payments/${d.payment_intent}/dispute">
            ${view.csrf}
            <input type="hidden" name="dispute" value="${d.id}" />
            <h3 id="evidence-title">${t(l, 'evidenceTitle')}</h3>
            <p>${t(l, 'evidenceHint')}</p>
            ${FORM_FIELDS.map(
              (f) =>
                html`<label for="ev-${f}">${t(l, f)}</label> ${
                    f === 'uncategorized_text'
                      ? html`<textarea id="ev-${f}" name="${f}" maxlength="5000" rows="4"></textarea>`
                      : html`<input id="ev-${f}" name="${f}" maxlength="5000" />`
                  }`,
            )}
            <p><button type="submit">${t(l, 'submit')}</button></p>
          </form>`
        : '';
    return html`<section aria-labelledby="dispute-title-${d.id}">
      <h2 id="dispute-title-${d.id}">${t(l, 'title')} <code>${d.id}</code></h2>
      ${facts([
        [t(l, 'status'), statusBadge(d.status, l, 'dispute-status')],
        [t(l, 'reason'), d.reason],
        [t(l, 'amount'), formatIsk(d.amount, view.locale)],
        [t(l, 'dueBy'), d.evidence_details.past_due ? t(l, 'pastDue', { date: due }) : due],
      ])}
      ${form}
    </section>`;
  })}`;
}

/** The evidence the form sent, non-empty fields only; null when there is none. */
export function evidenceOfForm(req: Request): { dispute: string; evidence: Record<string, string> } | null {
  const evidence: Record<string, string> = {};
  for (const f of FORM_FIELDS) {
    const v = field(req, f).trim();
    if (v !== '') evidence[f] = v.slice(0, 5000);
  }
  return Object.keys(evidence).length === 0 ? null : { dispute: field(req, 'dispute'), evidence };
}
