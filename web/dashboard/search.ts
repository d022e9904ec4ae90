import { Router } from 'express';
import { formatIsk } from '../../domain/isk';
import { html, type SafeHtml } from '../../html/html';
import { SEARCH_MAX_LENGTH, SEARCH_LIMIT } from '../../services/dashboard/search';
import { defineMessages } from '../messages';
import type { WebContext } from './context';
import { merchantView, sendMerchantPage, table, when } from './frame';
import { statusBadge } from './status-badge';

const t = defineMessages({
  en: {
    title: 'Search',
    resultsFor: 'Search: {q}',
    label: 'Search payments, customers, kröfur, invoices',
    hint: 'An id, amount, last four digits of a card, name, e-mail, kennitala, krafa or invoice number.',
    submit: 'Search',
    payments: 'Payments',
    customers: 'Customers',
    subscriptions: 'Subscriptions',
    claims: 'Kröfur',
    invoices: 'Invoices',
    none: 'Nothing found.',
    nothing: 'Nothing of this merchant in this mode matches “{q}”.',
    limited: 'The newest {limit} of each kind are shown.',
    id: 'Id',
    amount: 'Amount',
    status: 'Status',
    card: 'Card',
    description: 'Description',
    created: 'Created',
    name: 'Name',
    email: 'E-mail',
    kennitala: 'Kennitala',
    customer: 'Customer',
    number: 'Number',
    payer: 'Payer',
    due: 'Due',
    total: 'Total',
    issued: 'Issued',
  },
  is: {
    title: 'Leit',
    resultsFor: 'Leit: {q}',
    label: 'Leita í greiðslum, viðskiptavinum, kröfum, reikningum',
    hint: 'Auðkenni, upphæð, síðustu fjórir stafir korts, nafn, netfang, kennitala, númer kröfu eða reiknings.',
    submit: 'Leita',
    payments: 'Greiðslur',
    customers: 'Viðskiptavinir',
    subscriptions: 'Áskriftir',
    claims: 'Kröfur',
    invoices: 'Reikningar',
    none: 'Ekkert fannst.',
    nothing: 'Ekkert hjá þessum söluaðila í þessum ham passar við „{q}“.',
    limited: 'Nýjustu {limit} af hverri gerð eru sýnd.',
    id: 'Auðkenni',
    amount: 'Upphæð',
    status: 'Staða',
    card: 'Kort',
    description: 'Lýsing',
    created: 'Stofnað',
    name: 'Nafn',
    email: 'Netfang',
    kennitala: 'Kennitala',
    customer: 'Viðskiptavinur',
    number: 'Númer',
    payer: 'Greiðandi',
    due: 'Gjalddagi',
    total: 'Samtals',
    issued: 'Útgefinn',
  },
});

const unix = (d: Date) => Math.floor(d.getTime() / 1000);

