import { Router, type Request, type Response } from 'express';
import type { Locale } from '../../domain/locale';
import { html } from '../../html/html';
import { formatIsk } from '../../domain/isk';
import { VAT_RATES, isVatRate } from '../../domain/vat';
import { defineMessages } from '../messages';
import { field, type WebContext } from './context';
import { productPageUrl } from '../../services/catalog/product-pages';
import { qrSvg } from '../qr-code';
import {
  facts,
  failure,
  kronur,
  line,
  loadOrSendFailure,
  merchantView,
  requireAction,
  sendMerchantPage,
  table,
  when,
} from './frame';

const INTERVALS = ['week', 'month', 'year'] as const;

const t = defineMessages({
  en: {
    title: 'Products',
    name: 'Name',
    vat: 'VAT',
    vatRate: 'VAT rate (%)',
    price: 'Price (ISK, VAT included)',
    billing: 'Billing',
    oneTime: 'One time',
    every: 'Every {interval, select, week {week} month {month} other {year}}',
    active: 'Active',
    yes: 'Yes',
    no: 'No',
    created: 'Created',
    none: 'No products yet.',
    create: 'New product',
    createButton: 'Create product',
    created_ok: 'Product {name} created.',
    detail: 'Product {name}',
    prices: 'Prices',
    noPrices: 'No prices yet.',
    amount: 'Amount',
    addPrice: 'Add a price',
    addPriceButton: 'Add price',
    priceAdded: 'Price added.',
    variants: 'Variants',
    noVariants: 'No variants.',
    addVariant: 'Add a variant',
    addVariantButton: 'Add variant',
    variantAdded: 'Variant {name} added.',
    variantName: 'Variant name',
    badName: 'Give a name of at most 255 characters (name).',
    badAmount: 'The price must be a whole number of krónur (unit_amount).',
    badVat: 'The VAT rate must be 0, 11 or 24 (vat_rate).',
    productPage: 'Product page',
    productPageHelp:
      'Buyers open this page (or scan its QR code, also shown at the till) and pay on their own phone.',
    productPageQr: 'QR code of the product page of {name}',
    noProductPage:
      'No product page now: it needs an active product with an active one-time price, and the POS switched on.',
  },
  is: {
    title: 'Vörur',
    name: 'Heiti',
    vat: 'VSK',
    vatRate: 'VSK-hlutfall (%)',
    price: 'Verð (kr., með VSK)',
    billing: 'Innheimta',
    oneTime: 'Einu sinni',
    every: 'Á {interval, select, week {viku} month {mánuði} other {ári}} fresti',
    active: 'Virk',
    yes: 'Já',
    no: 'Nei',
    created: 'Stofnuð',
    none: 'Engar vörur enn.',
    create: 'Ný vara',
    createButton: 'Stofna vöru',
    created_ok: 'Varan {name} var stofnuð.',
    detail: 'Vara {name}',
    prices: 'Verð',
    noPrices: 'Engin verð enn.',
    amount: 'Upphæð',
    addPrice: 'Bæta við verði',
    addPriceButton: 'Bæta við verði',
    priceAdded: 'Verði bætt við.',
    variants: 'Útgáfur',
    noVariants: 'Engar útgáfur.',
    addVariant: 'Bæta við útgáfu',
    addVariantButton: 'Bæta við útgáfu',
    variantAdded: 'Útgáfunni {name} var bætt við.',
    variantName: 'Heiti útgáfu',
    badName: 'Gefðu heiti, mest 255 stafi (name).',
    badAmount: 'Verðið verður að vera heil tala í krónum (unit_amount).',
    badVat: 'VSK-hlutfallið verður að vera 0, 11 eða 24 (vat_rate).',
    productPage: 'Vörusíða',
    productPageHelp:
      'Kaupendur opna þessa síðu (eða skanna QR-kóða hennar, sem kassinn sýnir líka) og greiða með eigin síma.',
    productPageQr: 'QR-kóði vörusíðu {name}',
    noProductPage:
      'Engin vörusíða núna: hún þarf virka vöru með virku stöku verði, og kveikt á afgreiðslukerfinu (POS).',
  },
});

type Msg = Parameters<typeof t>[1];

