import { Router, type Request, type Response } from 'express';
import { ApiError } from '../../domain/errors';
import { normalizeUserCode } from '../../domain/device-codes';
import type { Locale } from '../../domain/locale';
import { html, type SafeHtml } from '../../html/html';
import { notice } from '../../html/notice';
import { csrfField, sendPage } from '../layout';
import { defineMessages } from '../messages';
import { requireAction } from './frame';
import { field, requireCsrf, requireUser, sessionOf, type WebContext } from './context';
import { dashboardLocale } from './language';

const t = defineMessages({
  en: {
    title: 'Authorize a device',
    codeLabel: 'Code shown by your terminal or agent',
    continue: 'Continue',
    operatorsCannot: 'Sign in with a merchant account to authorize a device. Operators cannot.',
    expired: 'This code has expired. Start the sign-in again from your terminal.',
    unknown: 'No pending request has this code. Check it and try again.',
    asksBefore: ' asks for a ',
    testMode: 'test mode',
    asksAfter: ' API key for ',
    code: 'Code:',
    approveOnly:
      'Approve only if you started this sign-in yourself and this code matches the one shown in your terminal.',
    approve: 'Approve',
    deny: 'Deny',
    unreadable: 'That request could not be read. Enter the code again.',
    approved:
      'Approved. Your terminal will receive a test mode key in a few seconds; you can close this window.',
    denied: 'Denied. The device gets no key.',
  },
  is: {
    title: 'Heimila tæki',
    codeLabel: 'Kóðinn sem útstöðin eða forritið sýnir',
    continue: 'Áfram',
    operatorsCannot:
      'Skráðu þig inn með aðgangi söluaðila til að heimila tæki. Umsjónaraðilar geta það ekki.',
    expired: 'Þessi kóði er útrunninn. Byrjaðu innskráninguna aftur í útstöðinni.',
    unknown: 'Engin beiðni í bið er með þennan kóða. Athugaðu hann og reyndu aftur.',
    asksBefore: ' biður um API-lykil í ',
    testMode: 'prufuham',
    asksAfter: ' fyrir ',
    code: 'Kóði:',
    approveOnly: 'Samþykktu aðeins ef þú hófst þessa innskráningu og kóðinn er sá sami og útstöðin sýnir.',
    approve: 'Samþykkja',
    deny: 'Hafna',
    unreadable: 'Ekki tókst að lesa beiðnina. Sláðu kóðann inn aftur.',
    approved: 'Samþykkt. Útstöðin fær prufulykil eftir nokkrar sekúndur; þú mátt loka þessum glugga.',
    denied: 'Hafnað. Tækið fær engan lykil.',
  },
});

/**
 * The verification page of the device flow (spec §5.4): a signed-in merchant user sees which
 * client asks for access and approves or denies it. The code is shown so the user can check it
 * against the one in their terminal (RFC 8628 §5.4, remote phishing). In the user's language
 * (web/dashboard/language.ts); the form's fields and values are the same in both.
 */
export function devicePages(ctx: WebContext): Router {
  const router = Router();
  const { device, accounts } = ctx.services;
  router.use('/device', requireUser(), requireCsrf(ctx));

  function codeForm(req: Request, res: Response, message?: SafeHtml, status = 200) {
    const l = dashboardLocale(req, res);
    const body = html`${message ?? ''}
      <form method="get" action="/device">
        <label for="user_code">${t(l, 'codeLabel')}</label>
        <input
          id="user_code"
          name="user_code"
          autocomplete="off"
          autocapitalize="characters"
          spellcheck="false"
          required
          autofocus
        />
        <p><button type="submit">${t(l, 'continue')}</button></p>
      </form>`;
    sendPage(res, body, { title: t(l, 'title'), session: sessionOf(res), status, lang: l });
  }

  router.get('/device', async (req, res) => {
    const session = sessionOf(res);
    const l: Locale = dashboardLocale(req, res);
    if (session.user.kind !== 'merchant') {
      sendPage(res, html`<p>${t(l, 'operatorsCannot')}</p>`, {
        title: t(l, 'title'),
        session,
        status: 403,
        lang: l,
      });
      return;
    }
    const typed = typeof req.query.user_code === 'string' ? req.query.user_code : '';
    if (typed === '') return codeForm(req, res);
    const code = normalizeUserCode(typed);
    const found = code ? await device.lookup(code) : ({ state: 'unknown' } as const);
    if (found.state !== 'pending') {
      return codeForm(
        req,
        res,
        notice('error', t(l, found.state === 'expired' ? 'expired' : 'unknown')),
        found.state === 'expired' ? 410 : 404,
      );
    }
    const merchant = await accounts.load(session.user.merchant_id!);
    const csrf = csrfField(session.session.csrf_token);
    const body = html`<p>
        <strong data-testid="client-name">${found.row.client_name}</strong
        >${t(l, 'asksBefore')}<strong>${t(l, 'testMode')}</strong>${t(l, 'asksAfter')}<strong>${merchant.name}</strong>.
      </p>
      <p>${t(l, 'code')} <strong data-testid="user-code">${found.userCode}</strong></p>
      <p>${t(l, 'approveOnly')}</p>
      <form method="post" action="/device" class="inline">
        ${csrf}<input type="hidden" name="user_code" value="${found.userCode}" />
        <button type="submit" name="decision" value="approve">${t(l, 'approve')}</button>
        <button type="submit" name="decision" value="deny" class="danger">${t(l, 'deny')}</button>
      </form>`;
    sendPage(res, body, { title: t(l, 'title'), session, lang: l });
  });

  // Approving a device hands it an API key: only members who may manage keys (operators are told no below).
  const approver = requireAction('manage_keys');
  router.post(
    '/device',
    (req, res, next) => (sessionOf(res).user.kind === 'merchant' ? approver(req, res, next) : next()),
    async (req, res) => {
      const session = sessionOf(res);
      const l = dashboardLocale(req, res);
      const code = normalizeUserCode(field(req, 'user_code'));
      const decision = field(req, 'decision');
      if (!code || (decision !== 'approve' && decision !== 'deny')) {
        return codeForm(req, res, notice('error', t(l, 'unreadable')), 400);
      }
      try {
        const status = await device.decide(code, session.user, decision === 'approve');
        const text = t(l, status === 'approved' ? 'approved' : 'denied');
        sendPage(res, notice('ok', html`<span data-testid="device-result">${text}</span>`), {
          title: t(l, 'title'),
          session,
          lang: l,
        });
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        codeForm(req, res, notice('error', err.message), err.status);
      }
    },
  );

  return router;
}
