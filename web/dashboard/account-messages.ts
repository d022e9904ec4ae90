import type { Request, Response } from 'express';
import { isLocale, type Locale } from '../../domain/locale';
import { dashboardLocale } from './language';
import { html, type SafeHtml } from '../../html/html';
import { defineMessages } from '../messages';
import type { CookieNames } from '../session';
import type { FieldIssue } from '../../services/accounts/account-input';

/** The sign-in, sign-up, verification, password-reset and team pages' messages, is/en (ICU). */
export const t = defineMessages({
  en: {
    sign_in_title: 'Sign in',
    email: 'Email',
    password: 'Password',
    new_password: 'New password',
    sign_in: 'Sign in',
    sign_in_expired: 'The sign-in form expired. Please try again.',
    sign_in_locked: 'Too many failed attempts. Sign-in for this address is paused for 15 minutes.',
    sign_in_wrong: 'The email or password is not right.',
    no_account: 'New to Skil?',
    create_account_link: 'Create an account',
    forgot_link: 'Forgot your password?',
    have_account: 'Have an account already?',
    sign_up_title: 'Create your Skil account',
    sign_up_intro:
      'Test mode is ready the moment you sign up: no verification, no real money. Verify your email afterwards to apply for live payments.',
    business_name: 'Business name',
    password_hint: 'At least 12 characters.',
    create_account: 'Create account',
    form_expired: 'The form expired. Please try again.',
    issue_business_name_missing: 'Enter your business name.',
    issue_business_name_too_long: 'The business name can be at most 255 characters.',
    issue_email_invalid: 'Enter a valid email address, like you@example.is.',
    issue_email_taken: 'This address already has an account. Sign in, or reset your password.',
    issue_already_member: 'This address is already a member of your team.',
    issue_password_too_short: 'The password must be at least 12 characters.',
    issue_password_too_long: 'The password can be at most 256 characters.',
    issue_role_invalid: 'Choose a role.',
    issue_token_invalid: 'This link has expired or was used already.',
    fix_these: 'Please correct {count, plural, one {this} other {these}}:',
    signed_up_title: 'Your test account is ready',
    signed_up_key:
      'Your test API key. It is shown only now: copy it somewhere safe. It works at once, with no verification.',
    signed_up_mail: 'We sent a link to {email} to verify your email address.',
    signed_up_mail_failed:
      'We could not send the verification email just now. Send it again from the Team page.',
    signed_up_next: 'Verifying lets you apply for live payments and invite your team.',
    go_dashboard: 'Go to the dashboard',
    verify_title: 'Verify your email',
    verify_confirm: 'Verify {email} as the address of your Skil account.',
    verify_button: 'Verify email',
    verified: '{email} is verified.',
    link_invalid: 'This link has expired or was used already.',
    link_invalid_verify: 'Sign in and send a new verification link from the Team page.',
    reset_title: 'Reset your password',
    reset_intro: 'Enter your account’s email address and we will send you a link to choose a new password.',
    reset_send: 'Send reset link',
    reset_sent:
      'If {email} has a Skil account, a link to choose a new password is on its way. It works for one hour.',
    reset_choose: 'Choose a new password for your account.',
    reset_save: 'Save new password',
    reset_done: 'Your password is changed. Sign in with it now.',
    reset_again: 'Ask for a new link',
    team_title: 'Team',
    team_members: 'Members',
    team_role: 'Role',
    team_status: 'Email',
    team_you: '(you)',
    team_verified: 'verified',
    team_unverified: 'not verified',
    team_change: 'Change role',
    team_remove: 'Remove',
    team_invite: 'Invite a member',
    team_invite_button: 'Send invitation',
    team_invited: 'Invitation sent to {email}.',
    team_invite_mail_failed:
      'The invitation to {email} is saved, but its email could not be sent. Invite again to resend.',
    team_pending: 'Open invitations',
    team_expires: 'Expires',
    team_revoke: 'Revoke',
    team_role_changed: 'Role changed.',
    team_removed: 'Member removed.',
    team_revoked: 'Invitation revoked.',
    team_unverified_notice:
      'Your email address {email} is not verified yet. Verify it to invite your team and apply for live payments.',
    team_resend: 'Send the verification link again',
    team_resent: 'A new verification link is on its way to {email}.',
    team_resend_failed: 'The verification email could not be sent just now. Try again in a moment.',
    team_not_allowed: 'Your role ({role}) cannot manage the team. Ask an owner.',
    role_owner: 'Owner',
    role_developer: 'Developer',
    role_finance: 'Finance',
    role_read_only: 'Read-only',
    invitation_title: 'Join {merchant} on Skil',
    invitation_intro:
      'You are invited to {merchant}’s team as {role}. Choose a password for {email} to accept.',
    invitation_accept: 'Accept invitation',
    language: 'Language',
    err_last_owner:
      'The last owner cannot be removed or given another role. Make another member an owner first.',
    err_email_not_verified:
      'Verify your email address before inviting your team: follow the link we emailed you, or send a new one below.',
    err_role_not_allowed: 'Your role cannot manage the team.',
    err_resource_missing: 'That member or invitation is not in your team.',
  },
  is: {
    sign_in_title: 'Innskráning',
    email: 'Netfang',
    password: 'Lykilorð',
    new_password: 'Nýtt lykilorð',
    sign_in: 'Skrá inn',
    sign_in_expired: 'Innskráningarformið rann út. Reyndu aftur.',
    sign_in_locked:
      'Of margar misheppnaðar tilraunir. Innskráning með þessu netfangi er stöðvuð í 15 mínútur.',
    sign_in_wrong: 'Netfangið eða lykilorðið er ekki rétt.',
    no_account: 'Nýr hjá Skil?',
    create_account_link: 'Stofna aðgang',
    forgot_link: 'Gleymdirðu lykilorðinu?',
    have_account: 'Ertu þegar með aðgang?',
    sign_up_title: 'Stofnaðu aðgang hjá Skil',
    sign_up_intro:
      'Prófunarhamur er tilbúinn um leið og þú skráir þig: engin staðfesting, engir raunpeningar. Staðfestu netfangið síðan til að sækja um raungreiðslur.',
    business_name: 'Nafn fyrirtækis',
    password_hint: 'Minnst 12 stafir.',
    create_account: 'Stofna aðgang',
    form_expired: 'Formið rann út. Reyndu aftur.',
    issue_business_name_missing: 'Sláðu inn nafn fyrirtækisins.',
    issue_business_name_too_long: 'Nafn fyrirtækis má vera mest 255 stafir.',
    issue_email_invalid: 'Sláðu inn gilt netfang, t.d. þú@dæmi.is.',
    issue_email_taken: 'Þetta netfang er þegar með aðgang. Skráðu þig inn eða veldu nýtt lykilorð.',
    issue_already_member: 'Þetta netfang er þegar í teyminu.',
    issue_password_too_short: 'Lykilorðið þarf að vera minnst 12 stafir.',
    issue_password_too_long: 'Lykilorðið má vera mest 256 stafir.',
    issue_role_invalid: 'Veldu hlutverk.',
    issue_token_invalid: 'Þessi hlekkur er útrunninn eða hefur þegar verið notaður.',
    fix_these: 'Lagaðu {count, plural, one {þetta} other {þessi atriði}}:',
    signed_up_title: 'Prófunaraðgangurinn þinn er tilbúinn',
    signed_up_key:
      'Prófunarlykillinn þinn að API. Hann birtist aðeins núna: geymdu hann á öruggum stað. Hann virkar strax, án staðfestingar.',
    signed_up_mail: 'Við sendum hlekk á {email} til að staðfesta netfangið.',
    signed_up_mail_failed:
      'Ekki tókst að senda staðfestingarpóstinn núna. Sendu hann aftur af síðunni Teymi.',
    signed_up_next: 'Með staðfestingu geturðu sótt um raungreiðslur og boðið teyminu þínu.',
    go_dashboard: 'Fara í stjórnborðið',
    verify_title: 'Staðfestu netfangið',
    verify_confirm: 'Staðfesta {email} sem netfang Skil-aðgangsins þíns.',
    verify_button: 'Staðfesta netfang',
    verified: '{email} er staðfest.',
    link_invalid: 'Þessi hlekkur er útrunninn eða hefur þegar verið notaður.',
    link_invalid_verify: 'Skráðu þig inn og sendu nýjan staðfestingarhlekk af síðunni Teymi.',
    reset_title: 'Nýtt lykilorð',
    reset_intro: 'Sláðu inn netfang aðgangsins og við sendum þér hlekk til að velja nýtt lykilorð.',
    reset_send: 'Senda hlekk',
    reset_sent:
      'Ef {email} er með aðgang hjá Skil er hlekkur til að velja nýtt lykilorð á leiðinni. Hann gildir í eina klukkustund.',
    reset_choose: 'Veldu nýtt lykilorð fyrir aðganginn.',
    reset_save: 'Vista nýtt lykilorð',
    reset_done: 'Lykilorðinu er breytt. Skráðu þig inn með því.',
    reset_again: 'Biðja um nýjan hlekk',
    team_title: 'Teymi',
    team_members: 'Meðlimir',
    team_role: 'Hlutverk',
    team_status: 'Netfang',
    team_you: '(þú)',
    team_verified: 'staðfest',
    team_unverified: 'óstaðfest',
    team_change: 'Breyta hlutverki',
    team_remove: 'Fjarlægja',
    team_invite: 'Bjóða meðlim',
    team_invite_button: 'Senda boð',
    team_invited: 'Boð sent á {email}.',
    team_invite_mail_failed:
      'Boðið til {email} er vistað en ekki tókst að senda póstinn. Bjóddu aftur til að senda hann.',
    team_pending: 'Opin boð',
    team_expires: 'Rennur út',
    team_revoke: 'Afturkalla',
    team_role_changed: 'Hlutverki breytt.',
    team_removed: 'Meðlimur fjarlægður.',
    team_revoked: 'Boð afturkallað.',
    team_unverified_notice:
      'Netfangið þitt {email} er óstaðfest. Staðfestu það til að bjóða teyminu og sækja um raungreiðslur.',
    team_resend: 'Senda staðfestingarhlekk aftur',
    team_resent: 'Nýr staðfestingarhlekkur er á leið til {email}.',
    team_resend_failed: 'Ekki tókst að senda staðfestingarpóstinn núna. Reyndu aftur eftir smástund.',
    team_not_allowed: 'Hlutverkið þitt ({role}) getur ekki stjórnað teyminu. Talaðu við eiganda.',
    role_owner: 'Eigandi',
    role_developer: 'Forritari',
    role_finance: 'Fjármál',
    role_read_only: 'Lesaðgangur',
    invitation_title: 'Gakktu í teymi {merchant} hjá Skil',
    invitation_intro:
      'Þér er boðið í teymi {merchant} sem {role}. Veldu lykilorð fyrir {email} til að samþykkja.',
    invitation_accept: 'Samþykkja boð',
    language: 'Tungumál',
    err_last_owner:
      'Ekki má fjarlægja síðasta eigandann eða gefa honum annað hlutverk. Gerðu fyrst annan meðlim að eiganda.',
    err_email_not_verified:
      'Staðfestu netfangið þitt áður en þú býður teyminu: fylgdu hlekknum sem við sendum eða sendu nýjan hér fyrir neðan.',
    err_role_not_allowed: 'Hlutverkið þitt getur ekki stjórnað teyminu.',
    err_resource_missing: 'Þessi meðlimur eða boð er ekki í teyminu þínu.',
  },
});

