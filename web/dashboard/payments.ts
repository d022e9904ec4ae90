import { Router, type Request, type Response } from 'express';
import { html, type SafeHtml } from '../../html/html';
import type { Locale } from '../../domain/locale';
import type { InvoiceObject } from '../../services/invoices/invoice-object';
import { formatIsk } from '../../domain/isk';
import { randomBase62 } from '../../domain/ids';
import { defineMessages } from '../messages';
import { field, type WebContext } from './context';
import { requireRecentSignIn } from './reauth';
import {
  afterCursor,
  facts,
  failure,
  loadOrSendFailure,
  merchantView,
  nextPage,
  requireAction,
  sendMerchantPage,
  table,
  timeline,
  when,
} from './frame';
import { disputeMessages, disputeSection, evidenceOfForm } from './payment-dispute';
import { statusBadge } from './status-badge';

const STATUSES = [
  'succeeded',
  'requires_payment_method',
  'requires_action',
  'requires_capture',
  'processing',
  'canceled',
] as const;
const REASONS = ['requested_by_customer', 'duplicate', 'fraudulent'] as const;

const t = defineMessages({
  en: {
    title: 'Payments',
    filters: 'Filter payments',
    status: 'Status',
    any: 'Any',
    search: 'Search by id or description',
    apply: 'Apply',
    payment: 'Payment',
    amount: 'Amount',
    refunded: 'Refunded',
    customer: 'Customer',
    created: 'Created',
    none: 'No payments match.',
    older: 'Older payments',
    detail: 'Payment {id}',
    method: 'Payment method',
    fee: 'Fee',
    net: 'Net',
    description: 'Description',
    timeline: 'Timeline',
    event: 'Event',
    time: 'Time',
    noEvents: 'No events yet.',
    refunds: 'Refunds',
    refund: 'Refund',
    refundTitle: 'Refund this payment',
    refundAmount: 'Amount to refund (ISK, at most {max}; empty refunds all of it)',
    reason: 'Reason',
    reason_requested_by_customer: 'Requested by the customer',
    reason_duplicate: 'Duplicate',
    reason_fraudulent: 'Fraudulent',
    refundButton: 'Refund payment',
    refundedOk: 'Refunded {amount}.',
    notRefundable: 'Nothing is left to refund.',
    noRefunds: 'No refunds.',
    badAmount: 'The amount must be a whole number of krónur (amount).',
    invoice: 'Invoice',
    invoiceNumber: 'Number',
    delivery: 'Delivery to the buyer',
    deliveryMethod_peppol: 'E-invoice (Peppol)',
    deliveryMethod_email: 'E-mail with PDF',
    noDelivery: 'Not sent: the customer chose no delivery',
    receiver: 'Receiver',
    refusedFor: 'Not delivered, for these rules',
  },
  is: {
    title: 'Greiðslur',
    filters: 'Sía greiðslur',
    status: 'Staða',
    any: 'Allar',
    search: 'Leita eftir auðkenni eða lýsingu',
    apply: 'Sía',
    payment: 'Greiðsla',
    amount: 'Upphæð',
    refunded: 'Endurgreitt',
    customer: 'Viðskiptavinur',
    created: 'Stofnuð',
    none: 'Engar greiðslur passa.',
    older: 'Eldri greiðslur',
    detail: 'Greiðsla {id}',
    method: 'Greiðslumáti',
    fee: 'Þóknun',
    net: 'Nettó',
    description: 'Lýsing',
    timeline: 'Tímalína',
    event: 'Atburður',
    time: 'Tími',
    noEvents: 'Engir atburðir enn.',
    refunds: 'Endurgreiðslur',
    refund: 'Endurgreiðsla',
    refundTitle: 'Endurgreiða þessa greiðslu',
    refundAmount: 'Upphæð endurgreiðslu (kr., mest {max}; tómt endurgreiðir allt)',
    reason: 'Ástæða',
    reason_requested_by_customer: 'Að ósk viðskiptavinar',
    reason_duplicate: 'Tvígreitt',
    reason_fraudulent: 'Svik',
    refundButton: 'Endurgreiða',
    refundedOk: 'Endurgreitt: {amount}.',
    notRefundable: 'Ekkert er eftir til að endurgreiða.',
    noRefunds: 'Engar endurgreiðslur.',
    badAmount: 'Upphæðin verður að vera heil tala í krónum (amount).',
    invoice: 'Reikningur',
    invoiceNumber: 'Númer',
    delivery: 'Sending til kaupanda',
    deliveryMethod_peppol: 'Rafrænn reikningur (Peppol)',
    deliveryMethod_email: 'Tölvupóstur með PDF',
    noDelivery: 'Ekki sendur: viðskiptavinurinn valdi enga sendingu',
    receiver: 'Viðtakandi',
    refusedFor: 'Ekki afhentur, vegna þessara reglna',
  },
});