/** `/dashboard/products`: products with VAT, their prices (one-time or recurring) and variants. */
export function catalogPages(ctx: WebContext): Router {
  const router = Router();
  const { data } = ctx.services;

  function billingFields(l: Locale, idPrefix: string) {
    return html`<label for="${idPrefix}-amount">${t(l, 'price')}</label>
      <input id="${idPrefix}-amount" name="unit_amount" inputmode="numeric" required />
      <label for="${idPrefix}-interval">${t(l, 'billing')}</label>
      <select id="${idPrefix}-interval" name="interval">
        <option value="">${t(l, 'oneTime')}</option>
        ${INTERVALS.map((i) => html`<option value="${i}">${t(l, 'every', { interval: i })}</option>`)}
      </select>`;
  }

  const intervalOf = (req: Request) => INTERVALS.find((i) => i === field(req, 'interval'));

  async function listPage(
    req: Request,
    res: Response,
    opts: { ok?: string; error?: string; status?: number },
  ) {
    const view = merchantView(req, res);
    const l = view.locale;
    const products = await data.products.list(view.scope, { limit: 100 });
    const body = html`${table(
      t(l, 'title'),
      [t(l, 'name'), t(l, 'vat'), t(l, 'active'), t(l, 'created')],
      products.data.map(
        (p) =>
          html`<tr>
            <td><a href="/dashboard/products/${p.id}">${p.name}</a></td>
            <td>${p.vat_rate} %</td>
            <td>${p.active ? t(l, 'yes') : t(l, 'no')}</td>
            <td>${when(p.created_at, l)}</td>
          </tr>`,
      ),
      t(l, 'none'),
    )}
    ${
      view.can('write_catalog')
        ? html`<section aria-labelledby="new-product">
            <h2 id="new-product">${t(l, 'create')}</h2>
            <form method="post" action="/dashboard/products">
              ${view.csrf}
              <label for="product-name">${t(l, 'name')}</label>
              <input id="product-name" name="name" maxlength="255" required />
              <label for="product-vat">${t(l, 'vatRate')}</label>
              <select id="product-vat" name="vat_rate">
                ${VAT_RATES.map((r) => html`<option value="${r}" ${r === 24 ? 'selected' : ''}>${r} %</option>`)}
              </select>
              ${billingFields(l, 'product')}
              <p><button type="submit">${t(l, 'createButton')}</button></p>
            </form>
          </section>`
        : ''
    }`;
    sendMerchantPage(res, view, body, { title: t(l, 'title'), status: opts.status ?? 200, ...opts });
  }

  router.get('/dashboard/products', (req, res) => listPage(req, res, {}));

  router.post('/dashboard/products', requireAction('write_catalog'), async (req, res) => {
    const view = merchantView(req, res);
    const l = view.locale;
    const name = line(field(req, 'name'));
    const vat = Number(field(req, 'vat_rate'));
    const amount = kronur(field(req, 'unit_amount'));
    const bad = (key: Msg) => listPage(req, res, { error: t(l, key), status: 400 });
    if (name === null) return bad('badName');
    if (!isVatRate(vat)) return bad('badVat');
    if (amount === null) return bad('badAmount');
    const interval = intervalOf(req);
    try {
      const product = await data.products.create(view.scope, {
        name,
        vat_rate: vat,
        default_price_data: {
          unit_amount: amount,
          ...(interval && { recurring: { interval, intervalCount: 1 } }),
        },
      });
      res.redirect(303, `/dashboard/products/${product.id}`);
    } catch (err) {
      const f = failure(err);
      await listPage(req, res, { error: f.message, status: f.status });
    }
  });

  async function detail(req: Request, res: Response, opts: { ok?: string; error?: string; status?: number }) {
    const view = merchantView(req, res);
    const l = view.locale;
    const p = await loadOrSendFailure(res, view, t(l, 'title'), () =>
      data.products.retrieve(view.scope, String(req.params.id)),
    );
    if (!p) return;
    const [prices, variants, page] = await Promise.all([
      data.prices.list(view.scope, { limit: 100, product: p.id }),
      data.variants.list(view.scope, p.id, { limit: 100 }),
      ctx.services.productPages.find(p.id),
    ]);
    const pageUrl = productPageUrl(ctx.publicBaseUrl, p.id);
    const productPage = html`<section aria-labelledby="product-page">
      <h2 id="product-page">${t(l, 'productPage')}</h2>
      ${
        page
          ? html`<p>${t(l, 'productPageHelp')}</p>
              <p><a href="${pageUrl}" data-testid="product-page-link">${pageUrl}</a></p>
              ${await qrSvg(pageUrl, t(l, 'productPageQr', { name: p.name }), 200)}`
          : html`<p>${t(l, 'noProductPage')}</p>`
      }
    </section>`;
    const body = html`${facts([
        [t(l, 'name'), p.name],
        [t(l, 'vat'), `${p.vat_rate} %`],
        [t(l, 'active'), p.active ? t(l, 'yes') : t(l, 'no')],
        [t(l, 'created'), when(p.created_at, l)],
      ])}
      <h2>${t(l, 'prices')}</h2>
      ${table(
        t(l, 'prices'),
        ['Id', t(l, 'amount'), t(l, 'billing'), t(l, 'active')],
        prices.data.map(
          (pr) =>
            html`<tr>
              <td><code>${pr.id}</code>${pr.id === p.default_price ? ' ★' : ''}</td>
              <td>${formatIsk(pr.unit_amount, view.locale)}</td>
              <td>${pr.recurring ? t(l, 'every', { interval: pr.recurring.interval }) : t(l, 'oneTime')}</td>
              <td>${pr.active ? t(l, 'yes') : t(l, 'no')}</td>
            </tr>`,
        ),
        t(l, 'noPrices'),
      )}
      <h2>${t(l, 'variants')}</h2>
      ${table(
        t(l, 'variants'),
        [t(l, 'name'), 'Id', t(l, 'active')],
        variants.data.map(
          (v) =>
            html`<tr>
              <td>${v.name}</td>
              <td><code>${v.id}</code></td>
              <td>${v.active ? t(l, 'yes') : t(l, 'no')}</td>
            </tr>`,
        ),
        t(l, 'noVariants'),
      )}
      ${productPage}
      ${
        view.can('write_catalog')
          ? html`<section aria-labelledby="add-price">
                <h2 id="add-price">${t(l, 'addPrice')}</h2>
                <form method="post" action="/dashboard/products/${p.id}/prices">
                  ${view.csrf} ${billingFields(l, 'price')}
                  <p><button type="submit">${t(l, 'addPriceButton')}</button></p>
                </form>
              </section>
              <section aria-labelledby="add-variant">
                <h2 id="add-variant">${t(l, 'addVariant')}</h2>
                <form method="post" action="/dashboard/products/${p.id}/variants">
                  ${view.csrf}
                  <label for="variant-name">${t(l, 'variantName')}</label>
                  <input id="variant-name" name="name" maxlength="255" required />
                  ${billingFields(l, 'variant')}
                  <p><button type="submit">${t(l, 'addVariantButton')}</button></p>
                </form>
              </section>`
          : ''
      }`;
    sendMerchantPage(res, view, body, {
      title: t(l, 'detail', { name: p.name }),
      status: opts.status ?? 200,
      ...opts,
    });
  }

  router.get('/dashboard/products/:id', (req, res) => detail(req, res, {}));

  router.post('/dashboard/products/:id/prices', requireAction('write_catalog'), async (req, res) => {
    const view = merchantView(req, res);
    const amount = kronur(field(req, 'unit_amount'));
    if (amount === null) return detail(req, res, { error: t(view.locale, 'badAmount'), status: 400 });
    const interval = intervalOf(req);
    try {
      await data.prices.create(view.scope, {
        product: String(req.params.id),
        unit_amount: amount,
        ...(interval && { recurring: { interval, intervalCount: 1 } }),
      });
      await detail(req, res, { ok: t(view.locale, 'priceAdded') });
    } catch (err) {
      const f = failure(err);
      await detail(req, res, { error: f.message, status: f.status });
    }
  });

  router.post('/dashboard/products/:id/variants', requireAction('write_catalog'), async (req, res) => {
    const view = merchantView(req, res);
    const l = view.locale;
    const name = line(field(req, 'name'));
    const amount = kronur(field(req, 'unit_amount'));
    if (name === null) return detail(req, res, { error: t(l, 'badName'), status: 400 });
    if (amount === null) return detail(req, res, { error: t(l, 'badAmount'), status: 400 });
    const interval = intervalOf(req);
    try {
      await data.variants.create(view.scope, String(req.params.id), {
        name,
        unit_amount: amount,
        ...(interval && { recurring: { interval, intervalCount: 1 } }),
      });
      await detail(req, res, { ok: t(l, 'variantAdded', { name }) });
    } catch (err) {
      const f = failure(err);
      await detail(req, res, { error: f.message, status: f.status });
    }
  });

  return router;
}
