import type { Response } from 'express';
import type { Locale } from '../../domain/locale';
import type { ThemeValues } from '../../domain/theme';
import { html, trusted, type SafeHtml } from '../../html/html';
import { newNonce, setPageSecurityHeaders } from '../../html/security-headers';
import { CHECKOUT_PREVIEW_CSS, fontStylesheetUrl, themeCss } from '../theme-render';
import { faviconLinks } from '../favicon';

/** The hosted checkout's HTML document: the merchant's theme, our stylesheet and page script. */

const CSS = `
*, *::before, *::after { box-sizing: border-box; }
body { margin: 0; background: var(--skil-background, #f6f7f9); color: #1b1b1f; }
.skil-checkout { max-width: 34rem; margin: 0 auto; min-height: 100vh; padding: 1rem; border: 0; line-height: 1.45; overflow-wrap: anywhere; }
.skil-checkout table { table-layout: fixed; }
h1, h2 { font-family: var(--skil-heading-font); }
h1 { font-size: 1.4rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.05rem; margin: 1.2rem 0 .4rem; }
table { width: 100%; border-collapse: collapse; }
td, th { padding: .35rem 0; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; white-space: nowrap; }
.vat { color: #555; font-size: .85rem; }
.total td { font-weight: 700; border-top: 1px solid #bbb; }
label { display: block; font-weight: 600; margin-top: .7rem; }
input { width: 100%; font: inherit; padding: .6rem; border: 1px solid #888; border-radius: 6px; background: #fff; }
.row { display: flex; gap: .6rem; } .row > div { flex: 1; min-width: 0; }
.skil-pay, .wallet, .secondary { display: block; width: 100%; margin-top: .8rem; font: inherit; font-weight: 600; padding: .8rem; cursor: pointer; border-radius: var(--skil-radius); }
.skil-pay { background: var(--skil-primary); color: #fff; border: 0; }
.wallet { background: #000; color: #fff; border: 0; }
.divider { display: flex; align-items: center; gap: .8rem; margin: 1.2rem 0 0; color: #555; font-size: .9rem; }
.divider::before, .divider::after { content: ''; flex: 1; border-top: 1px solid #bbb; }
.skil-enter { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; border: 0; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
.secondary { background: #fff; color: #1b1b1f; border: 1px solid #888; width: auto; display: inline-block; padding: .5rem .9rem; }
.promo { display: flex; gap: .5rem; align-items: flex-end; } .promo > div { flex: 1; }
.error { background: #fde2e2; border: 1px solid #a4161a; padding: .7rem; border-radius: 6px; margin: .8rem 0; }
.field-error { color: #a4161a; font-size: .9rem; }
.business-invoice { margin-top: 1rem; }
.business-invoice input[type='checkbox'] { width: auto; margin: 0 .5rem 0 0; vertical-align: middle; }
.business-invoice label.inline { display: inline; }
#business-invoice:not(:checked) ~ .business-fields { display: none; }
.card-number { position: relative; } .card-number input { padding-right: 9.5rem; }
.card-brand { position: absolute; right: .7rem; top: 50%; transform: translateY(-50%); font-size: .85rem; font-weight: 600; color: #333; pointer-events: none; }
.test { background: #fff4d6; border: 1px solid #b7791f; padding: .3rem .6rem; font-size: .85rem; border-radius: 4px; }
:focus-visible { outline: 3px solid #ffb703; outline-offset: 2px; }
a { color: var(--skil-primary); }
`;

export interface CheckoutDocument {
  locale: Locale;
  theme: ThemeValues;
  /** The embedding page's origin: the one frame ancestor allowed. */
  embed: string | null;
  /** Origins the form may post or redirect to besides ours (success, cancel, the acquirer). */
  formTargets?: string[];
  status?: number;
  title: string;
  /** Page-specific rules (the pickup map's point positions), under the same nonce. */
  css?: string;
}

export function sendCheckoutPage(res: Response, body: SafeHtml, o: CheckoutDocument): void {
  const nonce = newNonce();
  const fonts = fontStylesheetUrl(o.theme);
  res.status(o.status ?? 200);
  setPageSecurityHeaders(res, {
    nonce,
    scripts: true,
    themeAssets: true,
    formTargets: o.formTargets ?? [],
    frameAncestor: o.embed,
  });
  res.type('html').send(
    html`<!doctype html>
      <html lang="${o.locale}">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>${o.title}</title>
          ${faviconLinks(o.theme.logo_url)} ${fonts ? html`<link rel="stylesheet" href="${fonts}" />` : ''}
          <style nonce="${nonce}">
            ${trusted(CHECKOUT_PREVIEW_CSS)}${trusted(themeCss(o.theme))}${trusted(CSS)}${trusted(o.css ?? '')}
          </style>
          <script src="/checkout/assets/checkout.js" defer></script>
        </head>
        <body>
          ${body}
        </body>
      </html>`.value,
  );
}