/**
 * The payment's invoice and how it reached the buyer (decision 0219): the delivery's status, and
 * for a refused e-invoice the access point's rule ids.
 */
function invoiceSection(l: Locale, invoice: InvoiceObject | null): SafeHtml | string {
  if (!invoice) return '';
  const d = invoice.delivery;
  const rows: [string, string | SafeHtml][] = [[t(l, 'invoiceNumber'), invoice.number]];
  if (!d) rows.push([t(l, 'delivery'), t(l, 'noDelivery')]);
  else {
    rows.push([
      t(l, 'delivery'),
      html`${t(l, `deliveryMethod_${d.method}`)} ${statusBadge(d.status, l, 'invoice-delivery-status')}`,
    ]);
    if (d.receiver) rows.push([t(l, 'receiver'), html`<code>${d.receiver}</code>`]);
    if (d.failure_reasons.length > 0)
      rows.push([
        t(l, 'refusedFor'),
        html`<ul data-testid="invoice-delivery-reasons">
          ${d.failure_reasons.map((r) => html`<li><code>${r.rule}</code> ${r.message}</li>`)}
        </ul>`,
      ]);
  }
  return html`<section aria-labelledby="invoice-title">
    <h2 id="invoice-title">${t(l, 'invoice')}</h2>
    ${facts(rows)}
  </section>`;
}

