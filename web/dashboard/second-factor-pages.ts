import { Router, type Request, type Response } from 'express';
import type { Locale } from '../../domain/locale';
import { ApiError } from '../../domain/errors';
import { html } from '../../html/html';
import { notice } from '../../html/notice';
import { csrfField, sendPage } from '../layout';
import { defineMessages } from '../messages';
import { qrSvg } from '../qr-code';
import { csrfValid, pendingFactorSession, preSessionCsrf, setCookie } from '../session';
import {
  errorMessage,
  field,
  requireCsrf,
  requireUser,
  safeNext,
  sessionOf,
  type WebContext,
} from './context';
import { merchantView, sendMerchantPage, viewPreferences } from './frame';
import { langField, languageSwitch, localeOf } from './account-messages';
import { requireRecentSignIn } from './reauth';
import { PASSKEY_JS } from './passkey-script';
import type { SafeHtml } from '../../html/html';

const t = defineMessages({
  en: {
    code_title: 'Two-step sign-in',
    code_intro: 'Enter the six-digit code from your authenticator app, or one of your recovery codes.',
    code: 'Authentication code',
    verify: 'Verify',
    code_wrong: 'That code is not right, or was used already.',
    code_locked: 'Too many failed attempts. Sign-in for this address is paused for 15 minutes.',
    code_expired: 'The form expired. Please try again.',
    cancel: 'Start again',
    security_title: 'Security',
    must_enrol:
      'Your account requires a second factor. Set up an authenticator app before you continue to the dashboard.',
    totp_heading: 'Authenticator app',
    totp_on: 'An authenticator app is set up for {email}. Sign-in asks for its code after your password.',
    totp_off: 'No second factor is set up. With one, a stolen password alone does not open your account.',
    recovery_left:
      '{count, plural, =0 {No recovery codes are left: ask the platform operator to reset your second factor if you lose your phone.} one {One recovery code is left.} other {# recovery codes are left.}}',
    start: 'Set up an authenticator app',
    enrol_title: 'Set up an authenticator app',
    enrol_scan:
      'Scan this code with an authenticator app (such as Google Authenticator, 1Password or Authy).',
    enrol_qr: 'QR code for your authenticator app',
    enrol_text: 'Or type this key into the app:',
    enrol_confirm: 'Then enter the six-digit code the app shows, to confirm.',
    confirm: 'Confirm',
    enrol_wrong: 'That code is not right. Check the time on your phone and try the newest code.',
    codes_title: 'Your recovery codes',
    codes_intro:
      'Your authenticator app is set up. Keep these recovery codes somewhere safe: each signs you in once if you lose your phone. They are shown only now.',
    codes_done: 'I have saved them: continue',
    merchant_heading: 'For every member',
    require: 'Require a second factor of every member',
    require_hint: 'Members without one are asked to set one up at their next sign-in.',
    threshold: 'Ask for a recent sign-in before refunds above (ISK)',
    save: 'Save',
    saved: 'Saved.',
    owner_live: 'As an owner of a merchant that takes live payments, you must have a second factor.',
    passkeys_heading: 'Passkeys',
    passkeys_count:
      '{count, plural, =0 {No passkey yet. A passkey on this device or a security key signs you in without typing a code.} one {One passkey.} other {# passkeys.}}',
    passkeys_need_totp: 'Set up an authenticator app first; its recovery codes cover your passkeys too.',
    passkey_add: 'Add a passkey',
    passkey_create: 'Create a passkey',
    passkey_intro:
      'Your browser will ask you to confirm with this device (fingerprint, face, PIN) or a security key.',
    passkey_added: 'Passkey added.',
    passkey_failed: 'The passkey was not created or not accepted. Try again.',
    passkey_use: 'Use a passkey',
    passkey_wrong: 'The passkey was not accepted.',
  },
  is: {
    code_title: 'Tveggja þrepa innskráning',
    code_intro: 'Sláðu inn sex stafa kóðann úr auðkenningarforritinu eða einn af endurheimtarkóðunum þínum.',
    code: 'Auðkenningarkóði',
    verify: 'Staðfesta',
    code_wrong: 'Þessi kóði er ekki réttur eða hefur þegar verið notaður.',
    code_locked: 'Of margar misheppnaðar tilraunir. Innskráning á þetta netfang er stöðvuð í 15 mínútur.',
    code_expired: 'Eyðublaðið rann út. Reyndu aftur.',
    cancel: 'Byrja aftur',
    security_title: 'Öryggi',
    must_enrol:
      'Aðgangurinn þinn krefst annars auðkennis. Settu upp auðkenningarforrit áður en þú heldur áfram á stjórnborðið.',
    totp_heading: 'Auðkenningarforrit',
    totp_on:
      'Auðkenningarforrit er uppsett fyrir {email}. Við innskráningu er beðið um kóða úr því á eftir lykilorðinu.',
    totp_off:
      'Ekkert annað auðkenni er uppsett. Með því dugar stolið lykilorð eitt sér ekki til að opna aðganginn.',
    recovery_left:
      '{count, plural, =0 {Engir endurheimtarkóðar eru eftir: biddu umsjónaraðila að endurstilla annað auðkennið ef þú týnir símanum.} one {Einn endurheimtarkóði er eftir.} other {# endurheimtarkóðar eru eftir.}}',
    start: 'Setja upp auðkenningarforrit',
    enrol_title: 'Setja upp auðkenningarforrit',
    enrol_scan:
      'Skannaðu þennan kóða með auðkenningarforriti (t.d. Google Authenticator, 1Password eða Authy).',
    enrol_qr: 'QR-kóði fyrir auðkenningarforritið',
    enrol_text: 'Eða sláðu þennan lykil inn í forritið:',
    enrol_confirm: 'Sláðu síðan inn sex stafa kóðann sem forritið sýnir til að staðfesta.',
    confirm: 'Staðfesta',
    enrol_wrong: 'Þessi kóði er ekki réttur. Athugaðu klukkuna í símanum og reyndu nýjasta kóðann.',
    codes_title: 'Endurheimtarkóðarnir þínir',
    codes_intro:
      'Auðkenningarforritið er uppsett. Geymdu þessa endurheimtarkóða á öruggum stað: hver þeirra skráir þig inn einu sinni ef þú týnir símanum. Þeir eru aðeins sýndir núna.',
    codes_done: 'Ég hef vistað þá: halda áfram',
    merchant_heading: 'Fyrir alla í teyminu',
    require: 'Krefjast annars auðkennis af öllum í teyminu',
    require_hint: 'Þau sem hafa ekkert eru beðin að setja það upp við næstu innskráningu.',
    threshold: 'Biðja um nýlega innskráningu fyrir endurgreiðslur yfir (kr.)',
    save: 'Vista',
    saved: 'Vistað.',
    owner_live: 'Sem eigandi söluaðila sem tekur við raungreiðslum verður þú að hafa annað auðkenni.',
    passkeys_heading: 'Aðgangslyklar',
    passkeys_count:
      '{count, plural, =0 {Enginn aðgangslykill enn. Aðgangslykill í þessu tæki eða öryggislykill skráir þig inn án þess að slá inn kóða.} one {Einn aðgangslykill.} other {# aðgangslyklar.}}',
    passkeys_need_totp:
      'Settu fyrst upp auðkenningarforrit; endurheimtarkóðar þess gilda líka fyrir aðgangslyklana.',
    passkey_add: 'Bæta við aðgangslykli',
    passkey_create: 'Búa til aðgangslykil',
    passkey_intro:
      'Vafrinn biður þig að staðfesta með þessu tæki (fingrafari, andliti, PIN) eða öryggislykli.',
    passkey_added: 'Aðgangslykli bætt við.',
    passkey_failed: 'Aðgangslykillinn var ekki búinn til eða ekki samþykktur. Reyndu aftur.',
    passkey_use: 'Nota aðgangslykil',
    passkey_wrong: 'Aðgangslyklinum var hafnað.',
  },
});

