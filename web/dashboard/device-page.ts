import { Router, type Response } from 'express';
import { ApiError } from '../../domain/errors';
import { normalizeUserCode } from '../../domain/device-codes';
import { html, type SafeHtml } from '../../html/html';
import { notice } from '../../html/notice';
import { csrfField, sendPage } from '../layout';
import { requireAction } from './frame';
import { field, requireCsrf, requireUser, sessionOf, type WebContext } from './context';

/**
 * The verification page of the device flow (spec §5.4): a signed-in merchant user sees which
 * client asks for access and approves or denies it. The code is shown so the user can check it
 * against the one in their terminal (RFC 8628 §5.4, remote phishing).
 */
export function devicePages(ctx: WebContext): Router {
  const router = Router();
  const { device, accounts } = ctx.services;
  router.use('/device', requireUser(), requireCsrf(ctx));

  function codeForm(res: Response, message?: SafeHtml, status = 200) {
    const body = html`${message ?? ''}
      <form method="get" action="/device">
        <label for="user_code">Code shown by your terminal or agent</label>
        <input
          id="user_code"
          name="user_code"
          autocomplete="off"
          autocapitalize="characters"
          spellcheck="false"
          required
          autofocus
        />
        <p><button type="submit">Continue</button></p>
      </form>`;
    sendPage(res, body, { title: 'Authorize a device', session: sessionOf(res), status });
  }

  router.get('/device', async (req, res) => {
    const session = sessionOf(res);
    if (session.user.kind !== 'merchant') {
      sendPage(res, html`<p>Sign in with a merchant account to authorize a device. Operators cannot.</p>`, {
        title: 'Authorize a device',
        session,
        status: 403,
      });
      return;
    }
    const typed = typeof req.query.user_code === 'string' ? req.query.user_code : '';
    if (typed === '') return codeForm(res);
    const code = normalizeUserCode(typed);
    const found = code ? await device.lookup(code) : ({ state: 'unknown' } as const);
    if (found.state !== 'pending') {
      return codeForm(
        res,
        notice(
          'error',
          found.state === 'expired'
            ? 'This code has expired. Start the sign-in again from your terminal.'
            : 'No pending request has this code. Check it and try again.',
        ),
        found.state === 'expired' ? 410 : 404,
      );
    }
    const merchant = await accounts.load(session.user.merchant_id!);
    const csrf = csrfField(session.session.csrf_token);
    const body = html`<p>
        <strong data-testid="client-name">${found.row.client_name}</strong> asks for a
        <strong>test mode</strong> API key for <strong>${merchant.name}</strong>.
      </p>
      <p>Code: <strong data-testid="user-code">${found.userCode}</strong></p>
      <p>
        Approve only if you started this sign-in yourself and this code matches the one shown in your
        terminal.
      </p>
      <form method="post" action="/device" class="inline">
        ${csrf}<input type="hidden" name="user_code" value="${found.userCode}" />
        <button type="submit" name="decision" value="approve">Approve</button>
        <button type="submit" name="decision" value="deny" class="danger">Deny</button>
      </form>`;
    sendPage(res, body, { title: 'Authorize a device', session });
  });

  // Approving a device hands it an API key: only members who may manage keys (operators are told no below).
  const approver = requireAction('manage_keys');
  router.post(
    '/device',
    (req, res, next) => (sessionOf(res).user.kind === 'merchant' ? approver(req, res, next) : next()),
    async (req, res) => {
      const session = sessionOf(res);
      const code = normalizeUserCode(field(req, 'user_code'));
      const decision = field(req, 'decision');
      if (!code || (decision !== 'approve' && decision !== 'deny')) {
        return codeForm(res, notice('error', 'That request could not be read. Enter the code again.'), 400);
      }
      try {
        const status = await device.decide(code, session.user, decision === 'approve');
        const text =
          status === 'approved'
            ? 'Approved. Your terminal will receive a test mode key in a few seconds; you can close this window.'
            : 'Denied. The device gets no key.';
        sendPage(res, notice('ok', html`<span data-testid="device-result">${text}</span>`), {
          title: 'Authorize a device',
          session,
        });
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        codeForm(res, notice('error', err.message), err.status);
      }
    },
  );

  return router;
}
