import { Router, type Request, type Response } from 'express';
import { formatIsk } from '../../domain/isk';
import { html } from '../../html/html';
import { defineMessages } from '../messages';
import { field, type WebContext } from './context';
import { failure, merchantView, requireAction, sendMerchantPage, table, when } from './frame';

const t = defineMessages({
  en: {
    title: 'Payment links',
    link: 'Link',
    sells: 'Sells',
    active: 'Active',
    sold: 'Completed',
    created: 'Created',
    yes: 'Yes',
    no: 'No',
    none: 'No payment links yet.',
    create: 'New payment link',
    price: 'Price',
    quantity: 'Quantity',
    kind: 'The link sells',
    kindPayment: 'One-time payment',
    kindSubscription: 'Subscription',
    kindHint: 'A subscription link needs a recurring price; each buyer becomes a subscriber.',
    every: 'every {interval, select, week {week} month {month} other {year}}',
    oneTimePrices: 'One-time prices (for a payment link)',
    recurringPrices: 'Recurring prices (for a subscription link)',
    trial: 'Free trial days (optional, subscriptions only)',
    badTrial: 'Trial days must be a whole number from 1 to 730 (trial_period_days).',
    mode: 'Kind',
    limit: 'Stop after this many payments (optional)',
    createButton: 'Create payment link',
    createdOk: 'Payment link created: {url}',
    noPrices: 'Create a product with a price first: payment links sell prices.',
    badPrice: 'Choose a price (price).',
    badQuantity: 'The quantity must be a whole number from 1 to 999 (quantity).',
    badLimit: 'The limit must be a whole number from 1 (completed_sessions_limit).',
    deactivate: 'Deactivate',
    deactivated: 'The link is deactivated.',
  },
  is: {
    title: 'Greiðslutenglar',
    link: 'Tengill',
    sells: 'Selur',
    active: 'Virkur',
    sold: 'Greitt',
    created: 'Stofnaður',
    yes: 'Já',
    no: 'Nei',
    none: 'Engir greiðslutenglar enn.',
    create: 'Nýr greiðslutengill',
    price: 'Verð',
    quantity: 'Magn',
    kind: 'Tengillinn selur',
    kindPayment: 'Staka greiðslu',
    kindSubscription: 'Áskrift',
    kindHint: 'Áskriftartengill þarf endurtekið verð; hver kaupandi verður áskrifandi.',
    every: 'á {interval, select, week {viku} month {mánuði} other {ári}} fresti',
    oneTimePrices: 'Stök verð (fyrir greiðslutengil)',
    recurringPrices: 'Endurtekin verð (fyrir áskriftartengil)',
    trial: 'Prufudagar án greiðslu (valfrjálst, aðeins áskrift)',
    badTrial: 'Prufudagar verða að vera heil tala frá 1 til 730 (trial_period_days).',
    mode: 'Tegund',
    limit: 'Loka eftir svona margar greiðslur (valfrjálst)',
    createButton: 'Stofna greiðslutengil',
    createdOk: 'Greiðslutengill stofnaður: {url}',
    noPrices: 'Stofnaðu fyrst vöru með verði: greiðslutenglar selja verð.',
    badPrice: 'Veldu verð (price).',
    badQuantity: 'Magnið verður að vera heil tala frá 1 til 999 (quantity).',
    badLimit: 'Hámarkið verður að vera heil tala, minnst 1 (completed_sessions_limit).',
    deactivate: 'Gera óvirkan',
    deactivated: 'Tengillinn er óvirkur.',
  },
});

