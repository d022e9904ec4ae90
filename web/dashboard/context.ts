import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from '../../stack/logger';
import type { PageServices } from '../page-services';
import type { UserKind } from '../../services/sign-in';
import { ApiError } from '../../domain/errors';
import { html } from '../../html/html';
import { sendPage } from '../layout';
import { csrfValid, webSession, type CookieNames, type WebSession } from '../session';
import { defineMessages } from '../messages';
import { dashboardLocale } from './language';

const t = defineMessages({
  en: {
    notAvailable: 'Not available',
    forKind:
      'This page is for {kind, select, operator {operator} other {merchant}} accounts. You are signed in as {email}.',
    formRefused: 'Form refused',
    formExpired:
      'The form has expired or did not come from this site. Go back, reload the page and try again.',
  },
  is: {
    notAvailable: 'Ekki í boði',
    forKind:
      'Þessi síða er fyrir {kind, select, operator {aðganga umsjónaraðila} other {aðganga söluaðila}}. Innskráð netfang: {email}.',
    formRefused: 'Eyðublaði hafnað',
    formExpired:
      'Eyðublaðið er útrunnið eða kom ekki frá þessum vef. Farðu til baka, endurhlaðaðu síðuna og reyndu aftur.',
  },
});

/** What every dashboard page gets: the services, the log, our public URL and the cookie names. */
export interface WebContext {
  services: PageServices;
  log: Logger;
  publicBaseUrl: string;
  cookies: CookieNames;
}

/** Paths a sign-in may return to: our own pages only, never another origin. */
export function safeNext(next: unknown): string | null {
  if (typeof next !== 'string' || next.length > 500) return null;
  if (!/^\/(dashboard|device)(\/|\?|$)/.test(next)) return null;
  if (/[\\\s]/.test(next) || next.startsWith('//')) return null;
  return next;
}

/** The signed-in session, or a redirect to sign-in that comes back here. */
export function requireUser(kind?: UserKind): RequestHandler {
  return (req, res, next) => {
    const session = webSession(res);
    if (!session) {
      const back = safeNext(req.originalUrl);
      res.redirect(303, `/dashboard/sign-in${back ? `?next=${encodeURIComponent(back)}` : ''}`);
      return;
    }
    if (kind && session.user.kind !== kind) {
      const l = dashboardLocale(req, res);
      sendPage(res, html`<p>${t(l, 'forKind', { kind, email: session.user.email })}</p>`, {
        title: t(l, 'notAvailable'),
        session,
        status: 403,
        lang: l,
      });
      return;
    }
    next();
  };
}

/** Every form post of a signed-in user carries the session's CSRF token. */
export function requireCsrf(ctx: WebContext): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'POST') return next();
    if (csrfValid(req, res, ctx.cookies, 'session')) return next();
    const l = dashboardLocale(req, res);
    sendPage(res, html`<p>${t(l, 'formExpired')}</p>`, {
      title: t(l, 'formRefused'),
      session: webSession(res),
      status: 403,
      lang: l,
    });
  };
}

export function sessionOf(res: Response): WebSession {
  const session = webSession(res);
  if (!session) throw new Error('sessionOf called on a page without requireUser');
  return session;
}

/** A string form field, or '' when absent or not a string. */
export function field(req: Request, name: string): string {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}

/** The text a page shows for an API error, naming its parameter; anything else is rethrown. */
export function errorMessage(err: unknown): string {
  if (err instanceof ApiError) return err.param ? `${err.message} (${err.param})` : err.message;
  throw err;
}
