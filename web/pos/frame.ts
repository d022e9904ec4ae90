import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { formatIsk } from '../../domain/isk';
import { isLocale, pickLocale, type Locale } from '../../domain/locale';
import type { Scope } from '../../domain/scope';
import type { PosActor } from '../../services/pos/access';
import type { PosServices } from '../page-services';
import { ApiError } from '../../domain/errors';
import { html, type SafeHtml } from '../../html/html';
import { notice } from '../../html/notice';
import { sendPage } from '../layout';
import { readCookies, setCookie, tokensEqual, type CookieNames } from '../session';
import { t } from './messages';

/**
 * The till app's frame (decision 0150): the paired device read from its HttpOnly cookie, the
 * signed-in staff member, the language, a CSRF token bound to the device credential, and the
 * tablet-sized page around every screen.
 */

/** The device credential's cookie: host-only, HttpOnly, SameSite=Strict, a year (re-pairing replaces it). */
export const DEVICE_COOKIE_SECONDS = 365 * 24 * 60 * 60;
const LANG_COOKIE = 'skil_lang';

export function deviceCookieName(cookies: CookieNames): string {
  return cookies.secure ? '__Host-skil_pos_device' : 'skil_pos_device';
}

export function setDeviceCookie(res: Response, cookies: CookieNames, credential: string | null): void {
  const attrs = [
    `${deviceCookieName(cookies)}=${credential ?? ''}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${credential ? DEVICE_COOKIE_SECONDS : 0}`,
    ...(cookies.secure ? ['Secure'] : []),
  ];
  res.append('Set-Cookie', attrs.join('; '));
}

/** What every till page knows: the device, its register, who is signed in, the language. */
export interface TillView {
  scope: Scope;
  actor: PosActor & { kind: 'device' };
  registerId: string;
  staff: Awaited<ReturnType<PosServices['access']['signedInStaff']>>;
  locale: Locale;
  csrf: string;
  path: string;
}

export interface PosContext {
  pos: PosServices;
  cookies: CookieNames;
}

const LOCALS_KEY = 'tillView';
export const tillViewOf = (res: Response): TillView | undefined =>
  (res.locals as Record<string, TillView | undefined>)[LOCALS_KEY];
export const tillView = (res: Response): TillView => {
  const view = tillViewOf(res);
  if (!view) throw new Error('tillView on a page without a paired device');
  return view;
};

export const localeOf = (req: Request): Locale =>
  pickLocale(req.query.lang, readCookies(req)[LANG_COOKIE], req.get('accept-language'));

/** The CSRF token of a paired device's forms: derived from its credential, which only its cookie holds. */
const csrfOf = (credential: string) =>
  createHash('sha256').update(`skil-pos-csrf:${credential}`).digest('base64url').slice(0, 32);

/**
 * Reads the device cookie: a credential that opens a device (not revoked) makes the request a till
 * request; `?lang=` is remembered. The POS feature is checked here, so every till page of a merchant
 * whose POS is off answers 403 (Done means 3) before anything else happens.
 */
export function loadDevice(ctx: PosContext): RequestHandler {
  return async (req, res, next) => {
    try {
      if (isLocale(req.query.lang))
        setCookie(res, ctx.cookies, LANG_COOKIE, req.query.lang, DEVICE_COOKIE_SECONDS);
      const credential = readCookies(req)[deviceCookieName(ctx.cookies)];
      const device = credential ? await ctx.pos.access.device(credential) : undefined;
      if (!device || !credential) return next();
      const scope = { merchantId: device.merchant_id, livemode: device.livemode };
      await ctx.pos.access.assertEnabled(scope);
      const staff = await ctx.pos.access.signedInStaff(scope, device.id);
      const view: TillView = {
        scope,
        actor: { kind: 'device', deviceId: device.id, registerId: device.register_id },
        registerId: device.register_id,
        staff,
        locale: localeOf(req),
        csrf: csrfOf(credential),
        path: req.path,
      };
      (res.locals as Record<string, TillView>)[LOCALS_KEY] = view;
      next();
    } catch (err) {
      next(err);
    }
  };
}

/** A paired device's form posts carry its CSRF token, and none comes from another site. */
export function csrfOk(req: Request, view: TillView): boolean {
  if (req.get('sec-fetch-site') === 'cross-site') return false;
  const sent = (req.body as Record<string, unknown> | undefined)?._csrf;
  return typeof sent === 'string' && tokensEqual(sent, view.csrf);
}

export const csrfInput = (view: { csrf: string }) =>
  html`<input type="hidden" name="_csrf" value="${view.csrf}" />`;