const PASSKEY_SCRIPT = '/dashboard/assets/passkey.js';

/**
 * The passkey button: hidden until the script finds WebAuthn, the options in a data attribute, the
 * answer posted by a form (the pages' CSP allows no request from script, decision 0223).
 */
function passkeyWidget(
  locale: Locale,
  mode: 'create' | 'get',
  options: unknown,
  action: string,
  hidden: SafeHtml,
  label: string,
): SafeHtml {
  return html`<div
    id="passkey"
    data-mode="${mode}"
    data-options="${JSON.stringify(options)}"
    data-failed="${t(locale, 'passkey_failed')}"
  >
    <p><button type="button" id="passkey-start" hidden>${label}</button></p>
    <p id="passkey-status" role="status"></p>
    <form id="passkey-form" method="post" action="${action}">
      ${hidden}
      <input type="hidden" name="credential" value="" />
    </form>
  </div>`;
}

const home = (kind: string) => (kind === 'operator' ? '/dashboard/operator' : '/dashboard/home');

/**
 * The second factor's pages (decisions 0220-0222): the sign-in's code step, the member's security
 * page (authenticator app enrolment with its QR code, recovery codes shown once) and, for owners,
 * the merchant's requirement and refund amount, whose weakening asks for a recent sign-in.
 */