/** `/dashboard/payment-links`: the merchant's links, and a form that makes one from a price, no code. */
export function paymentLinkPages(ctx: WebContext): Router {
  const router = Router();
  const { data } = ctx.services;

  async function listPage(
    req: Request,
    res: Response,
    opts: { ok?: string; error?: string; status?: number },
  ) {
    const view = merchantView(req, res);
    const l = view.locale;
    const [links, prices, products] = await Promise.all([
      data.paymentLinks.list(view.scope, { limit: 100 }),
      view.can('write_catalog')
        ? data.prices.list(view.scope, { limit: 100, active: true })
        : Promise.resolve({ data: [] }),
      view.can('write_catalog')
        ? data.products.list(view.scope, { limit: 100 })
        : Promise.resolve({ data: [] }),
    ]);
    const productName = new Map(products.data.map((p) => [p.id, p.name]));
    const sells = (items: unknown[] | null, amount: number | null) =>
      items
        ? items
            .map((i) => {
              const item = i as { price?: string; product?: string; description?: string; quantity?: number };
              return `${item.quantity ?? 1} × ${item.description ?? item.price ?? item.product ?? ''}`;
            })
            .join(', ')
        : amount !== null
          ? formatIsk(amount, view.locale)
          : '—';
    const form = !view.can('write_catalog')
      ? ''
      : prices.data.length === 0
        ? html`<p>${t(l, 'noPrices')} <a href="/dashboard/products">${t(l, 'create')}</a></p>`
        : html`<section aria-labelledby="new-link">
            <h2 id="new-link">${t(l, 'create')}</h2>
            <form method="post" action="/dashboard/payment-links">
              ${view.csrf}
              <fieldset aria-describedby="link-kind-hint">
                <legend>${t(l, 'kind')}</legend>
                <input type="radio" id="link-mode-payment" name="mode" value="payment" checked />
                <label for="link-mode-payment" class="inline">${t(l, 'kindPayment')}</label>
                <input type="radio" id="link-mode-subscription" name="mode" value="subscription" />
                <label for="link-mode-subscription" class="inline">${t(l, 'kindSubscription')}</label>
                <small id="link-kind-hint">${t(l, 'kindHint')}</small>
              </fieldset>
              <label for="link-price">${t(l, 'price')}</label>
              <select id="link-price" name="price" required>
                ${[
                  { label: t(l, 'oneTimePrices'), prices: prices.data.filter((p) => !p.recurring) },
                  { label: t(l, 'recurringPrices'), prices: prices.data.filter((p) => p.recurring) },
                ]
                  .filter((g) => g.prices.length > 0)
                  .map(
                    (g) =>
                      html`<optgroup label="${g.label}">
                        ${g.prices.map(
                          (p) =>
                            html`<option value="${p.id}">
                              ${productName.get(p.product) ?? p.product}${p.nickname ? ` (${p.nickname})` : ''}
                              ·
                              ${formatIsk(p.unit_amount, view.locale)}${
                                p.recurring ? ` ${t(l, 'every', { interval: p.recurring.interval })}` : ''
                              }
                            </option>`,
                        )}
                      </optgroup>`,
                  )}
              </select>
              <label for="link-quantity">${t(l, 'quantity')}</label>
              <input id="link-quantity" name="quantity" inputmode="numeric" value="1" required />
              <label for="link-trial">${t(l, 'trial')}</label>
              <input id="link-trial" name="trial_period_days" inputmode="numeric" />
              <label for="link-limit">${t(l, 'limit')}</label>
              <input id="link-limit" name="completed_sessions_limit" inputmode="numeric" />
              <p><button type="submit">${t(l, 'createButton')}</button></p>
            </form>
          </section>`;
    const body = html`${form}
    ${table(
      t(l, 'title'),
      [t(l, 'link'), t(l, 'mode'), t(l, 'sells'), t(l, 'active'), t(l, 'sold'), t(l, 'created'), ''],
      links.data.map(
        (k) =>
          html`<tr data-link="${k.id}" data-mode="${k.mode}">
            <td><a href="${k.url}">${k.url}</a></td>
            <td>${k.mode === 'subscription' ? t(l, 'kindSubscription') : t(l, 'kindPayment')}</td>
            <td>${sells(k.items, k.amount)}</td>
            <td>${k.active ? t(l, 'yes') : t(l, 'no')}</td>
            <td>${k.completed_sessions_count}</td>
            <td>${when(k.created_at, l)}</td>
            <td>
              ${
                k.active && view.can('write_catalog')
                  ? html`<form
                      class="inline"
                      method="post"
                      action="/dashboard/payment-links/${k.id}/deactivate"
                    >
                      ${view.csrf}
                      <button type="submit" class="secondary" aria-label="${t(l, 'deactivate')} ${k.url}">
                        ${t(l, 'deactivate')}
                      </button>
                    </form>`
                  : ''
              }
            </td>
          </tr>`,
      ),
      t(l, 'none'),
    )}`;
    sendMerchantPage(res, view, body, {
      title: t(l, 'title'),
      status: opts.status ?? 200,
      ok: opts.ok,
      error: opts.error,
    });
  }

  router.get('/dashboard/payment-links', (req, res) => listPage(req, res, {}));

  router.post('/dashboard/payment-links', requireAction('write_catalog'), async (req, res) => {
    const view = merchantView(req, res);
    const l = view.locale;
    const price = field(req, 'price');
    const quantity = field(req, 'quantity').trim();
    const limit = field(req, 'completed_sessions_limit').trim();
    const mode = field(req, 'mode') === 'subscription' ? 'subscription' : 'payment';
    const trial = field(req, 'trial_period_days').trim();
    if (!/^price_[0-9A-Za-z]{1,64}$/.test(price))
      return listPage(req, res, { error: t(l, 'badPrice'), status: 400 });
    if (!/^[1-9]\d{0,2}$/.test(quantity))
      return listPage(req, res, { error: t(l, 'badQuantity'), status: 400 });
    if (limit !== '' && !/^[1-9]\d{0,8}$/.test(limit))
      return listPage(req, res, { error: t(l, 'badLimit'), status: 400 });
    if (trial !== '' && (mode !== 'subscription' || !/^[1-9]\d{0,2}$/.test(trial) || Number(trial) > 730))
      return listPage(req, res, { error: t(l, 'badTrial'), status: 400 });
    try {
      // The API's link service decides what a link may sell (decision 0124): a subscription link
      // with a one-time price is refused there with the checkout session's message and param.
      const link = await data.paymentLinks.create(view.scope, {
        items: [{ price, quantity: Number(quantity) }],
        save_payment_method: false,
        allow_custom_amount: false,
        mode,
        ...(trial !== '' && { subscription_data: { trial_period_days: Number(trial) } }),
        ...(limit !== '' && { completed_sessions_limit: Number(limit) }),
      });
      await listPage(req, res, { ok: t(l, 'createdOk', { url: link.url }) });
    } catch (err) {
      const f = failure(err);
      await listPage(req, res, { error: f.message, status: f.status });
    }
  });

  router.post('/dashboard/payment-links/:id/deactivate', requireAction('write_catalog'), async (req, res) => {
    const view = merchantView(req, res);
    try {
      await data.paymentLinks.update(view.scope, String(req.params.id), { active: false });
      await listPage(req, res, { ok: t(view.locale, 'deactivated') });
    } catch (err) {
      const f = failure(err);
      await listPage(req, res, { error: f.message, status: f.status });
    }
  });

  return router;
}
