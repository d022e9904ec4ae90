import type { Request, RequestHandler, Response } from 'express';
import type { Locale } from '../../domain/locale';
import { formatLocalTime } from '../../domain/local-time';
import { can, type DashboardAction, type MemberRole } from '../../domain/member-roles';
import type { Scope } from '../../domain/scope';
import { html, type SafeHtml } from '../../html/html';
import { notice } from '../../html/notice';
import { ApiError } from '../../domain/errors';
import { csrfField, scrollingTable, sectionsNav, sendPage, type NavGroup } from '../layout';
import { defineMessages } from '../messages';
import { readCookies, setCookie, webSession } from '../session';
import { sessionOf, type WebContext } from './context';
import { dashboardLocale } from './language';
import { headerSearch } from './header-search';

/**
 * What every merchant page knows about its request: who is signed in with which team role, the
 * environment shown (test or live, a cookie the header's links switch) and the language (is/en,
 * likewise). Pages read data through `view.scope` only, so the switch covers every query.
 */
export interface MerchantView {
  role: MemberRole;
  scope: Scope;
  locale: Locale;
  csrf: SafeHtml;
  email: string;
  path: string;
  can(action: DashboardAction): boolean;
}

const MODE_COOKIE = 'skil_mode';
const YEAR = 365 * 24 * 60 * 60;

const t = defineMessages({
  en: {
    nav: 'Dashboard',
    menu: 'Menu',
    closeMenu: 'Close menu',
    groupPayments: 'Payments',
    groupBilling: 'Billing',
    groupClaims: 'Kröfur',
    groupPos: 'Point of sale',
    groupMoney: 'Money',
    groupDevelopers: 'Developers',
    groupSettings: 'Settings',
    home: 'Home',
    payments: 'Payments',
    customers: 'Customers',
    subscriptions: 'Subscriptions',
    invoices: 'Invoices',
    products: 'Products',
    links: 'Payment links',
    claims: 'Kröfur',
    webhooks: 'Webhooks',
    events: 'Events',
    settlement: 'Settlement',
    vat: 'VAT return',
    journal: 'Journal',
    developers: 'API keys',
    device: 'Device logins',
    profile: 'Profile',
    theme: 'Checkout theme',
    team: 'Team',
    auditLog: 'Audit log',
    sessions: 'Your sessions',
    security: 'Security',
    tills: 'Tills',
    viewing: 'Viewing {mode, select, live {live} other {test}} data',
    switchMode: 'Switch to {mode, select, live {live} other {test}} data',
    language: 'Íslenska',
    signOut: 'Sign out',
    refused: 'Your team role ({role}) may not do this. Ask the account owner.',
    refusedTitle: 'Not allowed',
  },
  is: {
    nav: 'Stjórnborð',
    menu: 'Valmynd',
    closeMenu: 'Loka valmynd',
    groupPayments: 'Greiðslur',
    groupBilling: 'Reikningar og áskriftir',
    groupClaims: 'Kröfur',
    groupPos: 'Afgreiðsla',
    groupMoney: 'Fjármunir',
    groupDevelopers: 'Forritarar',
    groupSettings: 'Stillingar',
    home: 'Yfirlit',
    payments: 'Greiðslur',
    customers: 'Viðskiptavinir',
    subscriptions: 'Áskriftir',
    invoices: 'Reikningar',
    products: 'Vörur',
    links: 'Greiðslutenglar',
    claims: 'Kröfur',
    webhooks: 'Vefkrókar',
    events: 'Atburðir',
    settlement: 'Uppgjör',
    vat: 'Virðisaukaskattur',
    journal: 'Dagbók',
    developers: 'API-lyklar',
    device: 'Innskráning tækja',
    profile: 'Upplýsingar',
    theme: 'Útlit greiðslusíðu',
    team: 'Teymi',
    auditLog: 'Atvikaskrá',
    sessions: 'Innskráningar þínar',
    security: 'Öryggi',
    tills: 'Kassar',
    viewing: 'Sýnir {mode, select, live {raungögn} other {prufugögn}}',
    switchMode: 'Skipta í {mode, select, live {raungögn} other {prufugögn}}',
    language: 'English',
    signOut: 'Skrá út',
    refused: 'Hlutverk þitt ({role}) leyfir þetta ekki. Hafðu samband við eiganda aðgangsins.',
    refusedTitle: 'Ekki leyft',
  },
});

type Key = Parameters<typeof t>[1];

/**
 * The navigation, grouped by what merchants do (decision 0207), and the action each page needs:
 * the header shows only what the role may open.
 */
