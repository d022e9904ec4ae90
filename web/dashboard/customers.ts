import { Router } from 'express';
import { isBusinessBuyer } from '../../domain/einvoice-parties';
import { formatIsk } from '../../domain/isk';
import { html, type SafeHtml } from '../../html/html';
import { defineMessages } from '../messages';
import type { WebContext } from './context';
import {
  afterCursor,
  facts,
  loadOrSendFailure,
  merchantView,
  nextPage,
  sendMerchantPage,
  table,
  when,
} from './frame';
import { statusBadge } from './status-badge';
import { invoicesSection } from './invoices';

const t = defineMessages({
  en: {
    title: 'Customers',
    search: 'Find by e-mail or kennitala',
    find: 'Find',
    name: 'Name',
    email: 'E-mail',
    kennitala: 'Kennitala',
    created: 'Created',
    none: 'No customers match.',
    older: 'Older customers',
    detail: 'Customer {id}',
    phone: 'Phone',
    methods: 'Payment methods',
    card: 'Card',
    expires: 'Expires',
    noMethods: 'No payment methods.',
    subscriptions: 'Subscriptions',
    subscription: 'Subscription',
    status: 'Status',
    price: 'Price',
    noSubscriptions: 'No subscriptions.',
    claims: 'Kröfur',
    krafa: 'Krafa',
    amount: 'Amount',
    due: 'Due',
    noClaims: 'No kröfur.',
    payments: 'Payments',
    payment: 'Payment',
    noPayments: 'No payments.',
    timeline: 'Timeline',
    noTimeline: 'Nothing yet.',
    address: 'Address',
    buyer: 'Buys as',
    business: 'A business',
    consumer: 'A consumer',
    gln: 'GLN',
    peppolId: 'Peppol id',
    einvoices: 'E-invoices (Peppol)',
    einvoiceYes: 'Yes',
    einvoiceNo: 'No: the PDF is the invoice (a consumer, or kennitala or address missing)',
    delivery: 'Invoice delivery',
    delivery_peppol: 'Peppol',
    delivery_email: 'E-mail with PDF',
    delivery_none: 'None',
    tlPayment: 'Payment',
    tlSubscription: 'Subscription started',
    tlSubscriptionEnded: 'Subscription ended',
    tlClaim: 'Krafa created',
    tlInvoice: 'Invoice issued',
    edit: 'Edit buyer details and invoice delivery',
  },
  is: {
    title: 'Viðskiptavinir',
    search: 'Finna eftir netfangi eða kennitölu',
    find: 'Finna',
    name: 'Nafn',
    email: 'Netfang',
    kennitala: 'Kennitala',
    created: 'Stofnaður',
    none: 'Engir viðskiptavinir passa.',
    older: 'Eldri viðskiptavinir',
    detail: 'Viðskiptavinur {id}',
    phone: 'Sími',
    methods: 'Greiðslumátar',
    card: 'Kort',
    expires: 'Gildir til',
    noMethods: 'Engir greiðslumátar.',
    subscriptions: 'Áskriftir',
    subscription: 'Áskrift',
    status: 'Staða',
    price: 'Verð',
    noSubscriptions: 'Engar áskriftir.',
    claims: 'Kröfur',
    krafa: 'Krafa',
    amount: 'Upphæð',
    due: 'Gjalddagi',
    noClaims: 'Engar kröfur.',
    payments: 'Greiðslur',
    payment: 'Greiðsla',
    noPayments: 'Engar greiðslur.',
    timeline: 'Tímalína',
    noTimeline: 'Ekkert enn.',
    address: 'Heimilisfang',
    buyer: 'Kaupir sem',
    business: 'Fyrirtæki',
    consumer: 'Neytandi',
    gln: 'GLN',
    peppolId: 'Peppol-auðkenni',
    einvoices: 'Rafrænir reikningar (Peppol)',
    einvoiceYes: 'Já',
    einvoiceNo: 'Nei: PDF-skjalið er reikningurinn (neytandi, eða kennitölu eða heimilisfang vantar)',
    delivery: 'Sending reikninga',
    delivery_peppol: 'Peppol',
    delivery_email: 'Tölvupóstur með PDF',
    delivery_none: 'Engin',
    tlPayment: 'Greiðsla',
    tlSubscription: 'Áskrift hófst',
    tlSubscriptionEnded: 'Áskrift lauk',
    tlClaim: 'Krafa stofnuð',
    tlInvoice: 'Reikningur gefinn út',
    edit: 'Breyta kaupandaupplýsingum og sendingu reikninga',
  },
});

