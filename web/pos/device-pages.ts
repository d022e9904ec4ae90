import { Router, type RequestHandler } from 'express';
import { html } from '../../html/html';
import { preSessionCsrf, tokensEqual, readCookies } from '../session';
import { t } from './messages';
import {
  csrfInput,
  csrfOk,
  failure,
  localeOf,
  sendTillPage,
  setDeviceCookie,
  tillView,
  tillViewOf,
  type PosContext,
} from './frame';

/** The till must be paired: otherwise its pages send it to pairing. */
export const requireDevice: RequestHandler = (_req, res, next) => {
  if (tillViewOf(res)) return next();
  res.redirect(303, '/pos/pair');
};

/** A staff member must be signed in by PIN on the paired till. */
export const requireStaff: RequestHandler = (_req, res, next) => {
  const view = tillViewOf(res);
  if (!view) return res.redirect(303, '/pos/pair');
  if (!view.staff) return res.redirect(303, '/pos/sign-in');
  next();
};

/**
 * Every form post of a paired till carries the device's CSRF token. The pairing form has its own
 * (pre-session) token: a paired tablet may pair again, to another register.
 */
export const requireTillCsrf: RequestHandler = (req, res, next) => {
  const view = tillViewOf(res);
  if (req.method !== 'POST' || !view || req.path === '/pos/pair' || csrfOk(req, view)) return next();
  sendTillPage(req, res, html``, {
    title: t(view.locale, 'app'),
    status: 403,
    error: t(view.locale, 'formExpired'),
  });
};

/**
 * Pairing and the PIN session (decision 0150): the tablet types a pairing code made in the
 * dashboard or with the API and keeps the credential it gets in an HttpOnly cookie; a staff member
 * then signs in with their PIN, which works only on such a paired till.
 */
export function devicePages(ctx: PosContext): Router {
  const router = Router();

  router.get('/pos', (_req, res) => {
    const view = tillViewOf(res);
    res.redirect(303, !view ? '/pos/pair' : !view.staff ? '/pos/sign-in' : '/pos/sell');
  });

  const pairPage = (
    req: Parameters<RequestHandler>[0],
    res: Parameters<RequestHandler>[1],
    opts: { status?: number; error?: string; ok?: string } = {},
  ) => {
    const locale = tillViewOf(res)?.locale ?? localeOf(req);
    const csrf = preSessionCsrf(req, res, ctx.cookies);
    sendTillPage(
      req,
      res,
      html`<p>${t(locale, 'pairHelp')}</p>
        <form method="post" action="/pos/pair" class="tillform">
          <input type="hidden" name="_csrf" value="${csrf}" />
          <label for="pairing_code">${t(locale, 'pairingCode')}</label>
          <input
            id="pairing_code"
            name="pairing_code"
            autocomplete="off"
            autocapitalize="characters"
            spellcheck="false"
            maxlength="20"
            required
          />
          <p><button type="submit">${t(locale, 'pair')}</button></p>
        </form>`,
      { title: t(locale, 'pairTitle'), ...opts },
    );
  };
  router.get('/pos/pair', (req, res) => pairPage(req, res));
  router.post('/pos/pair', async (req, res) => {
    const locale = localeOf(req);
    const sent = (req.body as Record<string, unknown>)._csrf;
    if (
      req.get('sec-fetch-site') === 'cross-site' ||
      typeof sent !== 'string' ||
      !tokensEqual(sent, readCookies(req)[ctx.cookies.csrf])
    )
      return pairPage(req, res, { status: 403, error: t(locale, 'formExpired') });
    const code = (req.body as Record<string, unknown>).pairing_code;
    try {
      const device = await ctx.pos.setup.pairDevice({ pairing_code: typeof code === 'string' ? code : '' });
      setDeviceCookie(res, ctx.cookies, device.credential);
      res.redirect(303, '/pos/sign-in?paired=1');
    } catch (err) {
      const f = failure(err);
      pairPage(req, res, { status: f.status, error: f.message });
    }
  });

  const signInPage = async (
    req: Parameters<RequestHandler>[0],
    res: Parameters<RequestHandler>[1],
    opts: { status?: number; error?: string } = {},
  ) => {
    const view = tillView(res);
    const l = view.locale;
    const staff = (await ctx.pos.setup.listStaff(view.scope, { limit: 100 })).data
      .filter((s) => s.active)
      .sort((a, b) => a.name.localeCompare(b.name, 'is'));
    const body =
      staff.length === 0
        ? html`<p>${t(l, 'noStaff')}</p>`
        : html`<form method="post" action="/pos/sign-in" class="tillform">
            ${csrfInput(view)}
            <fieldset>
              <legend>${t(l, 'staff')}</legend>
              <ul class="staff">
                ${staff.map(
                  (s, i) =>
                    html`<li>
                      <label
                        ><input type="radio" name="staff" value="${s.id}" ${i === 0 ? html`checked` : ''} />
                        ${s.name}</label
                      >
                    </li>`,
                )}
              </ul>
            </fieldset>
            <label for="pin">${t(l, 'pin')}</label>
            <input
              id="pin"
              name="pin"
              type="password"
              inputmode="numeric"
              autocomplete="off"
              pattern="[0-9]{4,8}"
              maxlength="8"
              required
            />
            <p><button type="submit">${t(l, 'signIn')}</button></p>
          </form>`;
    sendTillPage(req, res, body, {
      title: t(l, 'signInTitle'),
      ...opts,
      ...(req.query.paired === '1' && !opts.error && { ok: t(l, 'paired') }),
    });
  };
  router.get('/pos/sign-in', requireDevice, (req, res) => signInPage(req, res));
  router.post('/pos/sign-in', requireDevice, async (req, res) => {
    const view = tillView(res);
    const body = req.body as Record<string, unknown>;
    try {
      await ctx.pos.setup.signIn(view.scope, view.actor, {
        staff: typeof body.staff === 'string' ? body.staff : '',
        pin: typeof body.pin === 'string' ? body.pin : '',
      });
      res.redirect(303, '/pos');
    } catch (err) {
      const f = failure(err);
      await signInPage(req, res, { status: f.status, error: f.message });
    }
  });
  router.post('/pos/sign-out', requireDevice, async (_req, res) => {
    const view = tillView(res);
    await ctx.pos.setup.signOut(view.scope, view.actor);
    res.redirect(303, '/pos/sign-in');
  });
  return router;
}