export type AccountMessage = Parameters<typeof t>[1];

/**
 * The page's locale: `?lang=` (remembered in the cookie and on a signed-in user by
 * web/dashboard/language.ts), a form's `lang` field, then the dashboard's rule (the user's stored
 * language, the cookie, Accept-Language).
 */
export function localeOf(req: Request, res: Response, _cookies: CookieNames): Locale {
  const query = req.query.lang;
  if (isLocale(query)) return query;
  const form = (req.body as Record<string, unknown> | undefined)?.lang;
  return isLocale(form) ? form : dashboardLocale(req, res);
}

/** Links to the same page in the other language, keeping its query (a link's token). */
export function languageSwitch(req: Request, locale: Locale): SafeHtml {
  const other: Locale = locale === 'is' ? 'en' : 'is';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(req.query)) if (k !== 'lang' && typeof v === 'string') params.set(k, v);
  params.set('lang', other);
  return html`<p>
    <a href="${req.path}?${params.toString()}" lang="${other}" hreflang="${other}"
      >${other === 'is' ? 'Íslenska' : 'English'}</a
    >
  </p>`;
}

/** The hidden field that keeps a form's answer in the language it was shown in. */
export function langField(locale: Locale): SafeHtml {
  return html`<input type="hidden" name="lang" value="${locale}" />`;
}

