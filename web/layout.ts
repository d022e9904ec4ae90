import type { Response } from 'express';
import type { Locale } from '../domain/locale';
import { html, trusted, type SafeHtml } from '../html/html';
import { newNonce, setPageSecurityHeaders } from '../html/security-headers';
import type { WebSession } from './session';
import { can } from '../domain/member-roles';
import { STYLESHEET_HREF } from './stylesheet';
import { faviconLinks } from './favicon';
import { defineMessages } from './messages';

/**
 * The dashboard's page frame: plain HTML forms, no script needed (the CSP admits only our own), a
 * skip link and visible focus rings so every page works from the keyboard. Its look is the
 * stylesheet web/dashboard.css (decision 0207), linked with the page's nonce.
 */

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
  /**
   * The page's own address (its path, and query without `lang`), for the operator header's
   * language switch and current page; pages that have their own switch (finance) leave it out.
   */
  here?: string;
}

const t = defineMessages({
  en: {
    skip: 'Skip to content',
    nav: 'Dashboard',
    menu: 'Menu',
    closeMenu: 'Close menu',
    platform: 'Platform',
    applications: 'Applications',
    finance: 'Finance',
    secondFactors: 'Second factors',
    settings: 'Settings',
    profile: 'Profile',
    theme: 'Checkout theme',
    apiKeys: 'API keys',
    webhooks: 'Webhooks',
    team: 'Team',
    language: 'Íslenska',
    signOut: 'Sign out',
  },
  is: {
    skip: 'Fara beint í efni',
    nav: 'Stjórnborð',
    menu: 'Valmynd',
    closeMenu: 'Loka valmynd',
    platform: 'Umsjón',
    applications: 'Umsóknir',
    finance: 'Fjármál',
    secondFactors: 'Önnur auðkenni',
    settings: 'Stillingar',
    profile: 'Upplýsingar',
    theme: 'Útlit greiðslusíðu',
    apiKeys: 'API-lyklar',
    webhooks: 'Vefkrókar',
    team: 'Teymi',
    language: 'English',
    signOut: 'Skrá út',
  },
});

function nav(
  session: WebSession | undefined,
  merchantNav: SafeHtml | undefined,
  l: Locale,
  here: string | undefined,
): SafeHtml {
  // A page's own navigation first: the till's (web/pos/frame.ts) has no dashboard session.
  if (merchantNav) return merchantNav;
  if (!session) return html``;
  const current = (href: string) =>
    here === undefined
      ? undefined
      : here === href
        ? 'page'
        : here.startsWith(`${href}/`)
          ? 'true'
          : undefined;
  const groups: NavGroup[] =
    session.user.kind === 'operator'
      ? [
          {
            label: t(l, 'platform'),
            links: [
              {
                href: '/dashboard/operator',
                label: t(l, 'applications'),
                current: current('/dashboard/operator'),
              },
              { href: '/dashboard/finance', label: t(l, 'finance'), current: current('/dashboard/finance') },
              {
                href: '/dashboard/operator/second-factor',
                label: t(l, 'secondFactors'),
                current: current('/dashboard/operator/second-factor'),
              },
            ],
          },
        ]
      : [
          {
            label: t(l, 'settings'),
            links: [
              { href: '/dashboard/profile', label: t(l, 'profile') },
              { href: '/dashboard/theme', label: t(l, 'theme') },
              { href: '/dashboard/api-keys', label: t(l, 'apiKeys') },
              { href: '/dashboard/webhooks', label: t(l, 'webhooks') },
              ...(session.user.role && can(session.user.role, 'manage_team')
                ? [{ href: '/dashboard/team', label: t(l, 'team') }]
                : []),
            ],
          },
        ];
  const other: Locale = l === 'is' ? 'en' : 'is';
  return html`${sectionsNav(groups, { label: t(l, 'nav'), menu: t(l, 'menu'), close: t(l, 'closeMenu') })}
    ${
      here === undefined
        ? ''
        : html`<p class="switches">
            <a
              href="${here}${here.includes('?') ? '&' : '?'}lang=${other}"
              lang="${other}"
              hreflang="${other}"
              >${t(l, 'language')}</a
            >
          </p>`
    }
    <form method="post" action="/dashboard/sign-out">
      <input type="hidden" name="_csrf" value="${session.session.csrf_token}" />
      <span>${session.user.email}</span>
      <button type="submit" class="secondary">${t(l, 'signOut')}</button>
    </form>`;
}

