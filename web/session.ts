import { timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { DashboardSession, SignInService } from '../services/sign-in';
import { randomBase62 } from '../domain/ids';

/**
 * Dashboard sessions: an httpOnly, SameSite=Lax cookie holding a random token whose hash is the
 * session row's key; a CSRF token per session that every form carries; before sign-in, a
 * double-submit CSRF cookie guards the sign-in form itself (docs/decisions/0016-dashboard-sign-in.md).
 */

export type WebSession = DashboardSession;

export interface CookieNames {
  session: string;
  csrf: string;
  secure: boolean;
}

/** `__Host-` names (host-only, Secure, Path=/) when served over https. */
export function cookieNames(publicBaseUrl: string): CookieNames {
  const secure = publicBaseUrl.startsWith('https://');
  return secure
    ? { session: '__Host-skil_session', csrf: '__Host-skil_csrf', secure }
    : { session: 'skil_session', csrf: 'skil_csrf', secure };
}

export function readCookies(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name && !(name in out)) {
      try {
        out[name] = decodeURIComponent(value);
      } catch {
        out[name] = value;
      }
    }
  }
  return out;
}

export function setCookie(
  res: Response,
  names: CookieNames,
  name: string,
  value: string,
  maxAgeSeconds: number,
): void {
  const attrs = [
    `${name}=${encodeURIComponent(value)}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${maxAgeSeconds}`,
    ...(names.secure ? ['Secure'] : []),
  ];
  res.append('Set-Cookie', attrs.join('; '));
}

export function webSession(res: Response): WebSession | undefined {
  return (res.locals as { web?: WebSession }).web;
}

/**
 * A session that has given its password and still owes the second factor (decision 0220): it is
 * not a signed-in session, and only the sign-in's code step reads it.
 */
export function pendingFactorSession(res: Response): WebSession | undefined {
  return (res.locals as { pendingFactor?: WebSession }).pendingFactor;
}

/** Loads the session of the cookie, if any and still valid. */
export function loadSession(signIn: SignInService, names: CookieNames): RequestHandler {
  return async (req, res, next) => {
    const token = readCookies(req)[names.session];
    if (token && /^[0-9A-Za-z]{20,100}$/.test(token)) {
      const found = await signIn.findSession(token);
      const locals = res.locals as { web?: WebSession; pendingFactor?: WebSession };
      if (found?.session.factor_pending) locals.pendingFactor = found;
      else if (found) locals.web = found;
    }
    next();
  };
}

export function tokensEqual(a: string | undefined, b: string | undefined): boolean {
  if (typeof a !== 'string' || typeof b !== 'string' || a.length === 0 || a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** The pre-session CSRF token for the sign-in form, set as a cookie when missing. */
export function preSessionCsrf(req: Request, res: Response, names: CookieNames): string {
  const existing = readCookies(req)[names.csrf];
  if (existing && /^[0-9A-Za-z]{32}$/.test(existing)) return existing;
  const token = randomBase62(32);
  setCookie(res, names, names.csrf, token, 2 * 60 * 60);
  return token;
}

/**
 * Whether a form post is ours: a cross-site fetch metadata header refuses it outright, then the
 * form's `_csrf` must equal the session's token (or, before sign-in, the CSRF cookie).
 */
export function csrfValid(
  req: Request,
  res: Response,
  names: CookieNames,
  against: 'session' | 'pre-session',
): boolean {
  if (req.get('sec-fetch-site') === 'cross-site') return false;
  const sent = (req.body as Record<string, unknown> | undefined)?._csrf;
  if (typeof sent !== 'string') return false;
  if (against === 'pre-session') return tokensEqual(sent, readCookies(req)[names.csrf]);
  return tokensEqual(sent, webSession(res)?.session.csrf_token);
}