/** An issue's message in the locale. */
export function issueText(locale: Locale, issue: FieldIssue): string {
  return t(locale, `issue_${issue.code}`);
}

/** A labelled input; its issue, if any, is tied to it with aria-describedby and aria-invalid. */
export function textInput(
  locale: Locale,
  opts: {
    name: string;
    label: string;
    type?: string;
    value?: string;
    autocomplete?: string;
    hint?: string;
    issues: FieldIssue[];
    autofocus?: boolean;
  },
): SafeHtml {
  const issue = opts.issues.find((i) => i.param === opts.name);
  const described = [opts.hint ? `${opts.name}-hint` : '', issue ? `${opts.name}-error` : '']
    .filter(Boolean)
    .join(' ');
  return html`<label for="${opts.name}">${opts.label}</label>
    ${opts.hint ? html`<p class="hint" id="${opts.name}-hint">${opts.hint}</p>` : ''}
    <input
      id="${opts.name}"
      name="${opts.name}"
      type="${opts.type ?? 'text'}"
      ${opts.value !== undefined ? html`value="${opts.value}"` : ''}
      ${opts.autocomplete ? html`autocomplete="${opts.autocomplete}"` : ''}
      ${described ? html`aria-describedby="${described}"` : ''}
      ${issue ? html`aria-invalid="true"` : ''}
      ${opts.autofocus ? html`autofocus` : ''}
      required
    />
    ${issue ? html`<p class="field-error" id="${opts.name}-error">${issueText(locale, issue)}</p>` : ''}`;
}

/** The summary box of a form's issues, announced to screen readers. */
export function issueSummary(locale: Locale, issues: FieldIssue[]): SafeHtml {
  if (issues.length === 0) return html``;
  return html`<div class="notice error" role="alert">
    <p>${t(locale, 'fix_these', { count: issues.length })}</p>
    <ul>
      ${issues.map((i) => html`<li><a href="#${i.param === 'token' ? 'main' : i.param}">${issueText(locale, i)}</a></li>`)}
    </ul>
  </div>`;
}
