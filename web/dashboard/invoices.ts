import { Router, type Response } from 'express';
import { formatIsk } from '../../domain/isk';
import { NotFoundError } from '../../domain/errors';
import type { Locale } from '../../domain/locale';
import { html, type SafeHtml } from '../../html/html';
import type { CreditNoteObject, InvoiceObject } from '../../services/invoices/invoice-object';
import { defineMessages } from '../messages';
import type { WebContext } from './context';
import { sendDownload } from './download';
import {
  afterCursor,
  facts,
  loadOrSendFailure,
  merchantView,
  nextPage,
  sendMerchantPage,
  table,
  when,
  type MerchantView,
} from './frame';
import { statusBadge } from './status-badge';

const t = defineMessages({
  en: {
    title: 'Invoices',
    detail: 'Invoice {number}',
    number: 'Number',
    total: 'Total',
    vat: 'VAT',
    credited: 'Credited',
    status: 'Status',
    customer: 'Customer',
    buyer: 'Buyer',
    subscription: 'Subscription',
    payment: 'Payment',
    issued: 'Issued',
    supplied: 'Supplied',
    due: 'Due date (gjalddagi)',
    finalDue: 'Final due date (eindagi)',
    reference: 'Payment reference',
    none: 'No invoices.',
    older: 'Older invoices',
    documents: 'Documents',
    pdf: 'PDF of invoice {number}',
    ubl: 'E-invoice (UBL) of invoice {number}',
    noEinvoice:
      'No e-invoice: the buyer is a consumer, or the buyer or seller lacks a kennitala or address. The PDF is the invoice.',
    claim: 'Krafa',
    lines: 'Lines',
    description: 'Description',
    quantity: 'Quantity',
    unit: 'Unit price',
    amount: 'Amount',
    rate: 'VAT rate',
    creditNotes: 'Credit notes',
    creditNote: 'Credit note',
    refund: 'Refund',
    noCreditNotes: 'No credit notes.',
    creditUbl: 'E-invoice (UBL) of credit note {number}',
    delivery: 'Delivery',
    deliveryMethod_peppol: 'Peppol',
    deliveryMethod_email: 'E-mail',
    noDelivery: 'Not sent',
  },
  is: {
    title: 'Reikningar',
    detail: 'Reikningur {number}',
    number: 'Númer',
    total: 'Samtals',
    vat: 'VSK',
    credited: 'Kreditfært',
    status: 'Staða',
    customer: 'Viðskiptavinur',
    buyer: 'Kaupandi',
    subscription: 'Áskrift',
    payment: 'Greiðsla',
    issued: 'Útgefinn',
    supplied: 'Afhent',
    due: 'Gjalddagi',
    finalDue: 'Eindagi',
    reference: 'Greiðslutilvísun',
    none: 'Engir reikningar.',
    older: 'Eldri reikningar',
    documents: 'Skjöl',
    pdf: 'PDF reiknings {number}',
    ubl: 'Rafrænn reikningur (UBL) {number}',
    noEinvoice:
      'Enginn rafrænn reikningur: kaupandi er neytandi, eða kennitölu eða heimilisfang vantar hjá kaupanda eða seljanda. PDF-skjalið er reikningurinn.',
    claim: 'Krafa',
    lines: 'Línur',
    description: 'Lýsing',
    quantity: 'Magn',
    unit: 'Einingarverð',
    amount: 'Upphæð',
    rate: 'VSK-hlutfall',
    creditNotes: 'Kreditreikningar',
    creditNote: 'Kreditreikningur',
    refund: 'Endurgreiðsla',
    noCreditNotes: 'Engir kreditreikningar.',
    creditUbl: 'Rafrænn kreditreikningur (UBL) {number}',
    delivery: 'Sending',
    deliveryMethod_peppol: 'Peppol',
    deliveryMethod_email: 'Tölvupóstur',
    noDelivery: 'Ekki sendur',
  },
});

/**
 * A table of invoices, each linking to its page: the invoices list, and the sections of a payment,
 * a subscription and a customer that link their invoices (decision 0233).
 */