const NAV: { group?: Key; pages: { href: string; key: Key; action: DashboardAction }[] }[] = [
  { pages: [{ href: '/dashboard/home', key: 'home', action: 'read' }] },
  {
    group: 'groupPayments',
    pages: [
      { href: '/dashboard/payments', key: 'payments', action: 'read' },
      { href: '/dashboard/payment-links', key: 'links', action: 'read' },
    ],
  },
  {
    group: 'groupBilling',
    pages: [
      { href: '/dashboard/customers', key: 'customers', action: 'read' },
      { href: '/dashboard/subscriptions', key: 'subscriptions', action: 'read' },
      { href: '/dashboard/invoices', key: 'invoices', action: 'read' },
      { href: '/dashboard/products', key: 'products', action: 'read' },
    ],
  },
  { group: 'groupClaims', pages: [{ href: '/dashboard/claims', key: 'claims', action: 'read' }] },
  { group: 'groupPos', pages: [{ href: '/dashboard/tills', key: 'tills', action: 'manage_keys' }] },
  {
    group: 'groupMoney',
    pages: [
      { href: '/dashboard/settlement', key: 'settlement', action: 'read_settlement' },
      { href: '/dashboard/vat', key: 'vat', action: 'read_settlement' },
      { href: '/dashboard/journal', key: 'journal', action: 'read_settlement' },
    ],
  },
  {
    group: 'groupDevelopers',
    pages: [
      { href: '/dashboard/api-keys', key: 'developers', action: 'manage_keys' },
      { href: '/dashboard/webhooks', key: 'webhooks', action: 'manage_webhooks' },
      { href: '/dashboard/events', key: 'events', action: 'read' },
    ],
  },
  {
    group: 'groupSettings',
    pages: [
      { href: '/dashboard/profile', key: 'profile', action: 'manage_settings' },
      { href: '/dashboard/theme', key: 'theme', action: 'manage_settings' },
      { href: '/dashboard/team', key: 'team', action: 'read' },
      { href: '/dashboard/audit-log', key: 'auditLog', action: 'read_audit_log' },
      { href: '/dashboard/sessions', key: 'sessions', action: 'read' },
      { href: '/dashboard/security', key: 'security', action: 'read' },
    ],
  },
];

/**
 * Remembers `?mode=` in a cookie, so a switch made on one page holds on every other (the language
 * is remembered for every dashboard page by web/dashboard/language.ts). A view preference only: it
 * changes what is shown, never what is stored.
 */
export function viewPreferences(ctx: WebContext): RequestHandler {
  return (req, _res, next) => {
    const res = _res;
    if (req.query.mode === 'live' || req.query.mode === 'test')
      setCookie(res, ctx.cookies, MODE_COOKIE, req.query.mode, YEAR);
    next();
  };
}

export function merchantView(req: Request, res: Response): MerchantView {
  const session = sessionOf(res);
  const role: MemberRole = session.user.role ?? 'read_only';
  const cookies = readCookies(req);
  const mode = req.query.mode === 'live' || req.query.mode === 'test' ? req.query.mode : cookies[MODE_COOKIE];
  return {
    role,
    scope: { merchantId: session.user.merchant_id!, livemode: mode === 'live' },
    locale: dashboardLocale(req, res),
    csrf: csrfField(session.session.csrf_token),
    email: session.user.email,
    path: req.path,
    can: (action) => can(role, action),
  };
}

/** The merchant header: the pages this role may open, the mode and language switches, sign-out. */
export function merchantNav(view: MerchantView): SafeHtml {
  const l = view.locale;
  const other = view.scope.livemode ? 'test' : 'live';
  // A page is current when it is the section's page or one of its own (a payment under payments).
  const current = (href: string) =>
    view.path === href ? 'page' : view.path.startsWith(`${href}/`) ? 'true' : undefined;
  const groups: NavGroup[] = NAV.map((g) => ({
    ...(g.group && { label: t(l, g.group) }),
    links: g.pages
      .filter((p) => view.can(p.action))
      .map((p) => ({ href: p.href, label: t(l, p.key), current: current(p.href) })),
  }));
  return html`${sectionsNav(groups, { label: t(l, 'nav'), menu: t(l, 'menu'), close: t(l, 'closeMenu') })}
    ${view.can('read') ? headerSearch(l) : ''}
    <p class="switches">
      <span class="mode mode-${view.scope.livemode ? 'live' : 'test'}" data-testid="mode"
        >${t(l, 'viewing', { mode: view.scope.livemode ? 'live' : 'test' })}</span
      >
      <a href="${view.path}?mode=${other}">${t(l, 'switchMode', { mode: other })}</a>
      <a href="${view.path}?lang=${l === 'is' ? 'en' : 'is'}" lang="${l === 'is' ? 'en' : 'is'}"
        >${t(l, 'language')}</a
      >
    </p>
    <form method="post" action="/dashboard/sign-out">
      ${view.csrf}
      <span>${view.email}</span>
      <button type="submit" class="secondary">${t(l, 'signOut')}</button>
    </form>`;
}

