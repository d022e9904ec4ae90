import { Router, type Request, type Response } from 'express';
import {
  ProfilePatch,
  MERCHANT_TYPES,
  type LegalAddress,
  type MerchantType,
  type ProfileWarning,
} from '../../domain/merchant-profile';
import type { ApplicationStatus, CapabilityName, CapabilityStatus } from '../../domain/capabilities';
import type { Locale } from '../../domain/locale';
import { toInvalidRequest } from '../../domain/invalid-request';
import { presentMerchant, type MerchantRow } from '../../services/merchant/merchant-account';
import { maskedAccount } from '../../services/merchant/payout-account-guard';
import { formatLocalTime } from '../../domain/local-time';
import { html } from '../../html/html';
import { notice } from '../../html/notice';
import { defineMessages } from '../messages';
import { merchantView, requireAction, sendMerchantPage, table, viewPreferences } from './frame';
import { errorMessage, field, requireCsrf, requireUser, sessionOf, type WebContext } from './context';
import { requireRecentSignIn } from './reauth';

const t = defineMessages({
  en: {
    title: 'Profile',
    application: 'Application',
    status: 'Status:',
    app_unsubmitted: 'unsubmitted',
    app_in_review: 'in review',
    app_approved: 'approved',
    app_rejected: 'rejected',
    reason: '— reason: {reason}',
    capabilities: 'Capabilities (live)',
    capability: 'Capability',
    capabilityStatus: 'Status',
    stillNeeded: 'Still needed',
    cap_payments: 'Payments',
    cap_claims: 'Kröfur',
    cap_tap_to_pay: 'Tap to pay',
    capStatus_inactive: 'inactive',
    capStatus_pending: 'pending',
    capStatus_active: 'active',
    capStatus_rejected: 'rejected',
    enabledTest: 'Enabled in test mode: {list}. Enabled live:',
    nothingYet: 'nothing yet',
    submit: 'Submit application for review',
    profile: 'Profile',
    name: 'Business name',
    merchantType: 'Merchant type',
    notSet: 'Not set',
    type_company: 'company',
    type_individual: 'individual',
    kennitala: 'Kennitala (10 digits)',
    phone: 'Phone',
    website: 'Website',
    description: 'What you sell',
    bankAccount: 'Settlement bank account (0000-00-000000)',
    payoutHeld:
      'The payout account was changed to {account} on {changed}. Payouts to it wait until {until} unless an owner confirms the change from the email sent to every owner.',
    legalAddress: 'Legal address',
    street: 'Street',
    city: 'City',
    postalCode: 'Postal code',
    country: 'Country',
    save: 'Save profile',
    saved: 'Profile saved.',
    submitted: 'Application submitted. We will review it and let you know.',
    warn_kennitala_check_digit:
      'The kennitala fails the mod-11 check digit. Ids issued since 18 February 2026 may have none, so it is accepted; check it against the registry.',
    warn_kennitala_type_mismatch:
      'The kennitala is that of {kind, select, company {a company} other {a person}}, but merchant_type is {type}.',
  },
  is: {
    title: 'Upplýsingar',
    application: 'Umsókn',
    status: 'Staða:',
    app_unsubmitted: 'ekki send inn',
    app_in_review: 'í yfirferð',
    app_approved: 'samþykkt',
    app_rejected: 'hafnað',
    reason: '— ástæða: {reason}',
    capabilities: 'Heimildir í raunham',
    capability: 'Heimild',
    capabilityStatus: 'Staða',
    stillNeeded: 'Vantar enn',
    cap_payments: 'Greiðslur',
    cap_claims: 'Kröfur',
    cap_tap_to_pay: 'Snertigreiðslur',
    capStatus_inactive: 'óvirk',
    capStatus_pending: 'í bið',
    capStatus_active: 'virk',
    capStatus_rejected: 'hafnað',
    enabledTest: 'Virkt í prufuham: {list}. Virkt í raunham:',
    nothingYet: 'ekkert enn',
    submit: 'Senda umsókn til yfirferðar',
    profile: 'Upplýsingar um fyrirtækið',
    name: 'Heiti fyrirtækis',
    merchantType: 'Tegund söluaðila',
    notSet: 'Ekki valið',
    type_company: 'fyrirtæki',
    type_individual: 'einstaklingur',
    kennitala: 'Kennitala (10 tölustafir)',
    phone: 'Sími',
    website: 'Vefsíða',
    description: 'Hvað þú selur',
    bankAccount: 'Bankareikningur fyrir uppgjör (0000-00-000000)',
    payoutHeld:
      'Greiðslureikningnum var breytt í {account} {changed}. Útborganir á hann bíða til {until} nema eigandi staðfesti breytinguna úr tölvupóstinum sem allir eigendur fengu.',
    legalAddress: 'Lögheimili',
    street: 'Heimilisfang',
    city: 'Staður',
    postalCode: 'Póstnúmer',
    country: 'Land',
    save: 'Vista upplýsingar',
    saved: 'Upplýsingarnar eru vistaðar.',
    submitted: 'Umsóknin hefur verið send. Við förum yfir hana og látum þig vita.',
    warn_kennitala_check_digit:
      'Kennitalan stenst ekki vartöluprófun (mod 11). Kennitölur sem gefnar eru út frá og með 18. febrúar 2026 hafa ekki endilega vartölu, svo hún er samþykkt; berðu hana saman við þjóðskrá eða fyrirtækjaskrá.',
    warn_kennitala_type_mismatch:
      'Kennitalan er kennitala {kind, select, company {fyrirtækis} other {einstaklings}}, en tegund söluaðila (merchant_type) er {type}.',
  },
});