/** `/dashboard/customers`: search by e-mail or kennitala, and one customer with everything of theirs. */
export function customerPages(ctx: WebContext): Router {
  const router = Router();
  const { data } = ctx.services;

  router.get('/dashboard/customers', async (req, res) => {
    const view = merchantView(req, res);
    const l = view.locale;
    const q = typeof req.query.q === 'string' ? req.query.q.trim().slice(0, 320) : '';
    const after = afterCursor(req);
    const digits = q.replace(/[\s-]/g, '');
    const filter = q === '' ? {} : /^\d{10}$/.test(digits) ? { kennitala: digits } : { email: q };
    const page = await loadOrSendFailure(res, view, t(l, 'title'), () =>
      data.customers.list(view.scope, {
        limit: 25,
        ...filter,
        ...(after && { startingAfter: after }),
      }),
    );
    if (!page) return;
    const last = page.data[page.data.length - 1];
    const body = html`<form
        method="get"
        action="/dashboard/customers"
        role="search"
        aria-label="${t(l, 'search')}"
      >
        <label for="q">${t(l, 'search')}</label>
        <input id="q" name="q" type="search" value="${q}" maxlength="320" />
        <button type="submit">${t(l, 'find')}</button>
      </form>
      ${table(
        t(l, 'title'),
        [t(l, 'name'), t(l, 'email'), t(l, 'kennitala'), t(l, 'created')],
        page.data.map(
          (c) =>
            html`<tr>
              <td><a href="/dashboard/customers/${c.id}">${c.name ?? c.id}</a></td>
              <td>${c.email ?? '—'}</td>
              <td>${c.kennitala ?? '—'}</td>
              <td>${when(c.created_at, l)}</td>
            </tr>`,
        ),
        t(l, 'none'),
      )}
      ${nextPage(page.hasMore && last ? `/dashboard/customers?after=${last.id}` : null, t(l, 'older'))}`;
    sendMerchantPage(res, view, body, { title: t(l, 'title') });
  });

  router.get('/dashboard/customers/:id', async (req, res) => {
    const view = merchantView(req, res);
    const l = view.locale;
    const c = await loadOrSendFailure(res, view, t(l, 'title'), () =>
      data.customers.retrieve(view.scope, String(req.params.id)),
    );
    if (!c) return;
    const [methods, subs, claims, payments, invoices] = await Promise.all([
      data.paymentMethods.list(view.scope, { limit: 100, customerId: c.id }),
      ctx.services.subscriptions.list(view.scope, { limit: 100, customer: c.id }),
      data.claims.list(view.scope, { customerId: c.id }, { limit: 100 }),
      data.paymentIntents.list(view.scope, { limit: 100, customerId: c.id }),
      data.invoices.list(view.scope, { limit: 100, customerId: c.id }),
    ]);
    // One timeline of what happened with this customer, newest first (decision 0233).
    const isk = (n: number) => formatIsk(n, l);
    const entries: { at: number; kind: string; what: SafeHtml }[] = [
      ...payments.data.map((p) => ({
        at: p.created_at,
        kind: 'payment',
        what: html`${t(l, 'tlPayment')} <a href="/dashboard/payments/${p.id}">${p.description ?? p.id}</a> ·
          ${isk(p.amount)} · ${statusBadge(p.status, l)}`,
      })),
      ...subs.data.flatMap((s) => [
        {
          at: s.created_at,
          kind: 'subscription',
          what: html`${t(l, 'tlSubscription')} <a href="/dashboard/subscriptions/${s.id}">${s.id}</a>`,
        },
        ...(s.ended_at !== null
          ? [
              {
                at: s.ended_at,
                kind: 'subscription-ended',
                what: html`${t(l, 'tlSubscriptionEnded')}
                  <a href="/dashboard/subscriptions/${s.id}">${s.id}</a>`,
              },
            ]
          : []),
      ]),
      ...claims.data.map((k) => ({
        at: k.created_at,
        kind: 'claim',
        what: html`${t(l, 'tlClaim')} <a href="/dashboard/claims/${k.id}">${k.id}</a> · ${isk(k.amount)} ·
          ${statusBadge(k.status, l)}`,
      })),
      ...invoices.data.map((i) => ({
        at: i.issued_at,
        kind: 'invoice',
        what: html`${t(l, 'tlInvoice')} <a href="/dashboard/invoices/${i.id}">${i.number}</a> ·
          ${isk(i.total)}`,
      })),
    ].sort((a, b) => b.at - a.at);
    const body = html`${facts([
        [t(l, 'name'), c.name ?? '—'],
        [t(l, 'email'), c.email ?? '—'],
        [t(l, 'phone'), c.phone ?? '—'],
        [t(l, 'kennitala'), c.kennitala ?? '—'],
        [
          t(l, 'address'),
          c.address?.line1
            ? [c.address.line1, [c.address.postal_code, c.address.city].filter(Boolean).join(' ')]
                .filter(Boolean)
                .join(', ')
            : '—',
        ],
        // Who gets e-invoices and why not (decision 0210), and how they reach the buyer (0217).
        [t(l, 'buyer'), isBusinessBuyer(c) ? t(l, 'business') : t(l, 'consumer')],
        [t(l, 'gln'), c.gln ?? '—'],
        [t(l, 'peppolId'), c.peppol_id ?? '—'],
        [t(l, 'einvoices'), c.einvoice ? t(l, 'einvoiceYes') : t(l, 'einvoiceNo')],
        [t(l, 'delivery'), t(l, `delivery_${c.invoice_settings.delivery_method}`)],
        [t(l, 'created'), when(c.created_at, l)],
      ])}
      ${
        view.can('write_billing')
          ? html`<p>
              <a href="/dashboard/customers/${c.id}/edit" data-testid="customer-edit-link">${t(l, 'edit')}</a>
            </p>`
          : ''
      }
      <section aria-labelledby="timeline-title">
        <h2 id="timeline-title">${t(l, 'timeline')}</h2>
        ${
          entries.length
            ? html`<ol class="timeline" data-testid="customer-timeline">
                ${entries.map(
                  (e) =>
                    html`<li data-kind="${e.kind}">
                      <time datetime="${new Date(e.at * 1000).toISOString()}">${when(e.at, l)}</time>
                      ${e.what}
                    </li>`,
                )}
              </ol>`
            : html`<p class="empty">${t(l, 'noTimeline')}</p>`
        }
      </section>
      ${invoicesSection(l, invoices.data)}
      <h2>${t(l, 'methods')}</h2>
      ${table(
        t(l, 'methods'),
        [t(l, 'card'), t(l, 'expires')],
        methods.data.map(
          (m) =>
            html`<tr>
              <td>${m.card.brand} •••• ${m.card.last4}${m.id === c.default_payment_method ? ' ★' : ''}</td>
              <td>${String(m.card.exp_month).padStart(2, '0')}/${m.card.exp_year}</td>
            </tr>`,
        ),
        t(l, 'noMethods'),
      )}
      <h2>${t(l, 'subscriptions')}</h2>
      ${table(
        t(l, 'subscriptions'),
        [t(l, 'subscription'), t(l, 'status'), t(l, 'price')],
        subs.data.map(
          (s) =>
            html`<tr>
              <td><a href="/dashboard/subscriptions/${s.id}">${s.id}</a></td>
              <td>${statusBadge(s.status, l)}</td>
              <td><code>${s.price}</code></td>
            </tr>`,
        ),
        t(l, 'noSubscriptions'),
      )}
      <h2>${t(l, 'claims')}</h2>
      ${table(
        t(l, 'claims'),
        [t(l, 'krafa'), t(l, 'amount'), t(l, 'status'), t(l, 'due')],
        claims.data.map(
          (k) =>
            html`<tr>
              <td><a href="/dashboard/claims/${k.id}">${k.id}</a></td>
              <td>${formatIsk(k.amount, view.locale)}</td>
              <td>${statusBadge(k.status, l)}</td>
              <td>${k.due_date}</td>
            </tr>`,
        ),
        t(l, 'noClaims'),
      )}
      <h2>${t(l, 'payments')}</h2>
      ${table(
        t(l, 'payments'),
        [t(l, 'payment'), t(l, 'amount'), t(l, 'status'), t(l, 'created')],
        payments.data.map(
          (p) =>
            html`<tr>
              <td><a href="/dashboard/payments/${p.id}">${p.description ?? p.id}</a></td>
              <td>${formatIsk(p.amount, view.locale)}</td>
              <td>${statusBadge(p.status, l)}</td>
              <td>${when(p.created_at, l)}</td>
            </tr>`,
        ),
        t(l, 'noPayments'),
      )}`;
    sendMerchantPage(res, view, body, { title: t(l, 'detail', { id: c.id }) });
  });

  return router;
}