export interface NavLink {
  href: string;
  label: string;
  /** `page` for the page itself, `true` for a section's page seen from one of its own. */
  current?: 'page' | 'true' | undefined;
}

/** A heading and its links; a group without a label is a link of its own (Home). */
export interface NavGroup {
  label?: string;
  links: NavLink[];
}

/**
 * The grouped navigation (decision 0207): a sidebar on wide screens; on phones hidden behind the
 * header's menu link, which targets it (`#menu`), so it opens and closes without script.
 */
export function sectionsNav(
  groups: readonly NavGroup[],
  words: { label: string; menu: string; close: string },
): SafeHtml {
  const link = (l: NavLink) =>
    html`<li><a href="${l.href}" ${l.current ? html`aria-current="${l.current}"` : ''}>${l.label}</a></li>`;
  const shown = groups.filter((g) => g.links.length > 0);
  return html`<a class="menu-toggle" href="#menu">${words.menu}</a>
    <nav class="sections" id="menu" aria-label="${words.label}">
      <a class="menu-close" href="#">${words.close}</a>
      <ul>
        ${shown.map((g, i) =>
          g.label === undefined
            ? g.links.map(link)
            : html`<li>
                <span class="group" id="nav-group-${i}">${g.label}</span>
                <ul aria-labelledby="nav-group-${i}">
                  ${g.links.map(link)}
                </ul>
              </li>`,
        )}
      </ul>
    </nav>`;
}

/** Sends a full page with security headers; the nonce admits only our own inline style. */
export function sendPage(res: Response, body: SafeHtml, opts: PageOptions): void {
  const nonce = newNonce();
  res.status(opts.status ?? 200);
  setPageSecurityHeaders(res, { nonce, themeAssets: true, scripts: (opts.scripts ?? []).length > 0 });
  res.type('html');
  const lang = opts.lang ?? 'en';
  const navigation = nav(
    opts.session,
    opts.nav ?? (res.locals as { merchantNav?: SafeHtml }).merchantNav,
    lang,
    opts.here,
  );
  const page = html`<!doctype html>
    <html lang="${lang}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${opts.title} · Skil</title>
        <link rel="stylesheet" href="${STYLESHEET_HREF}" nonce="${nonce}" />
        ${opts.stylesheet ? html`<link rel="stylesheet" href="${opts.stylesheet}" />` : ''}
        ${
          opts.css
            ? html`<style nonce="${nonce}">
                ${trusted(opts.css)}
              </style>`
            : ''
        }
        ${faviconLinks()}
      </head>
      <body>
        <a class="skip" href="#main">${t(lang, 'skip')}</a>
        <header>
          <a class="brand" href="/dashboard">Skil</a>
          ${navigation}
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

/**
 * A table in a frame that scrolls sideways by itself on a narrow screen, so the page never does.
 * The frame is a named region that takes focus, so the keyboard can scroll it too.
 */
export function scrollingTable(name: string, inner: SafeHtml): SafeHtml {
  return tableFrame(
    name,
    html`<table>
      ${inner}
    </table>`,
  );
}

/** A whole `<table>` in the scrolling frame of `scrollingTable`. */
export function tableFrame(name: string, table: SafeHtml): SafeHtml {
  return html`<div class="table-scroll" role="group" aria-label="${name}" tabindex="0">${table}</div>`;
}

export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${token}" />`;
}