export function invoiceTable(
  l: Locale,
  invoices: readonly InvoiceObject[],
  opts: { caption?: string } = {},
): SafeHtml {
  return table(
    opts.caption ?? t(l, 'title'),
    [t(l, 'number'), t(l, 'total'), t(l, 'credited'), t(l, 'status'), t(l, 'issued')],
    invoices.map(
      (i) =>
        html`<tr data-invoice="${i.id}">
          <td><a href="/dashboard/invoices/${i.id}">${i.number}</a></td>
          <td>${formatIsk(i.total, l)}</td>
          <td>${i.amount_credited ? formatIsk(i.amount_credited, l) : '—'}</td>
          <td>${statusBadge(i.status, l)}</td>
          <td>${when(i.issued_at, l)}</td>
        </tr>`,
    ),
    t(l, 'none'),
  );
}

/** An invoice section with its heading, for the pages that link their invoices. */
export function invoicesSection(l: Locale, invoices: readonly InvoiceObject[]): SafeHtml {
  return html`<section aria-labelledby="invoices-title">
    <h2 id="invoices-title">${t(l, 'title')}</h2>
    ${invoiceTable(l, invoices)}
  </section>`;
}

/** A document of the invoices pages, downloaded (decision 0233). */
const sendDocument = (
  res: Response,
  view: MerchantView,
  type: string,
  filename: string,
  load: () => Promise<string | Buffer>,
) => sendDownload(res, view, { type, filename, title: t(view.locale, 'title') }, load);

/**
 * A credit note's delivery, as the invoice's (decisions 0219, 0237): method, status, and for a
 * refused one the rule ids.
 */
function creditNoteDelivery(l: Locale, d: CreditNoteObject['delivery']): SafeHtml | string {
  if (!d) return t(l, 'noDelivery');
  return html`${t(l, `deliveryMethod_${d.method}`)} ${statusBadge(d.status, l, 'credit-note-delivery-status')}
  ${
    d.failure_reasons.length > 0
      ? html`<ul data-testid="credit-note-delivery-reasons">
          ${d.failure_reasons.map((r) => html`<li><code>${r.rule}</code> ${r.message}</li>`)}
        </ul>`
      : ''
  }`;
}

