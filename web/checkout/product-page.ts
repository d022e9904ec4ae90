import { Router, type Request, type Response } from 'express';
import { ApiError } from '../../domain/errors';
import { formatIsk } from '../../domain/isk';
import { chooseLocale, isLocale, type Locale } from '../../domain/locale';
import { html } from '../../html/html';
import {
  PRODUCT_PAGE_MAX_QUANTITY,
  productPagePath,
  type ProductPage,
} from '../../services/catalog/product-pages';
import { sendCheckoutPage } from './document';
import type { CheckoutPageDeps } from './view';
import { NO_THEME } from '../theme-render';

const ID = /^prod_[0-9A-Za-z]{1,64}$/;
const VARIANT = /^var_[0-9A-Za-z]{1,64}$/;

const STRINGS = {
  is: {
    title: 'Vara',
    choose: 'Veldu',
    quantity: 'Fjöldi',
    pay: 'Greiða',
    soldOut: 'uppselt',
    vatIncluded: (rate: number) => `Verð með ${rate}% VSK`,
    notFound: 'Þessi vara fæst ekki hér.',
    badChoice: 'Veldu vöru sem er til sölu.',
    badQuantity: `Fjöldi þarf að vera heil tala frá 1 til ${PRODUCT_PAGE_MAX_QUANTITY}.`,
    testMode: 'Prófunarumhverfi: engin raunveruleg greiðsla',
    language: 'English',
  },
  en: {
    title: 'Product',
    choose: 'Choose',
    quantity: 'Quantity',
    pay: 'Pay',
    soldOut: 'sold out',
    vatIncluded: (rate: number) => `Prices include ${rate}% VAT`,
    notFound: 'This product is not sold here.',
    badChoice: 'Choose something that is for sale.',
    badQuantity: `The quantity must be a whole number from 1 to ${PRODUCT_PAGE_MAX_QUANTITY}.`,
    testMode: 'Test mode: no real payment',
    language: 'Íslenska',
  },
} as const;

const CSS = `
.options { border: 0; padding: 0; margin: 0; }
.options legend { font-weight: 600; margin-bottom: .4rem; }
.options label { display: flex; gap: .7rem; align-items: center; font-weight: 400; border: 1px solid #888; border-radius: 6px; padding: .75rem; margin-top: .5rem; background: #fff; }
.options input { width: auto; margin: 0; }
.options .price { margin-left: auto; font-weight: 600; white-space: nowrap; }
.merchant { color: #444; margin: 0; }
.lang { text-align: right; margin: 0; }
input.qty { max-width: 7rem; }
`;

/** The buyer's language: `?lang=` when given, else the browser's as the checkout chooses it. */
function localeOf(req: Request): Locale {
  const asked = req.query.lang;
  return isLocale(asked) ? asked : chooseLocale(null, req.get('accept-language'));
}

/**
 * The hosted product page at `/p/prod_…` (decision 0161): mobile-sized, the merchant's
 * theme as the checkout has it, the product's variants at their prices; "Pay" posts the choice,
 * which opens a checkout session (the product page service, through the checkout service) and
 * sends the buyer to the hosted checkout.
 */
