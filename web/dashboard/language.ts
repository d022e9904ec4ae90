import type { Request, RequestHandler, Response } from 'express';
import { isLocale, pickUserLocale, type Locale } from '../../domain/locale';
import { readCookies, setCookie, webSession } from '../session';
import type { WebContext } from './context';

/**
 * The dashboard's one rule for a page's language, for merchant, operator, finance and account
 * pages alike: `?lang=` first, then the signed-in user's stored language, then the `skil_lang`
 * cookie (what a signed-out browser chose), then Accept-Language, then English.
 */
export const LANG_COOKIE = 'skil_lang';
const YEAR = 365 * 24 * 60 * 60;

export function dashboardLocale(req: Request, res: Response): Locale {
  return pickUserLocale(
    req.query.lang,
    webSession(res)?.user.locale,
    readCookies(req)[LANG_COOKIE],
    req.get('accept-language'),
  );
}

/**
 * Remembers a `?lang=` switch on any dashboard page: on the signed-in user (so signing in on
 * another browser or device shows it) and in the cookie (so pages signed out show it too). A
 * signed-in user's stored language is copied to a browser whose cookie says otherwise, so the
 * sign-in page after signing out speaks what the dashboard spoke. A view preference only: it
 * changes how pages are worded, never what they do.
 */
export function rememberLanguage(ctx: WebContext): RequestHandler {
  return async (req, res, next) => {
    const session = webSession(res);
    const asked = req.query.lang;
    const cookie = readCookies(req)[LANG_COOKIE];
    const wanted = isLocale(asked) ? asked : (session?.user.locale ?? null);
    if (wanted && cookie !== wanted) setCookie(res, ctx.cookies, LANG_COOKIE, wanted, YEAR);
    if (session && isLocale(asked) && session.user.locale !== asked) {
      await ctx.services.signIn.rememberLocale(session.user.id, asked);
      session.user.locale = asked;
    }
    next();
  };
}

/** A page's own address with `?lang=` set to `locale`, keeping its other query parameters. */
export function withLanguage(req: Request, path: string, locale: Locale): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(req.query)) if (k !== 'lang' && typeof v === 'string') params.set(k, v);
  params.set('lang', locale);
  return `${path}?${params.toString()}`;
}