/** `/dashboard/invoices`: the list, an invoice's page with its lines and credit notes, its PDF and UBL. */
export function invoicePages(ctx: WebContext): Router {
  const router = Router();
  // Read per request: the route list (dashboardRoutes) builds this router over no services.
  const invoicesOf = () => ctx.services.data.invoices;

  router.get('/dashboard/invoices', async (req, res) => {
    const view = merchantView(req, res);
    const l = view.locale;
    const after = afterCursor(req);
    const page = await loadOrSendFailure(res, view, t(l, 'title'), () =>
      invoicesOf().list(view.scope, { limit: 25, ...(after && { startingAfter: after }) }),
    );
    if (!page) return;
    const last = page.data[page.data.length - 1];
    const body = html`${invoiceTable(l, page.data)}
    ${nextPage(page.hasMore && last ? `/dashboard/invoices?after=${last.id}` : null, t(l, 'older'))}`;
    sendMerchantPage(res, view, body, { title: t(l, 'title') });
  });

  router.get('/dashboard/invoices/:id', async (req, res) => {
    const view = merchantView(req, res);
    const l = view.locale;
    const i = await loadOrSendFailure(res, view, t(l, 'title'), () =>
      invoicesOf().retrieve(view.scope, String(req.params.id)),
    );
    if (!i) return;
    const notes = await invoicesOf().listCreditNotes(view.scope, { limit: 100, invoice: i.id });
    const isk = (n: number) => formatIsk(n, l);
    const body = html`${facts([
        [t(l, 'number'), i.number],
        [t(l, 'status'), statusBadge(i.status, l, 'invoice-status')],
        [t(l, 'total'), isk(i.total)],
        [t(l, 'vat'), isk(i.total_vat)],
        [t(l, 'credited'), html`<span data-testid="amount-credited">${isk(i.amount_credited)}</span>`],
        [t(l, 'buyer'), [i.buyer.name, i.buyer.email, i.buyer.kennitala].filter(Boolean).join(' · ') || '—'],
        [
          t(l, 'customer'),
          i.customer ? html`<a href="/dashboard/customers/${i.customer}">${i.customer}</a>` : '—',
        ],
        [
          t(l, 'subscription'),
          i.subscription
            ? html`<a href="/dashboard/subscriptions/${i.subscription}">${i.subscription}</a>`
            : '—',
        ],
        [
          t(l, 'payment'),
          i.payment_intent
            ? html`<a href="/dashboard/payments/${i.payment_intent}">${i.payment_intent}</a>`
            : '—',
        ],
        ...(i.claim
          ? [
              [t(l, 'claim'), html`<a href="/dashboard/claims/${i.claim}">${i.claim}</a>`] as [
                string,
                SafeHtml,
              ],
            ]
          : []),
        [t(l, 'issued'), when(i.issued_at, l)],
        [t(l, 'supplied'), when(i.supplied_at, l)],
        [t(l, 'due'), i.due_date ?? '—'],
        [t(l, 'finalDue'), i.final_due_date ?? '—'],
        [t(l, 'reference'), i.payment_reference],
      ])}
      <h2>${t(l, 'documents')}</h2>
      <ul>
        <li><a href="/dashboard/invoices/${i.id}/invoice.pdf">${t(l, 'pdf', { number: i.number })}</a></li>
        <li>
          ${
            i.einvoice
              ? html`<a href="/dashboard/invoices/${i.id}/invoice.xml"
                  >${t(l, 'ubl', { number: i.number })}</a
                >`
              : html`<span data-testid="no-einvoice">${t(l, 'noEinvoice')}</span>`
          }
        </li>
      </ul>
      <h2>${t(l, 'lines')}</h2>
      ${table(
        t(l, 'lines'),
        [t(l, 'description'), t(l, 'quantity'), t(l, 'unit'), t(l, 'amount'), t(l, 'rate')],
        i.lines.map(
          (line) =>
            html`<tr>
              <td>${line.description}</td>
              <td>${String(line.quantity)}</td>
              <td>${isk(line.unit_amount)}</td>
              <td>${isk(line.amount)}</td>
              <td>${String(line.vat_rate)} %</td>
            </tr>`,
        ),
        '',
      )}
      <h2>${t(l, 'creditNotes')}</h2>
      ${table(
        t(l, 'creditNotes'),
        [t(l, 'creditNote'), t(l, 'total'), t(l, 'refund'), t(l, 'issued'), t(l, 'delivery'), 'UBL'],
        notes.data.map(
          (n) =>
            html`<tr data-credit-note="${n.id}">
              <td>${n.number}</td>
              <td>${isk(n.total)}</td>
              <td><code>${n.refund}</code></td>
              <td>${when(n.issued_at, l)}</td>
              <td>${creditNoteDelivery(l, n.delivery)}</td>
              <td>
                <a href="/dashboard/invoices/${i.id}/credit-notes/${n.id}"
                  >${t(l, 'creditUbl', { number: n.number })}</a
                >
              </td>
            </tr>`,
        ),
        t(l, 'noCreditNotes'),
      )}`;
    sendMerchantPage(res, view, body, { title: t(l, 'detail', { number: i.number }) });
  });

  router.get('/dashboard/invoices/:id/invoice.pdf', async (req, res) => {
    const view = merchantView(req, res);
    const id = String(req.params.id);
    await sendDocument(res, view, 'application/pdf', `${id}.pdf`, () => invoicesOf().pdf(view.scope, id));
  });

  router.get('/dashboard/invoices/:id/invoice.xml', async (req, res) => {
    const view = merchantView(req, res);
    const id = String(req.params.id);
    await sendDocument(res, view, 'application/xml', `${id}.xml`, () => invoicesOf().ubl(view.scope, id));
  });

  // A credit note's UBL, under its own invoice: a note of another invoice is not found here.
  router.get('/dashboard/invoices/:id/credit-notes/:note', async (req, res) => {
    const view = merchantView(req, res);
    const id = String(req.params.id);
    const note = String(req.params.note);
    await sendDocument(res, view, 'application/xml', `${note}.xml`, async () => {
      const found = await invoicesOf().retrieveCreditNote(view.scope, note);
      if (found.invoice !== id) throw new NotFoundError(`No such credit note: '${note}'`, 'id');
      return invoicesOf().creditNoteUbl(view.scope, note);
    });
  });

  return router;
}
