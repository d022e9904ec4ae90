import type { MailMessage } from '../../adapters/mail/mailer';
import type { Locale } from '../../domain/locale';
import type { MemberRole } from '../../domain/member-roles';

const ROLE_NAMES: Record<Locale, Record<MemberRole, string>> = {
  is: { owner: 'eigandi', developer: 'forritari', finance: 'fjármál', read_only: 'lesaðgangur' },
  en: { owner: 'owner', developer: 'developer', finance: 'finance', read_only: 'read-only' },
};

/** A role's name in the locale, as the emails and the team page show it. */
export function roleName(locale: Locale, role: MemberRole): string {
  return ROLE_NAMES[locale][role];
}

/**
 * The account emails in Icelandic and English: plain text with the link on a line of its own (so
 * every mail client makes it clickable), and a small HTML part with the same words.
 */
export function message(
  to: string,
  subject: string,
  lines: string[],
  link: string,
  action: string,
): MailMessage {
  const esc = (s: string) =>
    s.replace(
      /[&<>"']/g,
      (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
    );
  return {
    to,
    subject,
    text: `${lines.join('\n\n')}\n\n${action}:\n${link}\n`,
    html: `${lines.map((l) => `<p>${esc(l)}</p>`).join('')}<p><a href="${esc(link)}">${esc(action)}</a></p>`,
  };
}

export function verificationMail(locale: Locale, to: string, link: string, merchantName: string) {
  return locale === 'is'
    ? message(
        to,
        'Staðfestu netfangið þitt hjá Skil',
        [
          `Velkomin(n) til Skil. Aðgangur ${merchantName} í prófunarham er tilbúinn.`,
          'Staðfestu netfangið þitt til að geta sótt um raungreiðslur og boðið teyminu þínu. Hlekkurinn gildir í 7 daga.',
        ],
        link,
        'Staðfesta netfang',
      )
    : message(
        to,
        'Verify your email for Skil',
        [
          `Welcome to Skil. ${merchantName}'s test-mode account is ready.`,
          'Verify your email address to apply for live payments and invite your team. The link works for 7 days.',
        ],
        link,
        'Verify email',
      );
}

export function passwordResetMail(locale: Locale, to: string, link: string) {
  return locale === 'is'
    ? message(
        to,
        'Nýtt lykilorð hjá Skil',
        [
          'Beðið var um nýtt lykilorð fyrir þetta netfang hjá Skil. Hlekkurinn gildir í eina klukkustund og aðeins einu sinni.',
          'Ef þú baðst ekki um þetta máttu hunsa þennan póst; lykilorðið breytist ekki.',
        ],
        link,
        'Velja nýtt lykilorð',
      )
    : message(
        to,
        'Reset your Skil password',
        [
          'Someone asked to reset the password of this address at Skil. The link works once, for one hour.',
          'If it was not you, ignore this email; your password stays as it is.',
        ],
        link,
        'Choose a new password',
      );
}

export function invitationMail(
  locale: Locale,
  to: string,
  link: string,
  who: { inviter: string; merchantName: string; role: MemberRole },
) {
  return locale === 'is'
    ? message(
        to,
        `Boð í teymi ${who.merchantName} hjá Skil`,
        [
          `${who.inviter} bauð þér í teymi ${who.merchantName} hjá Skil með hlutverkið ${roleName('is', who.role)}.`,
          'Samþykktu boðið og veldu lykilorð. Hlekkurinn gildir í 7 daga.',
        ],
        link,
        'Samþykkja boð',
      )
    : message(
        to,
        `Join ${who.merchantName} on Skil`,
        [
          `${who.inviter} invited you to ${who.merchantName}'s team on Skil as ${roleName('en', who.role)}.`,
          'Accept the invitation and choose a password. The link works for 7 days.',
        ],
        link,
        'Accept invitation',
      );
}
