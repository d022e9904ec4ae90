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
import { invoicesSection } from './invoices';
import { PAYMENT_SORTS, readPaymentFilter, type FilterError } from '../../services/dashboard/payment-list';

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
    apply: 'Apply',
    from: 'Created from (date)',
    to: 'Created to (date)',
    min: 'Amount at least (ISK)',
    max: 'Amount at most (ISK)',
    customerId: 'Customer id',
    kind: 'Payment kind',
    kind_card: 'Card',
    kind_krafa: 'Krafa',
    sort: 'Sort by',
    sort_created_desc: 'Newest first',
    sort_created_asc: 'Oldest first',
    sort_amount_desc: 'Largest amount first',
    sort_amount_asc: 'Smallest amount first',
    export: 'Export these payments as CSV',
    fixFilters: 'Some filters are not valid; correct them below.',
    error_choice: 'Choose one of the options.',
    error_date: 'Write a date as yyyy-mm-dd.',
    error_reversed: 'This must not come before the first one.',
    error_amount: 'Write a whole number of krónur.',
    error_id: 'Write a customer id (cus_…).',
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
    apply: 'Sía',
    from: 'Stofnuð frá (dagsetning)',
    to: 'Stofnuð til (dagsetning)',
    min: 'Upphæð minnst (kr.)',
    max: 'Upphæð mest (kr.)',
    customerId: 'Auðkenni viðskiptavinar',
    kind: 'Greiðsluleið',
    kind_card: 'Kort',
    kind_krafa: 'Krafa',
    sort: 'Röðun',
    sort_created_desc: 'Nýjustu fyrst',
    sort_created_asc: 'Elstu fyrst',
    sort_amount_desc: 'Hæsta upphæð fyrst',
    sort_amount_asc: 'Lægsta upphæð fyrst',
    export: 'Sækja þessar greiðslur sem CSV',
    fixFilters: 'Sumar síur eru ógildar; lagaðu þær hér fyrir neðan.',
    error_choice: 'Veldu einn af kostunum.',
    error_date: 'Skrifaðu dagsetningu sem áááá-mm-dd.',
    error_reversed: 'Þetta má ekki vera á undan hinu fyrra.',
    error_amount: 'Skrifaðu heila tölu í krónum.',
    error_id: 'Skrifaðu auðkenni viðskiptavinar (cus_…).',
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
  const { data, paymentList } = ctx.services;

  router.get('/dashboard/payments', async (req, res) => {
    const view = merchantView(req, res);
    const l = view.locale;
    const read = readPaymentFilter(req.query);
    const errorOf = (param: FilterError['param']) => read.errors.find((e) => e.param === param);
    const field = (
      param: 'from' | 'to' | 'min' | 'max' | 'customer',
      label: string,
      attrs: { type: string; inputmode?: string },
    ) => {
      const error = errorOf(param);
      return html`<div class="filter-field">
        <label for="f-${param}">${label}</label>
        <input
          id="f-${param}"
          name="${param}"
          type="${attrs.type}"
          ${attrs.inputmode ? html`inputmode="${attrs.inputmode}"` : ''}
          value="${read.values[param]}"
          maxlength="100"
          ${error ? html`aria-invalid="true" aria-describedby="f-${param}-error"` : ''}
        />
        ${
          error
            ? html`<p class="field-error" id="f-${param}-error" data-error="${param}">
                ${t(l, `error_${error.code}`)}
              </p>`
            : ''
        }
      </div>`;
    };
    const choice = (param: 'status' | 'kind' | 'sort', label: string, options: [string, string][]) => {
      const error = errorOf(param);
      return html`<div class="filter-field">
        <label for="f-${param}">${label}</label>
        <select
          id="f-${param}"
          name="${param}"
          ${error ? html`aria-invalid="true" aria-describedby="f-${param}-error"` : ''}
        >
          ${options.map(
            ([value, text]) =>
              html`<option value="${value}" ${value === read.values[param] ? 'selected' : ''}>
                ${text}
              </option>`,
          )}
        </select>
        ${
          error
            ? html`<p class="field-error" id="f-${param}-error" data-error="${param}">
                ${t(l, 'error_choice')}
              </p>`
            : ''
        }
      </div>`;
    };
    const keep = new URLSearchParams(Object.entries(read.values).filter(([, v]) => v !== '')).toString();
    const form = html`<form
      method="get"
      action="/dashboard/payments"
      role="search"
      aria-label="${t(l, 'filters')}"
      class="filters"
    >
      ${choice('status', t(l, 'status'), [
        ['', t(l, 'any')],
        ...STATUSES.map((s): [string, string] => [s, s]),
      ])}
      ${field('from', t(l, 'from'), { type: 'date' })} ${field('to', t(l, 'to'), { type: 'date' })}
      ${field('min', t(l, 'min'), { type: 'text', inputmode: 'numeric' })}
      ${field('max', t(l, 'max'), { type: 'text', inputmode: 'numeric' })}
      ${field('customer', t(l, 'customerId'), { type: 'text' })}
      ${choice('kind', t(l, 'kind'), [
        ['', t(l, 'any')],
        ['card', t(l, 'kind_card')],
        ['krafa', t(l, 'kind_krafa')],
      ])}
      ${choice(
        'sort',
        t(l, 'sort'),
        PAYMENT_SORTS.map((s): [string, string] => [s === 'created_desc' ? '' : s, t(l, `sort_${s}`)]),
      )}
      <p><button type="submit">${t(l, 'apply')}</button></p>
    </form>`;
    if (read.errors.length > 0) {
      sendMerchantPage(res, view, form, { title: t(l, 'title'), status: 400, error: t(l, 'fixFilters') });
      return;
    }
    const after = afterCursor(req);
    const page = await loadOrSendFailure(res, view, t(l, 'title'), () =>
      paymentList.page(view.scope, read, { limit: 25, ...(after && { after }) }),
    );
    if (!page) return;
    const last = page.data[page.data.length - 1];
    const body = html`${form}
    ${
      view.can('read_settlement')
        ? html`<p>
            <a href="/dashboard/payments/export.csv${keep ? `?${keep}` : ''}" download>${t(l, 'export')}</a>
          </p>`
        : ''
    }
    ${table(
      t(l, 'title'),
      [
        t(l, 'payment'),
        t(l, 'amount'),
        t(l, 'refunded'),
        t(l, 'status'),
        t(l, 'kind'),
        t(l, 'customer'),
        t(l, 'created'),
      ],
      page.data.map(
        (p) =>
          html`<tr data-payment="${p.id}">
            <td><a href="/dashboard/payments/${p.id}">${p.description ?? p.id}</a></td>
            <td>${formatIsk(Number(p.amount), view.locale)}</td>
            <td>${Number(p.amount_refunded) ? formatIsk(Number(p.amount_refunded), view.locale) : '—'}</td>
            <td>${statusBadge(p.status, l)}</td>
            <td>${t(l, `kind_${p.kind}`)}</td>
            <td>
              ${
                p.customer_id
                  ? html`<a href="/dashboard/customers/${p.customer_id}">${p.customer_id}</a>`
                  : '—'
              }
            </td>
            <td>${when(Math.floor(p.created_at.getTime() / 1000), l)}</td>
          </tr>`,
      ),
      t(l, 'none'),
    )}
    ${nextPage(
      page.hasMore && last ? `/dashboard/payments?${keep ? `${keep}&` : ''}after=${last.id}` : null,
      t(l, 'older'),
    )}`;
    sendMerchantPage(res, view, body, { title: t(l, 'title') });
  });

  // The filtered list as CSV, streamed a page at a time (decision 0232); fees and net are in it,
  // so only members who may read settlement figures may export.
  router.get('/dashboard/payments/export.csv', requireAction('read_settlement'), async (req, res) => {
    const view = merchantView(req, res);
    const read = readPaymentFilter(req.query);
    if (read.errors.length > 0) {
      const e = read.errors[0]!;
      sendMerchantPage(res, view, html``, {
        title: t(view.locale, 'title'),
        status: 400,
        error: `${t(view.locale, `error_${e.code}`)} (${e.param})`,
      });
      return;
    }
    res.status(200).type('text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', 'attachment; filename="payments.csv"');
    res.setHeader('Cache-Control', 'no-store');
    const closed = () => res.destroyed || res.writableEnded;
    try {
      for await (const chunk of paymentList.csv(view.scope, read)) {
        if (closed()) return;
        // Back-pressure: the next page is read only once the client has taken this one.
        if (!res.write(chunk)) await new Promise((done) => res.once('drain', done).once('close', done));
      }
      if (!closed()) res.end();
    } catch (err) {
      // The status line is sent: a cut-off download is the only honest answer left.
      ctx.log.error({ err }, 'payments export failed');
      res.destroy();
    }
  });

  async function detail(req: Request, res: Response, opts: { ok?: string; error?: string; status?: number }) {
    const view = merchantView(req, res);
    const l = view.locale;
    const id = String(req.params.id);
    const p = await loadOrSendFailure(res, view, t(l, 'title'), () =>
      data.paymentIntents.retrieve(view.scope, id),
    );
    if (!p) return;
    const [refunds, events, disputes, invoice, invoices] = await Promise.all([
      data.refunds.list(view.scope, { limit: 100, paymentIntentId: p.id }),
      data.events.list(view.scope, { limit: 100, objectId: p.id }),
      p.disputed ? data.disputes.ofPaymentIntent(view.scope, p.id) : Promise.resolve([]),
      data.invoices.ofPayment(view.scope, p.id),
      data.invoices.list(view.scope, { limit: 1, paymentIntentId: p.id }),
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
      ${invoices.data.length ? invoicesSection(l, invoices.data) : ''} ${invoiceSection(view.locale, invoice)}
      ${disputeSection(view, disputes)} ${refundForm}
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
