import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from '../../stack/logger';
import type { PageServices } from '../page-services';
import type { UserKind } from '../../services/sign-in';
import { ApiError } from '../../domain/errors';
import { html } from '../../html/html';
import { sendPage } from '../layout';
import { csrfValid, webSession, type CookieNames, type WebSession } from '../session';

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
      sendPage(
        res,
        html`<p>This page is for ${kind} accounts. You are signed in as ${session.user.email}.</p>`,
        {
          title: 'Not available',
          session,
          status: 403,
        },
      );
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
    sendPage(
      res,
      html`<p>
        The form has expired or did not come from this site. Go back, reload the page and try again.
      </p>`,
      { title: 'Form refused', session: webSession(res), status: 403 },
    );
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
