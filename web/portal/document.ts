import type { Response } from 'express';
import type { Locale } from '../../domain/locale';
import type { ThemeValues } from '../../domain/theme';
import { html, trusted, type SafeHtml } from '../../html/html';
import { newNonce, setPageSecurityHeaders } from '../../html/security-headers';
import { fontStylesheetUrl, themeCss } from '../theme-render';
import { STRINGS } from './strings';
import { faviconLinks } from '../favicon';

const CSS = `
*, *::before, *::after { box-sizing: border-box; }
body { margin: 0; background: var(--skil-background, #f6f7f9); color: #1b1b1f; font-family: var(--skil-font, system-ui, sans-serif); }
main { max-width: 36rem; margin: 0 auto; padding: 1rem; line-height: 1.45; }
h1, h2 { font-family: var(--skil-heading-font, inherit); }
section { background: #fff; border: 1px solid #ddd; border-radius: 8px; padding: 1rem; margin: 1rem 0; }
label { display: block; font-weight: 600; margin-top: .6rem; }
input:not([type='radio']):not([type='checkbox']), select { width: 100%; font: inherit; padding: .5rem; border: 1px solid #888; border-radius: 6px; }
button { margin-top: .8rem; font: inherit; font-weight: 600; padding: .6rem 1rem; cursor: pointer; border: 0; border-radius: var(--skil-radius, 6px); background: var(--skil-primary, #1f4fd1); color: #fff; }
table { width: 100%; border-collapse: collapse; } td { padding: .3rem 0; } td.num { text-align: right; }
.notice { background: #e6f4ea; border: 1px solid #2e7d32; padding: .6rem; border-radius: 6px; }
.error { background: #fde2e2; border: 1px solid #a4161a; padding: .6rem; border-radius: 6px; }
.test { background: #fff4d6; border: 1px solid #b7791f; padding: .3rem .6rem; font-size: .85rem; border-radius: 4px; }
`;

/** The portal's HTML document in the merchant's theme. */
export function sendPortalPage(
  res: Response,
  theme: ThemeValues,
  locale: Locale,
  body: SafeHtml,
  status = 200,
): void {
  const nonce = newNonce();
  const fonts = fontStylesheetUrl(theme);
  res.status(status);
  setPageSecurityHeaders(res, { nonce, themeAssets: true });
  res.type('html').send(
    html`<!doctype html>
      <html lang="${locale}">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>${STRINGS[locale].title}</title>
          ${faviconLinks(theme.logo_url)} ${fonts ? html`<link rel="stylesheet" href="${fonts}" />` : ''}
          <style nonce="${nonce}">
            ${trusted(themeCss(theme))}${trusted(CSS)}
          </style>
        </head>
        <body>
          <main>${body}</main>
        </body>
      </html>`.value,
  );
}
