import { Router, type Request, type Response } from 'express';
import { html } from '../../html/html';
import { SUBSCRIPTION_STATUSES } from '../../domain/subscription';
import { defineMessages } from '../messages';
import { field, type WebContext } from './context';
import {
  facts,
  failure,
  merchantView,
  nextPage,
  requireAction,
  sendMerchantPage,
  table,
  when,
} from './frame';
import { statusBadge } from './status-badge';
import { invoicesSection } from './invoices';

const ENDED = ['canceled', 'incomplete_expired'];

const t = defineMessages({
  en: {
    title: 'Subscriptions',
    filters: 'Filter subscriptions',
    status: 'Status',
    any: 'Any',
    apply: 'Apply',
    subscription: 'Subscription',
    customer: 'Customer',
    price: 'Price',
    periodEnd: 'Current period ends',
    created: 'Created',
    none: 'No subscriptions match.',
    older: 'Older subscriptions',
    detail: 'Subscription {id}',
    quantity: 'Quantity',
    collection: 'Collection',
    cancelAtEnd: 'Cancels at period end',
    pending: 'Price from next period',
    yes: 'Yes',
    no: 'No',
    changePrice: 'Change price',
    newPrice: 'New price',
    when: 'When',
    nextPeriod: 'From the next period',
    now: 'Now, with prorations',
    changeButton: 'Change price',
    changed: 'The subscription is updated.',
    cancel: 'Cancel subscription now',
    canceled: 'The subscription is canceled.',
    badPrice: 'Choose a recurring price (price).',
  },
  is: {
    title: 'Áskriftir',
    filters: 'Sía áskriftir',
    status: 'Staða',
    any: 'Allar',
    apply: 'Sía',
    subscription: 'Áskrift',
    customer: 'Viðskiptavinur',
    price: 'Verð',
    periodEnd: 'Tímabili lýkur',
    created: 'Stofnuð',
    none: 'Engar áskriftir passa.',
    older: 'Eldri áskriftir',
    detail: 'Áskrift {id}',
    quantity: 'Magn',
    collection: 'Innheimta',
    cancelAtEnd: 'Lýkur í lok tímabils',
    pending: 'Verð frá næsta tímabili',
    yes: 'Já',
    no: 'Nei',
    changePrice: 'Breyta verði',
    newPrice: 'Nýtt verð',
    when: 'Hvenær',
    nextPeriod: 'Frá næsta tímabili',
    now: 'Strax, hlutfallslega',
    changeButton: 'Breyta verði',
    changed: 'Áskriftinni var breytt.',
    cancel: 'Segja áskrift upp strax',
    canceled: 'Áskriftinni var sagt upp.',
    badPrice: 'Veldu endurtekið verð (price).',
  },
});