export function productPages(deps: CheckoutPageDeps): Router {
  const router = Router();
  const service = deps.services.productPages;

  function notFound(req: Request, res: Response) {
    const locale = localeOf(req);
    sendCheckoutPage(
      res,
      html`<main class="skil-checkout">
        <h1 data-testid="status">${STRINGS[locale].notFound}</h1>
      </main>`,
      { locale, theme: NO_THEME, embed: null, title: STRINGS[locale].title, status: 404 },
    );
  }

  async function render(
    req: Request,
    res: Response,
    page: ProductPage,
    opts: { status?: number; error?: string; variant?: string | null; quantity?: string } = {},
  ) {
    const locale = localeOf(req);
    const t = STRINGS[locale];
    const { theme, merchantName } = await deps.services.themes.forPages(page.scope.merchantId);
    const chosen = opts.variant !== undefined ? opts.variant : page.options.find((o) => !o.sold_out)?.variant;
    const other = locale === 'is' ? 'en' : 'is';
    const path = productPagePath(page.product.id);
    const body = html`<main class="skil-checkout">
      <p class="lang"><a href="${path}?lang=${other}" lang="${other}">${t.language}</a></p>
      ${page.scope.livemode ? '' : html`<p class="test" role="note">${t.testMode}</p>`}
      ${merchantName ? html`<p class="merchant">${merchantName}</p>` : ''}
      <h1>${page.product.name}</h1>
      ${page.product.description ? html`<p>${page.product.description}</p>` : ''}
      ${opts.error ? html`<p class="error" role="alert">${opts.error}</p>` : ''}
      <form method="post" action="${path}?lang=${locale}">
        <fieldset class="options">
          <legend>${t.choose}</legend>
          ${page.options.map(
            (o, i) =>
              html`<label for="option-${i}" data-testid="option">
                <input
                  type="radio"
                  id="option-${i}"
                  name="variant"
                  value="${o.variant ?? ''}"
                  required
                  ${o.sold_out ? html`disabled` : ''}
                  ${!o.sold_out && o.variant === chosen ? html`checked` : ''}
                />
                <span>${o.name}${o.sold_out ? ` (${t.soldOut})` : ''}</span>${' '}
                <span class="price">${formatIsk(o.unit_amount, locale, { negative: 'typographic' })}</span>
              </label>`,
          )}
        </fieldset>
        <p class="vat">${t.vatIncluded(page.product.vat_rate)}</p>
        <label for="quantity">${t.quantity}</label>
        <input
          class="qty"
          id="quantity"
          name="quantity"
          type="number"
          inputmode="numeric"
          min="1"
          max="${PRODUCT_PAGE_MAX_QUANTITY}"
          value="${opts.quantity ?? '1'}"
          required
        />
        <button class="skil-pay" type="submit">${t.pay}</button>
      </form>
    </main>`;
    res.setHeader('Cache-Control', 'no-store');
    sendCheckoutPage(res, body, {
      locale,
      theme,
      embed: null,
      title: `${page.product.name} — ${t.title}`,
      status: opts.status ?? 200,
      css: CSS,
    });
  }

  router.get('/p/:id', async (req, res) => {
    const page = ID.test(req.params.id) ? await service.find(req.params.id) : null;
    if (!page) return notFound(req, res);
    await render(req, res, page);
  });

  router.post('/p/:id', async (req, res) => {
    const id = String(req.params.id);
    const page = ID.test(id) ? await service.find(id) : null;
    if (!page) return notFound(req, res);
    const t = STRINGS[localeOf(req)];
    const body = req.body as Record<string, unknown>;
    const variantText = typeof body.variant === 'string' ? body.variant : undefined;
    const variant =
      variantText === '' ? null : variantText && VARIANT.test(variantText) ? variantText : undefined;
    const quantityText = typeof body.quantity === 'string' ? body.quantity.trim() : '';
    const quantity = /^\d{1,3}$/.test(quantityText) ? Number(quantityText) : NaN;
    if (variant === undefined)
      return render(req, res, page, { status: 400, error: t.badChoice, quantity: quantityText });
    if (!(quantity >= 1 && quantity <= PRODUCT_PAGE_MAX_QUANTITY))
      return render(req, res, page, { status: 400, error: t.badQuantity, variant, quantity: quantityText });
    let opened;
    try {
      opened = await service.order(id, variant, quantity, localeOf(req));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return render(req, res, page, {
        status: err.status,
        error: err.message,
        variant,
        quantity: quantityText,
      });
    }
    if (!opened) return render(req, res, page, { status: 400, error: t.badChoice, quantity: quantityText });
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(303, `${deps.publicBaseUrl}/checkout/${opened.sessionId}`);
  });

  return router;
}