/** `/dashboard/payments`: the list with filters and search, a payment's detail and timeline, refunds. */
export function paymentPages(ctx: WebContext): Router {
  const router = Router();
  const { data } = ctx.services;

  router.get('/dashboard/payments', async (req, res) => {
    const view = merchantView(req, res);
    const l = view.locale;
    const status = STATUSES.find((s) => s === req.query.status);
    const search = typeof req.query.q === 'string' ? req.query.q.trim().slice(0, 200) : '';
    const after = afterCursor(req);
    const page = await loadOrSendFailure(res, view, t(l, 'title'), () =>
      data.paymentIntents.list(view.scope, {
        limit: 25,
        ...(status && { status }),
        ...(search && { search }),
        ...(after && { startingAfter: after }),
      }),
    );
    if (!page) return;
    const last = page.data[page.data.length - 1];
    const keep = new URLSearchParams({ ...(status && { status }), ...(search && { q: search }) });
    const body = html`<form
        method="get"
        action="/dashboard/payments"
        role="search"
        aria-label="${t(l, 'filters')}"
      >
        <label for="status">${t(l, 'status')}</label>
        <select id="status" name="status">
          <option value="">${t(l, 'any')}</option>
          ${STATUSES.map((s) => html`<option value="${s}" ${s === status ? 'selected' : ''}>${s}</option>`)}
        </select>
        <label for="q">${t(l, 'search')}</label>
        <input id="q" name="q" type="search" value="${search}" maxlength="200" />
        <button type="submit">${t(l, 'apply')}</button>
      </form>
      ${table(
        t(l, 'title'),
        [
          t(l, 'payment'),
          t(l, 'amount'),
          t(l, 'refunded'),
          t(l, 'status'),
          t(l, 'customer'),
          t(l, 'created'),
        ],
        page.data.map(
          (p) =>
            html`<tr data-payment="${p.id}">
              <td><a href="/dashboard/payments/${p.id}">${p.description ?? p.id}</a></td>
              <td>${formatIsk(p.amount, view.locale)}</td>
              <td>${p.amount_refunded ? formatIsk(p.amount_refunded, view.locale) : '—'}</td>
              <td>${statusBadge(p.status, l)}</td>
              <td>
                ${p.customer ? html`<a href="/dashboard/customers/${p.customer}">${p.customer}</a>` : '—'}
              </td>
              <td>${when(p.created_at, l)}</td>
            </tr>`,
        ),
        t(l, 'none'),
      )}
      ${nextPage(
        page.hasMore && last ? `/dashboard/payments?${keep.toString()}&after=${last.id}` : null,
        t(l, 'older'),
      )}`;
    sendMerchantPage(res, view, body, { title: t(l, 'title') });
  });

  async function detail(req: Request, res: Response, opts: { ok?: string; error?: string; status?: number }) {
    const view = merchantView(req, res);
    const l = view.locale;
    const id = String(req.params.id);
    const p = await loadOrSendFailure(res, view, t(l, 'title'), () =>
      data.paymentIntents.retrieve(view.scope, id),
    );
    if (!p) return;
    const [refunds, events, disputes, invoice] = await Promise.all([
      data.refunds.list(view.scope, { limit: 100, paymentIntentId: p.id }),
      data.events.list(view.scope, { limit: 100, objectId: p.id }),
      p.disputed ? data.disputes.ofPaymentIntent(view.scope, p.id) : Promise.resolve([]),
      data.invoices.ofPayment(view.scope, p.id),
    ]);
    const refundable = p.amount_received - p.amount_refunded;
    const card = p.payment_method_details?.card;
    const refundForm =
      view.can('refund') && p.status === 'succeeded' && refundable > 0
        ? html`<section aria-labelledby="refund-title">
            <h2 id="refund-title">${t(l, 'refundTitle')}</h2>
            <form method="post" action="/dashboard/payments/${p.id}/refund">
              ${view.csrf}
              <input type="hidden" name="refund_key" value="${randomBase62(24)}" />
              <label for="amount">${t(l, 'refundAmount', { max: formatIsk(refundable, view.locale) })}</label>
              <input id="amount" name="amount" inputmode="numeric" pattern="[0-9]*" />
              <label for="reason">${t(l, 'reason')}</label>
              <select id="reason" name="reason">
                ${REASONS.map((r) => html`<option value="${r}">${t(l, `reason_${r}`)}</option>`)}
              </select>
              <p><button type="submit" class="danger">${t(l, 'refundButton')}</button></p>
            </form>
          </section>`
        : p.status === 'succeeded' && refundable <= 0
          ? html`<p>${t(l, 'notRefundable')}</p>`
          : '';
    const body = html`${facts([
        [t(l, 'amount'), formatIsk(p.amount, view.locale)],
        [t(l, 'status'), statusBadge(p.status, l, 'payment-status')],
        [
          t(l, 'refunded'),
          html`<span data-testid="amount-refunded">${formatIsk(p.amount_refunded, view.locale)}</span>`,
        ],
        [t(l, 'fee'), p.fee_amount === null ? '—' : formatIsk(p.fee_amount, view.locale)],
        [t(l, 'net'), p.net_amount === null ? '—' : formatIsk(p.net_amount, view.locale)],
        [t(l, 'method'), card ? `${card.brand} •••• ${card.last4}` : '—'],
        [
          t(l, 'customer'),
          p.customer ? html`<a href="/dashboard/customers/${p.customer}">${p.customer}</a>` : '—',
        ],
        [t(l, 'description'), p.description ?? '—'],
        [t(l, 'created'), when(p.created_at, l)],
      ])}
      ${invoiceSection(view.locale, invoice)} ${disputeSection(view, disputes)} ${refundForm}
      <h2>${t(l, 'refunds')}</h2>
      ${table(
        t(l, 'refunds'),
        [t(l, 'refund'), t(l, 'amount'), t(l, 'status'), t(l, 'created')],
        refunds.data.map(
          (r) =>
            html`<tr>
              <td><code>${r.id}</code></td>
              <td>${formatIsk(r.amount, view.locale)}</td>
              <td>${statusBadge(r.status, l)}</td>
              <td>${when(r.created_at, l)}</td>
            </tr>`,
        ),
        t(l, 'noRefunds'),
      )}
      <h2>${t(l, 'timeline')}</h2>
      ${timeline(events.data, t(l, 'noEvents'), l)}`;
    sendMerchantPage(res, view, body, {
      title: t(l, 'detail', { id: p.id }),
      status: opts.status ?? 200,
      ok: opts.ok,
      error: opts.error,
    });
  }

  router.get('/dashboard/payments/:id', (req, res) => detail(req, res, {}));

  // A refund above the merchant's amount asks for a recent sign-in (decision 0222); no amount is the
  // whole refundable rest, which the payment tells.
  const largeRefund = requireRecentSignIn(ctx, async (req, res) => {
    const view = merchantView(req, res);
    const { reauthRefundAbove } = await ctx.services.secondFactor.merchantSettings(view.scope.merchantId);
    const raw = field(req, 'amount').trim();
    if (/^\d{1,12}$/.test(raw)) return Number(raw) > reauthRefundAbove;
    if (raw !== '') return false;
    const p = await data.paymentIntents.retrieve(view.scope, String(req.params.id)).catch(() => null);
    return p !== null && p.amount_received - p.amount_refunded > reauthRefundAbove;
  });

  router.post('/dashboard/payments/:id/refund', requireAction('refund'), largeRefund, async (req, res) => {
    const view = merchantView(req, res);
    const raw = field(req, 'amount').trim();
    const reason = REASONS.find((r) => r === field(req, 'reason'));
    const key = field(req, 'refund_key');
    if (raw !== '' && !/^\d{1,12}$/.test(raw)) {
      await detail(req, res, { error: t(view.locale, 'badAmount'), status: 400 });
      return;
    }
    try {
      const refund = await data.refunds.refundPaymentIntent(view.scope, String(req.params.id), {
        ...(raw !== '' && { amount: Number(raw) }),
        ...(reason && { reason }),
        // The form's one-time key: a double submit of the same form makes one refund.
        ...(/^[0-9A-Za-z]{24}$/.test(key) && { idempotencyKey: `dashboard:${key}` }),
      });
      await detail(req, res, {
        ok: t(view.locale, 'refundedOk', { amount: formatIsk(refund.amount, view.locale) }),
      });
    } catch (err) {
      const f = failure(err);
      await detail(req, res, { error: f.message, status: f.status });
    }
  });

  // Evidence on the payment's dispute (decision 0156), by members who may refund.
  router.post('/dashboard/payments/:id/dispute', requireAction('refund'), async (req, res) => {
    const view = merchantView(req, res);
    const form = evidenceOfForm(req);
    if (!form) {
      await detail(req, res, { error: disputeMessages(view.locale, 'noEvidence'), status: 400 });
      return;
    }
    try {
      await data.disputes.submitEvidence(view.scope, form.dispute, form.evidence);
      await detail(req, res, { ok: disputeMessages(view.locale, 'submitted') });
    } catch (err) {
      const f = failure(err);
      await detail(req, res, { error: f.message, status: f.status });
    }
  });

  return router;
}