/**
 * A profile warning (domain/merchant-profile.ts) in the page's language, by its code; one this page
 * does not know keeps the domain's message. A mismatch means the kennitala is of the other kind.
 */
function warningText(l: Locale, w: { code: string; message: string }, type: MerchantType | null): string {
  const code = w.code as ProfileWarning['code'];
  if (code === 'kennitala_check_digit') return t(l, 'warn_kennitala_check_digit');
  if (code !== 'kennitala_type_mismatch') return w.message;
  return t(l, 'warn_kennitala_type_mismatch', {
    kind: type === 'company' ? 'individual' : 'company',
    type: type ? t(l, `type_${type}`) : '—',
  });
}

/** The merchant's profile form and application status, with the submit button. */
export function profilePages(ctx: WebContext): Router {
  const router = Router();
  const { accounts } = ctx.services;
  router.use(
    '/dashboard/profile',
    requireUser('merchant'),
    requireCsrf(ctx),
    viewPreferences(ctx),
    requireAction('manage_settings'),
  );
  const merchantIdOf = (res: Response) => sessionOf(res).user.merchant_id!;

  async function profilePage(
    req: Request,
    res: Response,
    row: MerchantRow,
    opts: { error?: string; ok?: string; status?: number } = {},
  ) {
    const view = merchantView(req, res);
    const hold = await ctx.services.payoutGuard.holdOf(row.id, row.bank_account);
    const l = view.locale;
    const m = presentMerchant(row, false);
    const live = presentMerchant(row, true).enabled_capabilities;
    const a = m.legal_address;
    const input = (
      name: string,
      label: string,
      value: string | null,
      attrs: { type?: string; max?: number } = {},
    ) =>
      html`<label for="${name}">${label}</label>
        <input
          id="${name}"
          name="${name}"
          type="${attrs.type ?? 'text'}"
          value="${value ?? ''}"
          ${attrs.max ? html`maxlength="${attrs.max}"` : ''}
        />`;
    const caps = Object.entries(m.capabilities).map(
      ([name, c]) =>
        html`<tr>
          <th scope="row">${t(l, `cap_${name as CapabilityName}`)}</th>
          <td>${t(l, `capStatus_${c.status satisfies CapabilityStatus}`)}</td>
          <td>${c.requirements.join(', ') || '—'}</td>
        </tr>`,
    );
    const status: ApplicationStatus = m.application.status;
    const canSubmit = status === 'unsubmitted' || status === 'rejected';
    const held = hold
      ? notice(
          'warn',
          html`<span data-testid="payout-held"
            >${t(l, 'payoutHeld', {
              account: maskedAccount(hold.new_account),
              changed: formatLocalTime(hold.created_at, l),
              until: formatLocalTime(hold.held_until, l),
            })}</span
          >`,
        )
      : '';
    const body = html`${held}${m.warnings.map((w) => notice('warn', warningText(l, w, m.merchant_type)))}
      <section aria-labelledby="app-h">
        <h2 id="app-h">${t(l, 'application')}</h2>
        <p>
          ${t(l, 'status')}
          <strong data-testid="application-status">${t(l, `app_${status}`)}</strong>
          ${m.application.rejection_reason ? t(l, 'reason', { reason: m.application.rejection_reason }) : ''}
        </p>
        ${table(
          t(l, 'capabilities'),
          [t(l, 'capability'), t(l, 'capabilityStatus'), t(l, 'stillNeeded')],
          caps,
          '',
        )}
        <p>
          ${t(l, 'enabledTest', { list: 'payments.card, payments.bank_claim' })}
          <span data-testid="live-enabled">${live.join(', ') || t(l, 'nothingYet')}</span>.
        </p>
        ${
          canSubmit
            ? html`<form method="post" action="/dashboard/profile/submit">
                ${view.csrf}
                <p><button type="submit">${t(l, 'submit')}</button></p>
              </form>`
            : ''
        }
      </section>
      <section aria-labelledby="profile-h">
        <h2 id="profile-h">${t(l, 'profile')}</h2>
        <form method="post" action="/dashboard/profile">
          ${view.csrf} ${input('name', t(l, 'name'), m.name, { max: 255 })}
          <label for="merchant_type">${t(l, 'merchantType')}</label>
          <select id="merchant_type" name="merchant_type">
            <option value="" ${m.merchant_type === null ? 'selected' : ''}>${t(l, 'notSet')}</option>
            ${MERCHANT_TYPES.map(
              (type) =>
                html`<option value="${type}" ${m.merchant_type === type ? 'selected' : ''}>
                  ${t(l, `type_${type}`)}
                </option>`,
            )}
          </select>
          ${input('kennitala', t(l, 'kennitala'), m.kennitala, { max: 10 })}
          ${input('phone', t(l, 'phone'), m.phone, { type: 'tel', max: 50 })}
          ${input('website', t(l, 'website'), m.website, { max: 255 })}
          <label for="business_description">${t(l, 'description')}</label>
          <textarea id="business_description" name="business_description" maxlength="2000">
${m.business_description ?? ''}</textarea>
          ${input('bank_account', t(l, 'bankAccount'), m.bank_account, { max: 14 })}
          <fieldset>
            <legend>${t(l, 'legalAddress')}</legend>
            ${input('legal_address[street]', t(l, 'street'), a?.street ?? null)}
            ${input('legal_address[city]', t(l, 'city'), a?.city ?? null)}
            ${input('legal_address[postalCode]', t(l, 'postalCode'), a?.postalCode ?? null)}
            ${input('legal_address[country]', t(l, 'country'), a?.country ?? null)}
          </fieldset>
          <p><button type="submit">${t(l, 'save')}</button></p>
        </form>
      </section>`;
    sendMerchantPage(res, view, body, {
      title: t(l, 'title'),
      status: opts.status ?? 200,
      error: opts.error,
      ok: opts.ok,
    });
  }
  router.get('/dashboard/profile', async (req, res) => {
    await profilePage(req, res, await accounts.load(merchantIdOf(res)));
  });

  // A new payout bank account asks for a recent sign-in (decision 0222); the rest of the profile does not.
  const bankAccountChange = requireRecentSignIn(ctx, async (req, res) => {
    const current = await accounts.load(merchantIdOf(res));
    return (field(req, 'bank_account') || null) !== current.bank_account;
  });

  router.post('/dashboard/profile', bankAccountChange, async (req, res) => {
    const id = merchantIdOf(res);
    const nullable = (name: string) => (field(req, name) === '' ? null : field(req, name));
    const address = (req.body as { legal_address?: Record<string, unknown> }).legal_address ?? {};
    const parts = ['street', 'city', 'postalCode', 'country'] as const;
    const addr = Object.fromEntries(parts.map((p) => [p, typeof address[p] === 'string' ? address[p] : '']));
    const input = {
      name: field(req, 'name'),
      ...(field(req, 'merchant_type') !== '' && { merchant_type: field(req, 'merchant_type') }),
      kennitala: nullable('kennitala'),
      phone: nullable('phone'),
      website: nullable('website'),
      business_description: nullable('business_description'),
      bank_account: nullable('bank_account'),
      legal_address: parts.every((p) => addr[p] === '') ? null : (addr as unknown as LegalAddress),
    };
    const parsed = ProfilePatch.safeParse(input);
    let error: string | undefined;
    if (!parsed.success) {
      error = errorMessage(toInvalidRequest(parsed.error, 'body', input));
    } else {
      try {
        await accounts.updateProfile(id, parsed.data, 'dashboard');
      } catch (err) {
        error = errorMessage(err);
      }
    }
    const ok = t(merchantView(req, res).locale, 'saved');
    await profilePage(req, res, await accounts.load(id), error ? { error, status: 400 } : { ok });
  });

  router.post('/dashboard/profile/submit', async (req, res) => {
    const id = merchantIdOf(res);
    try {
      await accounts.submit(id);
      await profilePage(req, res, await accounts.load(id), {
        ok: t(merchantView(req, res).locale, 'submitted'),
      });
    } catch (err) {
      await profilePage(req, res, await accounts.load(id), { error: errorMessage(err), status: 400 });
    }
  });

  return router;
}
