import type { Response } from 'express';
import type { Locale } from '../domain/locale';
import { html, trusted, type SafeHtml } from '../html/html';
import { newNonce, setPageSecurityHeaders } from '../html/security-headers';
import type { WebSession } from './session';
import { can } from '../domain/member-roles';
import { faviconLinks } from './favicon';

/**
 * The dashboard's page frame: plain HTML forms, no script (the CSP forbids any), a skip link and
 * visible focus rings so every page works from the keyboard.
 */

const BASE_CSS = `
:root { color-scheme: light; font-family: system-ui, sans-serif; line-height: 1.45; }
body { margin: 0; background: #fafafa; color: #1b1b1f; }
a { color: #1f4fd1; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: 1rem; background: #fff; padding: .5rem; z-index: 10; }
header { display: flex; gap: 1.5rem; align-items: center; padding: .75rem 1.5rem; background: #14213d; color: #fff; flex-wrap: wrap; }
header a { color: #fff; }
header nav ul { display: flex; gap: 1rem; list-style: none; margin: 0; padding: 0; }
header form { margin-left: auto; }
main { padding: 1.5rem; max-width: 60rem; }
label { display: block; font-weight: 600; margin-top: .8rem; }
input, select, textarea { font: inherit; padding: .4rem; min-width: 18rem; max-width: 100%; border: 1px solid #888; border-radius: 4px; }
textarea { width: 100%; min-height: 6rem; }
button { font: inherit; padding: .45rem 1rem; border-radius: 4px; border: 1px solid #14213d; background: #14213d; color: #fff; cursor: pointer; }
button.secondary { background: #fff; color: #14213d; }
button.danger { background: #a4161a; border-color: #a4161a; }
:focus-visible { outline: 3px solid #ffb703; outline-offset: 2px; }
.notice { padding: .75rem 1rem; border-radius: 4px; margin: 1rem 0; }
.notice.error { background: #fde2e2; border: 1px solid #a4161a; }
.notice.ok { background: #e3f4e1; border: 1px solid #2d6a4f; }
.notice.warn { background: #fff4d6; border: 1px solid #b7791f; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid #ddd; vertical-align: top; }
code.secret { display: inline-block; padding: .5rem; background: #fff; border: 1px dashed #14213d; word-break: break-all; user-select: all; }
.inline { display: inline; }
fieldset { border: 1px solid #ccc; margin-top: 1rem; }
input[type=radio], input[type=checkbox] { min-width: 0; }
label.inline { display: inline; font-weight: 400; margin: 0 1rem 0 .3rem; }
.choices { list-style: none; padding: 0; columns: 16rem; }
.choices li { break-inside: avoid; padding: .15rem 0; }
`;

export interface PageOptions {
  title: string;
  session?: WebSession | undefined;
  /** Extra inline CSS (the theme preview); must already be safe CSS. */
  css?: string;
  /** Extra stylesheet (the theme's Google Fonts). */
  stylesheet?: string | null;
  status?: number;
  /** The page's language for `<html lang>`; the dashboard is English unless a page says otherwise. */
  lang?: Locale;
  /** Scripts served from our own origin (the home chart); the CSP then admits `'self'` scripts. */
  scripts?: readonly string[];
  /** The merchant's navigation, by role, with the test/live and is/en switches (web/dashboard/frame.ts). */
  nav?: SafeHtml;
}

function nav(session: WebSession | undefined, merchantNav: SafeHtml | undefined): SafeHtml {
  // A page's own navigation first: the till's (web/pos/frame.ts) has no dashboard session.
  if (merchantNav) return merchantNav;
  if (!session) return html``;
  const links =
    session.user.kind === 'operator'
      ? html`<li><a href="/dashboard/operator">Applications</a></li>
          <li><a href="/dashboard/finance">Finance</a></li>`
      : html`<li><a href="/dashboard/profile">Profile</a></li>
          <li><a href="/dashboard/theme">Checkout theme</a></li>
          <li><a href="/dashboard/api-keys">API keys</a></li>
          <li><a href="/dashboard/webhooks">Webhooks</a></li>
          ${session.user.role && can(session.user.role, 'manage_team') ? html`<li><a href="/dashboard/team">Team</a></li>` : ''}`;
  return html`<nav aria-label="Dashboard">
      <ul>
        ${links}
      </ul>
    </nav>
    <form method="post" action="/dashboard/sign-out">
      <input type="hidden" name="_csrf" value="${session.session.csrf_token}" />
      <span>${session.user.email}</span>
      <button type="submit" class="secondary">Sign out</button>
    </form>`;
}

/** Sends a full page with security headers; the nonce admits only our own inline style. */
export function sendPage(res: Response, body: SafeHtml, opts: PageOptions): void {
  const nonce = newNonce();
  res.status(opts.status ?? 200);
  setPageSecurityHeaders(res, { nonce, themeAssets: true, scripts: (opts.scripts ?? []).length > 0 });
  res.type('html');
  const page = html`<!doctype html>
    <html lang="${opts.lang ?? 'en'}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${opts.title} · Skil</title>
        ${faviconLinks()} ${opts.stylesheet ? html`<link rel="stylesheet" href="${opts.stylesheet}" />` : ''}
        <style nonce="${nonce}">
          ${trusted(BASE_CSS)}${trusted(opts.css ?? '')}
        </style>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header>
          <strong>Skil</strong
          >${nav(opts.session, opts.nav ?? (res.locals as { merchantNav?: SafeHtml }).merchantNav)}
        </header>
        <main id="main" tabindex="-1">
          <h1>${opts.title}</h1>
          ${body}
        </main>
        ${(opts.scripts ?? []).map((src) => html`<script src="${src}"></script>`)}
      </body>
    </html>`;
  res.send(page.value);
}

export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${token}" />`;
}
