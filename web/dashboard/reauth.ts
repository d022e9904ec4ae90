import type { Request, RequestHandler, Response } from 'express';
import { html, type SafeHtml } from '../../html/html';
import { defineMessages } from '../messages';
import { REAUTH_WINDOW_SECONDS } from '../../services/second-factor';
import { merchantView, sendMerchantPage } from './frame';
import { field, sessionOf, type WebContext } from './context';

const t = defineMessages({
  en: {
    title: 'Confirm it is you',
    intro:
      'This changes something that guards your money, and your last sign-in was more than {minutes} minutes ago. Enter your password{factor, select, yes { and a code from your authenticator app (or a recovery code)} other {}} to carry on. Nothing has been changed yet.',
    password: 'Password',
    code: 'Authentication code',
    carryOn: 'Confirm and carry on',
    wrong: 'That did not match. Nothing was changed.',
    locked:
      'Too many failed attempts. Sign-in for this address is paused for 15 minutes. Nothing was changed.',
  },
  is: {
    title: 'Staðfestu að þetta sért þú',
    intro:
      'Þessi aðgerð breytir því sem ver fjármunina þína og meira en {minutes} mínútur eru frá síðustu innskráningu. Sláðu inn lykilorðið{factor, select, yes { og kóða úr auðkenningarforritinu (eða endurheimtarkóða)} other {}} til að halda áfram. Engu hefur verið breytt enn.',
    password: 'Lykilorð',
    code: 'Auðkenningarkóði',
    carryOn: 'Staðfesta og halda áfram',
    wrong: 'Þetta passaði ekki. Engu var breytt.',
    locked:
      'Of margar misheppnaðar tilraunir. Innskráning á þetta netfang er stöðvuð í 15 mínútur. Engu var breytt.',
  },
});

const REAUTH_FIELDS = new Set(['_csrf', '_reauth', '_reauth_password', '_reauth_code']);

/** The posted form as name/value pairs again, nested fields (`a[b]`) written back as they came. */
function formPairs(body: unknown, prefix = ''): [string, string][] {
  if (typeof body === 'string') return [[prefix, body]];
  if (Array.isArray(body)) return body.flatMap((v) => formPairs(v, `${prefix}[]`));
  if (body && typeof body === 'object')
    return Object.entries(body as Record<string, unknown>).flatMap(([k, v]) =>
      prefix === '' && REAUTH_FIELDS.has(k) ? [] : formPairs(v, prefix ? `${prefix}[${k}]` : k),
    );
  return [];
}

/**
 * A sensitive form post (decision 0222) goes through only after a full sign-in within the last few
 * minutes. Otherwise the page asks for the password and second factor again, carrying the form
 * as it was posted in hidden fields; nothing is done until they are given, and then the same form
 * goes on to its handler. `when` narrows it to the posts that need it (a live key, a refund above
 * the merchant's amount, a new bank account).
 */
export function requireRecentSignIn(
  ctx: WebContext,
  when: (req: Request, res: Response) => Promise<boolean> | boolean = () => true,
): RequestHandler {
  const { secondFactor } = ctx.services;
  return async (req, res, next) => {
    if (req.method !== 'POST') return next();
    const session = sessionOf(res);
    if (!(await when(req, res))) return next();
    const asked = field(req, '_reauth') === '1';
    let error: string | undefined;
    let status = 401;
    const view = merchantView(req, res);
    const l = view.locale;
    if (asked) {
      const result = await secondFactor.reauthenticate(
        session.session,
        session.user,
        field(req, '_reauth_password'),
        field(req, '_reauth_code'),
      );
      if (result.ok) return next();
      error = t(l, result.reason === 'locked' ? 'locked' : 'wrong');
      if (result.reason === 'locked') status = 429;
    } else if (await secondFactor.recentlyAuthenticated(session.session)) {
      return next();
    }
    const hasFactor = await secondFactor.hasFactor(session.user.id);
    const carried: SafeHtml[] = formPairs(req.body).map(
      ([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`,
    );
    const body = html`<p>
        ${t(l, 'intro', { minutes: REAUTH_WINDOW_SECONDS / 60, factor: hasFactor ? 'yes' : 'no' })}
      </p>
      <form method="post" action="${req.originalUrl}" data-testid="reauth-form">
        ${view.csrf}
        <input type="hidden" name="_reauth" value="1" />
        ${carried}
        <label for="_reauth_password">${t(l, 'password')}</label>
        <input
          id="_reauth_password"
          name="_reauth_password"
          type="password"
          autocomplete="current-password"
          required
          autofocus
        />
        ${
          hasFactor
            ? html`<label for="_reauth_code">${t(l, 'code')}</label>
                <input
                  id="_reauth_code"
                  name="_reauth_code"
                  autocomplete="one-time-code"
                  required
                  maxlength="40"
                  spellcheck="false"
                />`
            : ''
        }
        <p><button type="submit">${t(l, 'carryOn')}</button></p>
      </form>`;
    sendMerchantPage(res, view, body, { title: t(l, 'title'), status, error });
  };
}
