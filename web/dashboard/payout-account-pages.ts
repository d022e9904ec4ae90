import { Router, type Request, type Response } from 'express';
import type { Locale } from '../../domain/locale';
import { html, type SafeHtml } from '../../html/html';
import { notice } from '../../html/notice';
import { formatLocalTime } from '../../domain/local-time';
import { maskedAccount, type PayoutAccountChange } from '../../services/merchant/payout-account-guard';
import { defineMessages } from '../messages';
import { csrfField, sendPage } from '../layout';
import { csrfValid, preSessionCsrf, webSession } from '../session';
import { field, type WebContext } from './context';
import { langField, languageSwitch, localeOf } from './account-messages';

const t = defineMessages({
  en: {
    title: 'Confirm the payout account change',
    change: 'The payout bank account was changed from {from} to {to} on {when}.',
    held: 'Payouts to the new account wait until {until} unless you confirm the change.',
    ask: 'Confirm only if you or someone on your team made this change.',
    confirm: 'Confirm the change',
    confirmed: 'The change is confirmed: payouts go to {to} from now on.',
    already: 'This change was already confirmed.',
    invalid: 'This link is not valid. Use the link in the newest email about the change.',
    expired: 'The form has expired. Open the link from the email again.',
  },
  is: {
    title: 'Staðfesta breytingu á greiðslureikningi',
    change: 'Bankareikningi fyrir útborganir var breytt úr {from} í {to} {when}.',
    held: 'Útborganir á nýja reikninginn bíða til {until} nema þú staðfestir breytinguna.',
    ask: 'Staðfestu aðeins ef þú eða einhver í teyminu gerði þessa breytingu.',
    confirm: 'Staðfesta breytinguna',
    confirmed: 'Breytingin er staðfest: útborganir fara héðan í frá á {to}.',
    already: 'Þessi breyting var þegar staðfest.',
    invalid: 'Þessi hlekkur er ekki gildur. Notaðu hlekkinn í nýjasta tölvupóstinum um breytinguna.',
    expired: 'Eyðublaðið er útrunnið. Opnaðu hlekkinn úr tölvupóstinum aftur.',
  },
});

/**
 * `/dashboard/payout-account/confirm` (decision 0228): the page an owner reaches from the email
 * about a payout account change. Opening the link shows the change and asks; only the form's POST
 * confirms, so a mail scanner that follows links confirms nothing. The token is the proof: no
 * sign-in is needed, as for a password reset.
 */
export function payoutAccountPages(ctx: WebContext): Router {
  const router = Router();
  const { payoutGuard } = ctx.services;

  function page(req: Request, res: Response, locale: Locale, body: SafeHtml, status = 200) {
    sendPage(res, html`${languageSwitch(req, locale)}${body}`, {
      title: t(locale, 'title'),
      lang: locale,
      status,
      session: webSession(res),
    });
  }

  const facts = (l: Locale, c: PayoutAccountChange) =>
    html`<p>
      ${t(l, 'change', {
        from: maskedAccount(c.previous_account),
        to: maskedAccount(c.new_account),
        when: formatLocalTime(c.created_at, l),
      })}
    </p>`;

  router.get('/dashboard/payout-account/confirm', async (req, res) => {
    const l = localeOf(req, res, ctx.cookies);
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    const change = await payoutGuard.inspect(token);
    if (!change) return page(req, res, l, notice('error', t(l, 'invalid')), 400);
    if (change.confirmed_at)
      return page(req, res, l, html`${facts(l, change)}${notice('ok', t(l, 'already'))}`);
    page(
      req,
      res,
      l,
      html`${facts(l, change)}
        <p>${t(l, 'held', { until: formatLocalTime(change.held_until, l) })}</p>
        <p>${t(l, 'ask')}</p>
        <form method="post" action="/dashboard/payout-account/confirm">
          ${csrfField(preSessionCsrf(req, res, ctx.cookies))} ${langField(l)}
          <input type="hidden" name="token" value="${token}" />
          <p><button type="submit">${t(l, 'confirm')}</button></p>
        </form>`,
    );
  });

  router.post('/dashboard/payout-account/confirm', async (req, res) => {
    const l = localeOf(req, res, ctx.cookies);
    if (!csrfValid(req, res, ctx.cookies, 'pre-session'))
      return page(req, res, l, notice('error', t(l, 'expired')), 403);
    const change = await payoutGuard.confirm(field(req, 'token'));
    if (!change) return page(req, res, l, notice('error', t(l, 'invalid')), 400);
    page(req, res, l, notice('ok', t(l, 'confirmed', { to: maskedAccount(change.new_account) })));
  });

  return router;
}
