import { Router } from 'express';
import { html } from '../../html/html';
import { productPageUrl } from '../../services/catalog/product-pages';
import { qrSvg } from '../qr-code';
import { sendTillPage, tillView, type PosContext } from './frame';
import { requireStaff } from './device-pages';
import { t } from './messages';

const ID = /^prod_[0-9A-Za-z]{1,64}$/;

/** The products on the till's grid, once each, by their own name. */
async function gridProducts(ctx: PosContext, scope: Parameters<PosContext['pos']['catalog']['items']>[0]) {
  const seen = new Map<string, string>();
  for (const item of await ctx.pos.catalog.items(scope))
    if (!seen.has(item.product)) seen.set(item.product, item.product_name);
  return [...seen].map(([id, name]) => ({ id, name }));
}

/**
 * Product pages at the till (decision 0161): the grid's products, each with its hosted
 * product page's QR code, shown to a buyer who scans it and pays on their own phone. The till only
 * shows the link; the page and the checkout behind it are the hosted checkout's.
 */
export function productQrPages(ctx: PosContext & { publicBaseUrl: string }): Router {
  const router = Router();
  router.use('/pos/products', requireStaff);

  router.get('/pos/products', async (req, res) => {
    const view = tillView(res);
    const l = view.locale;
    const products = await gridProducts(ctx, view.scope);
    sendTillPage(
      req,
      res,
      html`<p>${t(l, 'productPagesHelp')}</p>
        ${
          products.length === 0
            ? html`<p>${t(l, 'noProducts')}</p>`
            : html`<ul class="grid">
                ${products.map(
                  (p) =>
                    html`<li>
                      <a href="/pos/products/${p.id}">${p.name} <span>${t(l, 'showQr')}</span></a>
                    </li>`,
                )}
              </ul>`
        }`,
      { title: t(l, 'productPages') },
    );
  });

  router.get('/pos/products/:id', async (req, res) => {
    const view = tillView(res);
    const l = view.locale;
    const product = ID.test(req.params.id)
      ? (await gridProducts(ctx, view.scope)).find((p) => p.id === req.params.id)
      : undefined;
    if (!product) {
      sendTillPage(req, res, html`<p><a href="/pos/products">${t(l, 'productPages')}</a></p>`, {
        title: t(l, 'productPages'),
        status: 404,
      });
      return;
    }
    const url = productPageUrl(ctx.publicBaseUrl, product.id);
    sendTillPage(
      req,
      res,
      html`<figure class="qr" data-testid="product-qr">
          ${await qrSvg(url, t(l, 'qrOf', { name: product.name }), 320)}
          <figcaption>
            ${t(l, 'productPageLink')}: <a href="${url}" data-testid="product-page-link">${url}</a>
          </figcaption>
        </figure>
        <p><a href="/pos/products">${t(l, 'productPages')}</a></p>`,
      { title: product.name },
    );
  });

  return router;
}