/** `/dashboard/subscriptions`: list, detail, cancel now, and change the price. */
export function subscriptionPages(ctx: WebContext): Router {
  const router = Router();
  const { subscriptions, data } = ctx.services;

  router.get('/dashboard/subscriptions', async (req, res) => {
    const view = merchantView(req, res);
    const l = view.locale;
    const status = SUBSCRIPTION_STATUSES.find((s) => s === req.query.status);
    const after = typeof req.query.after === 'string' ? req.query.after.slice(0, 100) : undefined;
    let page;
    try {
      page = await subscriptions.list(view.scope, {
        limit: 25,
        ...(status && { status }),
        ...(after && { startingAfter: after }),
      });
    } catch (err) {
      const f = failure(err);
      sendMerchantPage(res, view, html``, { title: t(l, 'title'), status: f.status, error: f.message });
      return;
    }
    const last = page.data[page.data.length - 1];
    const body = html`<form method="get" action="/dashboard/subscriptions" aria-label="${t(l, 'filters')}">
        <label for="status">${t(l, 'status')}</label>
        <select id="status" name="status">
          <option value="">${t(l, 'any')}</option>
          ${SUBSCRIPTION_STATUSES.map(
            (s) => html`<option value="${s}" ${s === status ? 'selected' : ''}>${s}</option>`,
          )}
        </select>
        <button type="submit">${t(l, 'apply')}</button>
      </form>
      ${table(
        t(l, 'title'),
        [t(l, 'subscription'), t(l, 'customer'), t(l, 'price'), t(l, 'status'), t(l, 'periodEnd')],
        page.data.map(
          (s) =>
            html`<tr>
              <td><a href="/dashboard/subscriptions/${s.id}">${s.id}</a></td>
              <td><a href="/dashboard/customers/${s.customer}">${s.customer}</a></td>
              <td><code>${s.price}</code></td>
              <td>${statusBadge(s.status, l)}</td>
              <td>${when(s.current_period_end, l)}</td>
            </tr>`,
        ),
        t(l, 'none'),
      )}
      ${nextPage(
        page.hasMore && last
          ? `/dashboard/subscriptions?${status ? `status=${status}&` : ''}after=${last.id}`
          : null,
        t(l, 'older'),
      )}`;
    sendMerchantPage(res, view, body, { title: t(l, 'title') });
  });

  async function detail(req: Request, res: Response, opts: { ok?: string; error?: string; status?: number }) {
    const view = merchantView(req, res);
    const l = view.locale;
    let s;
    try {
      s = await subscriptions.retrieve(view.scope, String(req.params.id));
    } catch (err) {
      const f = failure(err);
      sendMerchantPage(res, view, html``, { title: t(l, 'title'), status: f.status, error: f.message });
      return;
    }
    const ended = ENDED.includes(s.status);
    const invoices = await ctx.services.data.invoices.list(view.scope, { limit: 100, subscriptionId: s.id });
    const prices =
      view.can('write_billing') && !ended
        ? (await data.prices.list(view.scope, { limit: 100, type: 'recurring', active: true })).data
        : [];
    const body = html`${facts([
      [t(l, 'status'), statusBadge(s.status, l, 'subscription-status')],
      [t(l, 'customer'), html`<a href="/dashboard/customers/${s.customer}">${s.customer}</a>`],
      [t(l, 'price'), html`<code data-testid="subscription-price">${s.price}</code>`],
      [t(l, 'pending'), s.pending_update ? s.pending_update.price : '—'],
      [t(l, 'quantity'), String(s.quantity)],
      [t(l, 'collection'), s.collection_method],
      [t(l, 'periodEnd'), when(s.current_period_end, l)],
      [t(l, 'cancelAtEnd'), s.cancel_at_period_end ? t(l, 'yes') : t(l, 'no')],
      [t(l, 'created'), when(s.created_at, l)],
    ])}
    ${invoicesSection(l, invoices.data)}
    ${
      prices.length > 0
        ? html`<section aria-labelledby="change-price">
            <h2 id="change-price">${t(l, 'changePrice')}</h2>
            <form method="post" action="/dashboard/subscriptions/${s.id}/price">
              ${view.csrf}
              <label for="price">${t(l, 'newPrice')}</label>
              <select id="price" name="price">
                ${prices.map(
                  (p) =>
                    html`<option value="${p.id}" ${p.id === s.price ? 'selected' : ''}>
                      ${p.nickname ?? p.id} · ${p.unit_amount} ISK / ${p.recurring?.interval ?? ''}
                    </option>`,
                )}
              </select>
              <fieldset>
                <legend>${t(l, 'when')}</legend>
                <label class="choice"
                  ><input type="radio" name="proration_behavior" value="none" checked />
                  ${t(l, 'nextPeriod')}</label
                >
                <label class="choice"
                  ><input type="radio" name="proration_behavior" value="create_prorations" />
                  ${t(l, 'now')}</label
                >
              </fieldset>
              <p><button type="submit">${t(l, 'changeButton')}</button></p>
            </form>
          </section>`
        : ''
    }
    ${
      view.can('write_billing') && !ended
        ? html`<form method="post" action="/dashboard/subscriptions/${s.id}/cancel">
            ${view.csrf}
            <button type="submit" class="danger">${t(l, 'cancel')}</button>
          </form>`
        : ''
    }`;
    sendMerchantPage(res, view, body, {
      title: t(l, 'detail', { id: s.id }),
      status: opts.status ?? 200,
      ok: opts.ok,
      error: opts.error,
    });
  }

  router.get('/dashboard/subscriptions/:id', (req, res) => detail(req, res, {}));

  router.post('/dashboard/subscriptions/:id/price', requireAction('write_billing'), async (req, res) => {
    const view = merchantView(req, res);
    const price = field(req, 'price');
    if (!/^price_[0-9A-Za-z]{1,64}$/.test(price))
      return detail(req, res, { error: t(view.locale, 'badPrice'), status: 400 });
    try {
      await subscriptions.update(view.scope, String(req.params.id), {
        price,
        prorationBehavior:
          field(req, 'proration_behavior') === 'create_prorations' ? 'create_prorations' : 'none',
      });
      await detail(req, res, { ok: t(view.locale, 'changed') });
    } catch (err) {
      const f = failure(err);
      await detail(req, res, { error: f.message, status: f.status });
    }
  });

  router.post('/dashboard/subscriptions/:id/cancel', requireAction('write_billing'), async (req, res) => {
    const view = merchantView(req, res);
    try {
      await subscriptions.cancel(view.scope, String(req.params.id), null);
      await detail(req, res, { ok: t(view.locale, 'canceled') });
    } catch (err) {
      const f = failure(err);
      await detail(req, res, { error: f.message, status: f.status });
    }
  });

  return router;
}
