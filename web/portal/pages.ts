import express, { type Request, type Response, type Router } from 'express';
import type { PortalSessionRow } from '../../services/portal/portal';
import type { PageServices } from '../page-services';
import { chooseLocale } from '../../domain/locale';
import { ApiError, InvalidRequestError } from '../../domain/errors';
import { html, type SafeHtml } from '../../html/html';
import { NO_THEME } from '../theme-render';
import { sendPortalPage } from './document';
import { renderOverview } from './overview-page';
import { STRINGS } from './strings';

const COOKIE = 'skil_portal';
const str = (v: unknown) => (typeof v === 'string' ? v : '');

/**
 * The customer portal (decision 0047): a single-use link opens a visit bound to this browser by an
 * HttpOnly cookie; the customer sees the subscription, the next charge and the payment history, and
 * can update the card, cancel (at period end or now, with a reason) or switch to an allowed price.
 */
export function portalPages(services: PageServices): Router {
  const router = express.Router();
  const { portal } = services;
  router.use('/portal', express.urlencoded({ extended: false, limit: '8kb' }));

  /** The visit: the token's session, valid, opened by this browser (or opened now). */
  async function visit(req: Request, res: Response, opening: boolean): Promise<PortalSessionRow | null> {
    const token = str(req.params.token);
    const session = /^[0-9A-Za-z]{40}$/.test(token) ? await portal.findByToken(token) : undefined;
    const cookie = (req.headers.cookie ?? '')
      .split(';')
      .map((c) => c.trim().split('='))
      .find(([k]) => k === COOKIE)?.[1];
    if (session && session.expires_at.getTime() > Date.now()) {
      if (cookie === token) return session;
      if (opening && (await portal.open(session))) {
        res.cookie(COOKIE, token, {
          httpOnly: true,
          sameSite: 'strict',
          path: `/portal/${token}`,
          maxAge: session.expires_at.getTime() - Date.now(),
        });
        return session;
      }
    }
    const locale = chooseLocale(session?.locale ?? null, req.get('accept-language'));
    sendPortalPage(res, NO_THEME, locale, html`<p class="error">${STRINGS[locale].expired}</p>`, 410);
    return null;
  }

  const render = (req: Request, res: Response, session: PortalSessionRow, message: SafeHtml | null) =>
    renderOverview(services, req, res, session, str(req.params.token), message);

  router.get('/portal/:token', async (req, res) => {
    const session = await visit(req, res, true);
    if (session) await render(req, res, session, null);
  });

  /** A portal operation: its result (saved, or the refusal's message) is shown on the page. */
  const act =
    (work: (session: PortalSessionRow, body: Record<string, unknown>) => Promise<void>) =>
    async (req: Request, res: Response) => {
      const session = await visit(req, res, false);
      if (!session) return;
      const locale = chooseLocale(session.locale, req.get('accept-language'));
      let message: SafeHtml;
      try {
        await work(session, (req.body ?? {}) as Record<string, unknown>);
        message = html`<p class="notice" role="status">${STRINGS[locale].saved}</p>`;
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        message = html`<p class="error" role="alert">${err.message}</p>`;
      }
      await render(req, res, session, message);
    };

  router.post(
    '/portal/:token/card',
    act(async (session, body) => {
      const expiry = /^(\d{1,2})\s*\/\s*(\d{2}|\d{4})$/.exec(str(body.expiry).trim());
      if (!expiry) throw new InvalidRequestError('MM/YY');
      const year = Number(expiry[2]);
      await portal.updateCard(session, {
        number: str(body.number).replace(/\s/g, ''),
        exp_month: Number(expiry[1]),
        exp_year: year < 100 ? 2000 + year : year,
        cvc: str(body.cvc),
      });
    }),
  );

  router.post(
    '/portal/:token/cancel',
    act(async (session, body) => {
      const reason = str(body.reason).slice(0, 500).trim() || null;
      await portal.cancel(session, str(body.subscription), { now: body.when === 'now', reason });
    }),
  );

  router.post(
    '/portal/:token/switch',
    act(async (session, body) => {
      await portal.switchPrice(session, str(body.subscription), str(body.price));
    }),
  );

  return router;
}