/** `/dashboard/search?q=`: what matches, by kind, in the member's merchant and the mode shown. */
export function searchPages(ctx: WebContext): Router {
  const router = Router();
  const { search } = ctx.services;

  router.get('/dashboard/search', async (req, res) => {
    const view = merchantView(req, res);
    const l = view.locale;
    const q = typeof req.query.q === 'string' ? req.query.q.trim().slice(0, SEARCH_MAX_LENGTH) : '';
    const found = await search.search(view.scope, q);
    const isk = (n: number) => formatIsk(n, l);
    const form = html`<form
      method="get"
      action="/dashboard/search"
      role="search"
      aria-label="${t(l, 'title')}"
    >
      <label for="q">${t(l, 'label')}</label>
      <p class="hint" id="q-hint">${t(l, 'hint')}</p>
      <input
        id="q"
        name="q"
        type="search"
        value="${q}"
        maxlength="${SEARCH_MAX_LENGTH}"
        aria-describedby="q-hint"
      />
      <button type="submit">${t(l, 'submit')}</button>
    </form>`;
    if (!found) {
      sendMerchantPage(res, view, form, { title: t(l, 'title') });
      return;
    }
    const total =
      found.payments.length +
      found.customers.length +
      found.subscriptions.length +
      found.claims.length +
      found.invoices.length;
    const section = (id: string, title: string, headers: string[], rows: SafeHtml[]) =>
      rows.length
        ? html`<section aria-labelledby="${id}" data-kind="${id}">
            <h2 id="${id}">${title}</h2>
            ${table(title, headers, rows, t(l, 'none'))}
          </section>`
        : '';
    const body = html`${form}
    ${
      total === 0
        ? html`<p class="empty">${t(l, 'nothing', { q })}</p>`
        : html`<p class="hint">${t(l, 'limited', { limit: SEARCH_LIMIT })}</p>`
    }
    ${section(
      'found-payments',
      t(l, 'payments'),
      [t(l, 'id'), t(l, 'amount'), t(l, 'status'), t(l, 'card'), t(l, 'created')],
      found.payments.map(
        (p) =>
          html`<tr data-hit="${p.id}">
            <td><a href="/dashboard/payments/${p.id}">${p.description ?? p.id}</a></td>
            <td>${isk(Number(p.amount))}</td>
            <td>${statusBadge(p.status, l)}</td>
            <td>${p.card_last4 ? `•••• ${p.card_last4}` : '—'}</td>
            <td>${when(unix(p.created_at), l)}</td>
          </tr>`,
      ),
    )}
    ${section(
      'found-customers',
      t(l, 'customers'),
      [t(l, 'name'), t(l, 'email'), t(l, 'kennitala'), t(l, 'created')],
      found.customers.map(
        (c) =>
          html`<tr data-hit="${c.id}">
            <td><a href="/dashboard/customers/${c.id}">${c.name ?? c.id}</a></td>
            <td>${c.email ?? '—'}</td>
            <td>${c.kennitala ?? '—'}</td>
            <td>${when(unix(c.created_at), l)}</td>
          </tr>`,
      ),
    )}
    ${section(
      'found-subscriptions',
      t(l, 'subscriptions'),
      [t(l, 'id'), t(l, 'status'), t(l, 'customer'), t(l, 'created')],
      found.subscriptions.map(
        (s) =>
          html`<tr data-hit="${s.id}">
            <td><a href="/dashboard/subscriptions/${s.id}">${s.id}</a></td>
            <td>${statusBadge(s.status, l)}</td>
            <td><a href="/dashboard/customers/${s.customer_id}">${s.customer_name ?? s.customer_id}</a></td>
            <td>${when(unix(s.created_at), l)}</td>
          </tr>`,
      ),
    )}
    ${section(
      'found-claims',
      t(l, 'claims'),
      [t(l, 'number'), t(l, 'amount'), t(l, 'status'), t(l, 'payer'), t(l, 'due')],
      found.claims.map(
        (k) =>
          html`<tr data-hit="${k.id}">
            <td><a href="/dashboard/claims/${k.id}">${String(k.claim_number)}</a></td>
            <td>${isk(Number(k.amount))}</td>
            <td>${statusBadge(k.status, l)}</td>
            <td>${k.payer_kennitala}</td>
            <td>${k.due_date}</td>
          </tr>`,
      ),
    )}
    ${section(
      'found-invoices',
      t(l, 'invoices'),
      [t(l, 'number'), t(l, 'total'), t(l, 'status'), t(l, 'issued')],
      found.invoices.map(
        (i) =>
          html`<tr data-hit="${i.id}">
            <td><a href="/dashboard/invoices/${i.id}">${i.number}</a></td>
            <td>${isk(Number(i.total))}</td>
            <td>${statusBadge(i.status, l)}</td>
            <td>${when(unix(i.issued_at), l)}</td>
          </tr>`,
      ),
    )}`;
    sendMerchantPage(res, view, body, { title: t(l, 'resultsFor', { q }) });
  });

  return router;
}