const TILL_CSS = `
main { max-width: 72rem; }
.till-nav { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; }
.till-nav a { padding: .6rem 1rem; border-radius: 6px; text-decoration: none; }
.till-nav a[aria-current="page"] { background: #fff; color: #14213d; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(9.5rem, 1fr)); gap: .6rem; list-style: none; padding: 0; }
.grid a { display: block; min-height: 4.5rem; padding: .7rem; border: 2px solid #14213d; border-radius: 8px; background: #fff; color: #14213d; text-decoration: none; font-weight: 600; }
.grid a span { display: block; font-weight: 400; }
.sell { display: grid; grid-template-columns: 3fr 2fr; gap: 1.5rem; }
@media (max-width: 50rem) { .sell { grid-template-columns: 1fr; } }
.big { font-size: 1.6rem; font-weight: 700; }
.buyer { overflow-wrap: anywhere; }
.matches { list-style: none; padding: 0; }
.matches a { display: block; margin: .4rem 0; padding: .7rem; border: 2px solid #14213d; border-radius: 8px; background: #fff; color: #14213d; text-decoration: none; font-weight: 600; }
.matches a span { font-weight: 400; }
.pay button { margin: .5rem .5rem 0 0; padding: .9rem 1.3rem; font-size: 1.1rem; }
.pay input, .tillform input { min-width: 10rem; font-size: 1.2rem; }
.staff { list-style: none; padding: 0; display: flex; gap: .5rem; flex-wrap: wrap; }
.staff label { font-weight: 400; border: 2px solid #14213d; border-radius: 8px; padding: .6rem 1rem; margin: 0; }
.staff input { min-width: 0; }
td.n, th.n { text-align: right; white-space: nowrap; }
.qr { margin: 1rem 0; } .qr svg { display: block; background: #fff; }
`;

/** The till's header: its screens, the language switch and the signed-in person's sign-out. */
function tillNav(view: TillView | undefined, locale: Locale, path: string): SafeHtml {
  const other = locale === 'is' ? 'en' : 'is';
  const lang = html`<a href="${path}?lang=${other}" lang="${other}">${t(locale, 'language')}</a>`;
  if (!view?.staff) return html`<nav class="till-nav" aria-label="${t(locale, 'nav')}">${lang}</nav>`;
  const links: [string, Parameters<typeof t>[1]][] = [
    ['/pos/sell', 'sell'],
    ['/pos/sales', 'sales'],
    ['/pos/shift', 'shift'],
    ['/pos/reports', 'reports'],
    ['/pos/products', 'productPages'],
  ];
  return html`<nav class="till-nav" aria-label="${t(locale, 'nav')}">
      ${links.map(
        ([href, key]) =>
          html`<a href="${href}" ${path === href ? html`aria-current="page"` : ''}>${t(locale, key)}</a>`,
      )}
      ${lang}
    </nav>
    <form method="post" action="/pos/sign-out">
      ${csrfInput(view)}
      <span data-testid="staff"
        >${t(locale, 'signedInAs', { name: view.staff.name, role: view.staff.role })}</span
      >
      <button type="submit" class="secondary">${t(locale, 'signOut')}</button>
    </form>`;
}

export function sendTillPage(
  req: Request,
  res: Response,
  body: SafeHtml,
  opts: { title: string; status?: number; error?: string | undefined; ok?: string | undefined },
): void {
  const view = tillViewOf(res);
  const locale = view?.locale ?? localeOf(req);
  sendPage(
    res,
    html`${opts.error ? notice('error', opts.error) : ''}${opts.ok ? notice('ok', opts.ok) : ''}${body}`,
    {
      title: opts.title,
      status: opts.status ?? 200,
      lang: locale,
      css: TILL_CSS,
      nav: tillNav(view, locale, req.path),
    },
  );
}

/** ISK as the till shows it. */
export const isk = (view: { locale: Locale }, n: number) =>
  formatIsk(n, view.locale, { negative: 'typographic' });

/** A whole-krónur amount typed on the till, or null (empty or not a whole number). */
export function kronur(text: unknown): number | null {
  if (typeof text !== 'string') return null;
  const trimmed = text.trim().replace(/[.\s]/g, '');
  return /^\d{1,12}$/.test(trimmed) ? Number(trimmed) : null;
}

/** Whether an error is the POS being off: every till page then answers with the off page. */
export const isPosOff = (err: unknown) => err instanceof ApiError && err.code === 'pos_not_enabled';

/**
 * An API error's status and message for the page (naming its parameter); the POS being off and
 * anything else are rethrown to the app's error handler.
 */
export function failure(err: unknown): { status: number; message: string } {
  if (err instanceof ApiError && !isPosOff(err))
    return { status: err.status, message: err.param ? `${err.message} (${err.param})` : err.message };
  throw err;
}

/** The 403 page of a merchant whose POS is off (spec §7, Done means 3). */
export function sendPosOff(req: Request, res: Response): void {
  const locale = localeOf(req);
  sendTillPage(req, res, html`<p role="alert" data-code="pos_not_enabled">${t(locale, 'posOff')}</p>`, {
    title: t(locale, 'posOffTitle'),
    status: 403,
  });
}