export function secondFactorPages(ctx: WebContext): Router {
  const router = Router();
  const { secondFactor, signIn } = ctx.services;

  // ---- the sign-in's second step, for a session that has given its password ----

  function codeForm(locale: Locale, token: string, next: string | null, error?: string, passkey?: unknown) {
    const carried = html`${csrfField(token)} ${langField(locale)}
    ${next ? html`<input type="hidden" name="next" value="${next}" />` : ''}`;
    return html`${error ? notice('error', error) : ''}
      ${
        passkey
          ? html`${passkeyWidget(locale, 'get', passkey, '/dashboard/sign-in/passkey', carried, t(locale, 'passkey_use'))}`
          : ''
      }
      <p>${t(locale, 'code_intro')}</p>
      <form method="post" action="/dashboard/sign-in/code">
        ${csrfField(token)} ${langField(locale)}
        ${next ? html`<input type="hidden" name="next" value="${next}" />` : ''}
        <label for="code">${t(locale, 'code')}</label>
        <input
          id="code"
          name="code"
          autocomplete="one-time-code"
          inputmode="text"
          required
          maxlength="40"
          spellcheck="false"
          autofocus
        />
        <p><button type="submit">${t(locale, 'verify')}</button></p>
      </form>
      <form method="post" action="/dashboard/sign-in/code/cancel">
        ${csrfField(token)} ${langField(locale)}
        <p><button type="submit" class="secondary">${t(locale, 'cancel')}</button></p>
      </form>`;
  }

  router.get(PASSKEY_SCRIPT, (_req, res) => {
    res.type('application/javascript').setHeader('Cache-Control', 'public, max-age=300');
    res.send(PASSKEY_JS);
  });

  router.get('/dashboard/sign-in/code', async (req, res) => {
    const pending = pendingFactorSession(res);
    if (!pending) {
      res.redirect(303, '/dashboard/sign-in');
      return;
    }
    const locale = localeOf(req, res, ctx.cookies);
    const next = safeNext(req.query.next);
    const passkey = await secondFactor.passkeyAuthenticationOptions(pending.session, pending.user);
    sendPage(
      res,
      html`${languageSwitch(req, locale)}${codeForm(locale, preSessionCsrf(req, res, ctx.cookies), next, undefined, passkey)}`,
      { title: t(locale, 'code_title'), lang: locale, ...(passkey && { scripts: [PASSKEY_SCRIPT] }) },
    );
  });

  router.post(['/dashboard/sign-in/code', '/dashboard/sign-in/passkey'], async (req, res) => {
    const locale = localeOf(req, res, ctx.cookies);
    const next = safeNext(field(req, 'next'));
    const pending = pendingFactorSession(res);
    if (!pending) {
      res.redirect(303, '/dashboard/sign-in');
      return;
    }
    const retry = async (status: number, message: string) => {
      const passkey = await secondFactor.passkeyAuthenticationOptions(pending.session, pending.user);
      sendPage(res, codeForm(locale, preSessionCsrf(req, res, ctx.cookies), next, message, passkey), {
        title: t(locale, 'code_title'),
        lang: locale,
        status,
        ...(passkey && { scripts: [PASSKEY_SCRIPT] }),
      });
    };
    if (!csrfValid(req, res, ctx.cookies, 'pre-session')) {
      await retry(403, t(locale, 'code_expired'));
      return;
    }
    const byPasskey = req.path === '/dashboard/sign-in/passkey';
    const result = byPasskey
      ? await secondFactor.completeSignInWithPasskey(
          pending.session,
          pending.user,
          parseCredential(field(req, 'credential')),
        )
      : await secondFactor.completeSignIn(pending.session, pending.user, field(req, 'code'));
    if (!result.ok) {
      const wrong = byPasskey ? 'passkey_wrong' : 'code_wrong';
      await retry(
        result.reason === 'locked' ? 429 : 401,
        t(locale, result.reason === 'locked' ? 'code_locked' : wrong),
      );
      return;
    }
    res.redirect(303, next ?? home(pending.user.kind));
  });

  router.post('/dashboard/sign-in/code/cancel', async (req, res) => {
    const pending = pendingFactorSession(res);
    if (pending && csrfValid(req, res, ctx.cookies, 'pre-session')) {
      await signIn.signOut(pending.session.id);
      setCookie(res, ctx.cookies, ctx.cookies.session, '', 0);
    }
    res.redirect(303, '/dashboard/sign-in');
  });

  // ---- the member's security page ----

  router.use('/dashboard/security', requireUser('merchant'), requireCsrf(ctx), viewPreferences(ctx));

  async function securityPage(
    req: Request,
    res: Response,
    opts: { error?: string; ok?: string; status?: number } = {},
  ) {
    const view = merchantView(req, res);
    const l = view.locale;
    const { user, session } = sessionOf(res);
    const mine = await secondFactor.status(user.id);
    const isOwner = user.role === 'owner';
    const settings = isOwner ? await secondFactor.merchantSettings(user.merchant_id!) : null;
    const body = html`${session.must_enrol ? notice('warn', t(l, 'must_enrol')) : ''}
      <section aria-labelledby="totp-heading">
        <h2 id="totp-heading">${t(l, 'totp_heading')}</h2>
        ${
          mine.totp
            ? html`<p data-testid="totp-status">${t(l, 'totp_on', { email: user.email })}</p>
                <p>${t(l, 'recovery_left', { count: mine.recoveryCodesLeft })}</p>`
            : html`<p data-testid="totp-status">${t(l, 'totp_off')}</p>
                <form method="post" action="/dashboard/security/totp">
                  ${view.csrf}
                  <p><button type="submit">${t(l, 'start')}</button></p>
                </form>`
        }
      </section>
      <section aria-labelledby="passkeys-heading">
        <h2 id="passkeys-heading">${t(l, 'passkeys_heading')}</h2>
        ${
          mine.totp
            ? html`<p data-testid="passkey-count">${t(l, 'passkeys_count', { count: mine.passkeys })}</p>
                <form method="post" action="/dashboard/security/passkeys/new">
                  ${view.csrf}
                  <p><button type="submit">${t(l, 'passkey_add')}</button></p>
                </form>`
            : html`<p>${t(l, 'passkeys_need_totp')}</p>`
        }
      </section>
      ${
        settings
          ? html`<section aria-labelledby="merchant-heading">
              <h2 id="merchant-heading">${t(l, 'merchant_heading')}</h2>
              <form method="post" action="/dashboard/security/settings">
                ${view.csrf}
                <p>
                  <input
                    type="checkbox"
                    id="require_second_factor"
                    name="require_second_factor"
                    value="on"
                    ${settings.requireSecondFactor ? html`checked` : ''}
                  />
                  <label for="require_second_factor">${t(l, 'require')}</label>
                </p>
                <p class="hint">${t(l, 'require_hint')}</p>
                <label for="reauth_refund_above">${t(l, 'threshold')}</label>
                <input
                  id="reauth_refund_above"
                  name="reauth_refund_above"
                  inputmode="numeric"
                  pattern="[0-9]{1,12}"
                  required
                  value="${String(settings.reauthRefundAbove)}"
                />
                <p><button type="submit">${t(l, 'save')}</button></p>
              </form>
            </section>`
          : ''
      }`;
    sendMerchantPage(res, view, body, {
      title: t(l, 'security_title'),
      status: opts.status ?? 200,
      error: opts.error,
      ok: opts.ok,
    });
  }

  async function enrolPage(req: Request, res: Response, error?: string) {
    const view = merchantView(req, res);
    const l = view.locale;
    const { user } = sessionOf(res);
    const { secret, uri } = await secondFactor.startTotp(user);
    // The key in groups of four, as apps show and people type it.
    const grouped = secret.replace(/(.{4})(?=.)/g, '$1 ');
    const body = html`<p>${t(l, 'enrol_scan')}</p>
      <div class="qr">${await qrSvg(uri, t(l, 'enrol_qr'), 220)}</div>
      <p>${t(l, 'enrol_text')}</p>
      <p><code data-testid="totp-secret">${grouped}</code></p>
      <p>${t(l, 'enrol_confirm')}</p>
      <form method="post" action="/dashboard/security/totp/confirm">
        ${view.csrf}
        <label for="code">${t(l, 'code')}</label>
        <input
          id="code"
          name="code"
          autocomplete="one-time-code"
          inputmode="numeric"
          pattern="[0-9 ]{6,7}"
          required
          maxlength="7"
          autofocus
        />
        <p><button type="submit">${t(l, 'confirm')}</button></p>
      </form>`;
    sendMerchantPage(res, view, body, { title: t(l, 'enrol_title'), status: error ? 400 : 200, error });
  }

  router.get('/dashboard/security', (req, res) => securityPage(req, res));

  router.post('/dashboard/security/passkeys/new', async (req, res) => {
    const view = merchantView(req, res);
    const l = view.locale;
    const { session, user } = sessionOf(res);
    try {
      const options = await secondFactor.passkeyRegistrationOptions(session, user);
      const body = html`<p>${t(l, 'passkey_intro')}</p>
        ${passkeyWidget(l, 'create', options, '/dashboard/security/passkeys', view.csrf, t(l, 'passkey_create'))}`;
      sendMerchantPage(res, view, body, { title: t(l, 'passkey_add'), scripts: [PASSKEY_SCRIPT] });
    } catch (err) {
      await securityPage(req, res, {
        error: errorMessage(err),
        status: err instanceof ApiError ? err.status : 400,
      });
    }
  });

  router.post('/dashboard/security/passkeys', async (req, res) => {
    const l = merchantView(req, res).locale;
    const { session, user } = sessionOf(res);
    const added = await secondFactor.addPasskey(session, user, parseCredential(field(req, 'credential')));
    await securityPage(
      req,
      res,
      added ? { ok: t(l, 'passkey_added') } : { error: t(l, 'passkey_failed'), status: 400 },
    );
  });

  router.post('/dashboard/security/totp', async (req, res) => {
    try {
      await enrolPage(req, res);
    } catch (err) {
      await securityPage(req, res, { error: errorMessage(err), status: 409 });
    }
  });

  router.post('/dashboard/security/totp/confirm', async (req, res) => {
    const view = merchantView(req, res);
    const l = view.locale;
    let codes: string[] | null;
    try {
      codes = await secondFactor.confirmTotp(sessionOf(res).user, field(req, 'code'));
    } catch (err) {
      await securityPage(req, res, {
        error: errorMessage(err),
        status: err instanceof ApiError ? err.status : 400,
      });
      return;
    }
    if (!codes) {
      await enrolPage(req, res, t(l, 'enrol_wrong'));
      return;
    }
    const body = html`<p>${t(l, 'codes_intro')}</p>
      <ul class="recovery-codes" data-testid="recovery-codes">
        ${codes.map((c) => html`<li><code>${c}</code></li>`)}
      </ul>
      <p><a href="/dashboard/home">${t(l, 'codes_done')}</a></p>`;
    sendMerchantPage(res, view, body, { title: t(l, 'codes_title') });
  });

  router.post(
    '/dashboard/security/settings',
    (req, res, next) => {
      if (sessionOf(res).user.role === 'owner') return next();
      res.redirect(303, '/dashboard/security');
    },
    // Turning the requirement off, or raising the refund amount, weakens the guard (decision 0222).
    requireRecentSignIn(ctx, async (req, res) => {
      const current = await secondFactor.merchantSettings(sessionOf(res).user.merchant_id!);
      const turningOff = current.requireSecondFactor && field(req, 'require_second_factor') !== 'on';
      const raised = Number(field(req, 'reauth_refund_above')) > current.reauthRefundAbove;
      return turningOff || raised;
    }),
    async (req, res) => {
      const l = merchantView(req, res).locale;
      const raw = field(req, 'reauth_refund_above').trim();
      try {
        await secondFactor.setMerchantSettings(sessionOf(res).user, {
          requireSecondFactor: field(req, 'require_second_factor') === 'on',
          reauthRefundAbove: /^\d{1,12}$/.test(raw) ? Number(raw) : -1,
        });
        await securityPage(req, res, { ok: t(l, 'saved') });
      } catch (err) {
        await securityPage(req, res, {
          error: errorMessage(err),
          status: err instanceof ApiError ? err.status : 400,
        });
      }
    },
  );

  return router;
}

/** The posted WebAuthn answer, or null when it is not JSON of a sane size. */
function parseCredential(text: string): unknown {
  if (text.length === 0 || text.length > 20_000) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