export interface MerchantPageOptions {
  title: string;
  status?: number;
  scripts?: readonly string[];
  error?: string | undefined;
  ok?: string | undefined;
}

export function sendMerchantPage(
  res: Response,
  view: MerchantView,
  body: SafeHtml,
  opts: MerchantPageOptions,
): void {
  sendPage(
    res,
    html`${opts.error ? notice('error', opts.error) : ''}${opts.ok ? notice('ok', opts.ok) : ''}${body}`,
    {
      title: opts.title,
      session: webSession(res),
      status: opts.status ?? 200,
      lang: view.locale,
      nav: merchantNav(view),
      ...(opts.scripts && { scripts: opts.scripts }),
    },
  );
}

/**
 * Refuses, with a 403 page, a request whose member role may not take `action`: a page hides the
 * controls a role may not use, and this refuses the request when it is made by hand anyway.
 */
export function requireAction(action: DashboardAction): RequestHandler {
  return (req, res, next) => {
    const view = merchantView(req, res);
    if (view.can(action)) return next();
    sendMerchantPage(res, view, html`<p role="alert">${t(view.locale, 'refused', { role: view.role })}</p>`, {
      title: t(view.locale, 'refusedTitle'),
      status: 403,
    });
  };
}

/** A Unix time as the page's language writes a moment, in Iceland's time. */
export function when(unix: number | null | undefined, locale: Locale): string {
  return formatLocalTime(unix === null || unix === undefined ? null : new Date(unix * 1000), locale);
}

/** The status of a failed action, for the page that shows its message: an API error's, else 500. */
export function failure(err: unknown): { status: number; message: string } {
  if (err instanceof ApiError)
    return { status: err.status, message: err.param ? `${err.message} (${err.param})` : err.message };
  throw err;
}

/**
 * Loads what a page shows. An API refusal (a bad cursor, an id that names nothing) is sent as the
 * page, with its status and message, and the caller gets null.
 */
export async function loadOrSendFailure<T>(
  res: Response,
  view: MerchantView,
  title: string,
  load: () => Promise<T>,
): Promise<T | null> {
  try {
    return await load();
  } catch (err) {
    const f = failure(err);
    sendMerchantPage(res, view, html``, { title, status: f.status, error: f.message });
    return null;
  }
}

/** A list page's `after` cursor from its query string, bounded like any text input. */
export function afterCursor(req: Request): string | undefined {
  return typeof req.query.after === 'string' ? req.query.after.slice(0, 100) : undefined;
}

/** The link to a list's next page, or nothing when the list has no more (`href` null). */
export function nextPage(href: string | null, label: string): SafeHtml {
  return href ? html`<p class="pager"><a rel="next" href="${href}">${label}</a></p>` : html``;
}

/** A `<dl>` of label/value pairs, for detail pages. */
export function facts(rows: [string, string | SafeHtml][]): SafeHtml {
  return html`<dl class="facts">
    ${rows.map(
      ([k, v]) =>
        html`<dt>${k}</dt>
          <dd>${v}</dd>`,
    )}
  </dl>`;
}

/** An object's events, oldest first, each linking to its page; `empty` when there are none. */
export function timeline(
  events: { id: string; type: string; created_at: string }[],
  empty: string,
  locale: Locale,
): SafeHtml {
  if (events.length === 0) return html`<p class="empty">${empty}</p>`;
  return html`<ol class="timeline">
    ${events.map(
      (e) =>
        html`<li>
          <time datetime="${e.created_at}">${formatLocalTime(new Date(e.created_at), locale)}</time>
          <a href="/dashboard/events/${e.id}">${e.type}</a>
        </li>`,
    )}
  </ol>`;
}

/** A table with a caption (screen readers name it) and scoped column headers. */
export function table(caption: string, headers: string[], rows: SafeHtml[], empty: string): SafeHtml {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`;
  return scrollingTable(
    caption,
    html`<caption>
        ${caption}
      </caption>
      <thead>
        <tr>
          ${headers.map((h) => html`<th scope="col">${h}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>`,
  );
}

/** A whole-krónur amount typed in a form, or null when it is not one (max twelve digits). */
export function kronur(text: string): number | null {
  const trimmed = text.trim().replace(/[.\s]/g, '');
  return /^\d{1,12}$/.test(trimmed) ? Number(trimmed) : null;
}

/** A one-line text field of at most `max` characters, or null when empty or too long. */
export function line(text: string, max = 255): string | null {
  const trimmed = text.trim();
  return trimmed.length > 0 && trimmed.length <= max && !/[\r\n]/.test(trimmed) ? trimmed : null;
}
