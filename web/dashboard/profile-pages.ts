import { Router, type Response } from 'express';
import { ProfilePatch, MERCHANT_TYPES, type LegalAddress } from '../../domain/merchant-profile';
import { toInvalidRequest } from '../../domain/invalid-request';
import { presentMerchant, type MerchantRow } from '../../services/merchant/merchant-account';
import { html } from '../../html/html';
import { notice } from '../../html/notice';
import { csrfField, sendPage, tableFrame } from '../layout';
import { requireAction } from './frame';
import { errorMessage, field, requireCsrf, requireUser, sessionOf, type WebContext } from './context';

/** The merchant's profile form and application status, with the submit button. */
export function profilePages(ctx: WebContext): Router {
  const router = Router();
  const { accounts } = ctx.services;
  router.use(
    '/dashboard/profile',
    requireUser('merchant'),
    requireCsrf(ctx),
    requireAction('manage_settings'),
  );
  const merchantIdOf = (res: Response) => sessionOf(res).user.merchant_id!;

  function profilePage(
    res: Response,
    row: MerchantRow,
    opts: { error?: string; ok?: string; status?: number } = {},
  ) {
    const session = sessionOf(res);
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
          <th scope="row">${name}</th>
          <td>${c.status}</td>
          <td>${c.requirements.join(', ') || '—'}</td>
        </tr>`,
    );
    const canSubmit = m.application.status === 'unsubmitted' || m.application.status === 'rejected';
    const body = html`${opts.error ? notice('error', opts.error) : ''}${opts.ok ? notice('ok', opts.ok) : ''}
      ${m.warnings.map((w) => notice('warn', w.message))}
      <section aria-labelledby="app-h">
        <h2 id="app-h">Application</h2>
        <p>
          Status:
          <strong data-testid="application-status">${m.application.status.replace('_', ' ')}</strong>
          ${m.application.rejection_reason ? html` — reason: ${m.application.rejection_reason}` : ''}
        </p>
        ${tableFrame(
          'Capabilities (live)',
          html`<table>
            <caption>
              Capabilities (live)
            </caption>
            <thead>
              <tr>
                <th scope="col">Capability</th>
                <th scope="col">Status</th>
                <th scope="col">Still needed</th>
              </tr>
            </thead>
            <tbody>
              ${caps}
            </tbody>
          </table>`,
        )}
        <p>
          Enabled in test mode: payments.card, payments.bank_claim. Enabled live:
          <span data-testid="live-enabled">${live.join(', ') || 'nothing yet'}</span>.
        </p>
        ${
          canSubmit
            ? html`<form method="post" action="/dashboard/profile/submit">
                ${csrfField(session.session.csrf_token)}
                <p><button type="submit">Submit application for review</button></p>
              </form>`
            : ''
        }
      </section>
      <section aria-labelledby="profile-h">
        <h2 id="profile-h">Profile</h2>
        <form method="post" action="/dashboard/profile">
          ${csrfField(session.session.csrf_token)} ${input('name', 'Business name', m.name, { max: 255 })}
          <label for="merchant_type">Merchant type</label>
          <select id="merchant_type" name="merchant_type">
            <option value="" ${m.merchant_type === null ? 'selected' : ''}>Not set</option>
            ${MERCHANT_TYPES.map((t) => html`<option value="${t}" ${m.merchant_type === t ? 'selected' : ''}>${t}</option>`)}
          </select>
          ${input('kennitala', 'Kennitala (10 digits)', m.kennitala, { max: 10 })}
          ${input('phone', 'Phone', m.phone, { type: 'tel', max: 50 })}
          ${input('website', 'Website', m.website, { max: 255 })}
          <label for="business_description">What you sell</label>
          <textarea id="business_description" name="business_description" maxlength="2000">
${m.business_description ?? ''}</textarea>
          ${input('bank_account', 'Settlement bank account (0000-00-000000)', m.bank_account, { max: 14 })}
          <fieldset>
            <legend>Legal address</legend>
            ${input('legal_address[street]', 'Street', a?.street ?? null)}
            ${input('legal_address[city]', 'City', a?.city ?? null)}
            ${input('legal_address[postalCode]', 'Postal code', a?.postalCode ?? null)}
            ${input('legal_address[country]', 'Country', a?.country ?? null)}
          </fieldset>
          <p><button type="submit">Save profile</button></p>
        </form>
      </section>`;
    sendPage(res, body, { title: 'Profile', session, status: opts.status ?? 200 });
  }
  router.get('/dashboard/profile', async (_req, res) => {
    profilePage(res, await accounts.load(merchantIdOf(res)));
  });

  router.post('/dashboard/profile', async (req, res) => {
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
    profilePage(res, await accounts.load(id), error ? { error, status: 400 } : { ok: 'Profile saved.' });
  });

  router.post('/dashboard/profile/submit', async (_req, res) => {
    const id = merchantIdOf(res);
    try {
      await accounts.submit(id);
      profilePage(res, await accounts.load(id), {
        ok: 'Application submitted. We will review it and let you know.',
      });
    } catch (err) {
      profilePage(res, await accounts.load(id), { error: errorMessage(err), status: 400 });
    }
  });

  return router;
}
