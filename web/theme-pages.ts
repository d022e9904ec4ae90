import { Router, type Response } from 'express';
import { ApiError } from '../domain/errors';
import { ThemePatch, BUTTON_ROUNDNESS, THEME_FIELDS, type ThemeValues } from '../domain/theme';
import { toInvalidRequest } from '../domain/invalid-request';
import { presentTheme } from '../services/theme';
import { html } from '../html/html';
import { notice } from '../html/notice';
import { csrfField, sendPage } from './layout';
import { requireAction } from './merchant/frame';
import { CHECKOUT_PREVIEW_CSS, checkoutPreview, fontStylesheetUrl, themeCss } from './theme-render';
import { errorMessage, field, requireCsrf, requireUser, sessionOf, type WebContext } from './context';

/** The checkout theme form with a live preview rendered by the checkout renderer. */
export function themePages(ctx: WebContext): Router {
  const router = Router();
  const { accounts, themes } = ctx.services;
  router.use('/dashboard/theme', requireUser('merchant'), requireCsrf(ctx), requireAction('manage_settings'));
  const merchantIdOf = (res: Response) => sessionOf(res).user.merchant_id!;

  async function themePage(res: Response, opts: { error?: string; ok?: string; status?: number } = {}) {
    const session = sessionOf(res);
    const merchant = await accounts.load(merchantIdOf(res));
    const row = await themes.read({ merchantId: merchant.id, livemode: false });
    const theme: ThemeValues = presentTheme(row);
    const owner = row ? (row.livemode ? 'live' : 'test') : 'none yet';
    const approved = merchant.application_status === 'approved';
    const text = (name: keyof ThemeValues, label: string, hint: string, max: number) =>
      html`<label for="${name}">${label}</label>
        <input
          id="${name}"
          name="${name}"
          value="${theme[name] ?? ''}"
          maxlength="${max}"
          aria-describedby="${name}-hint"
        />
        <small id="${name}-hint">${hint}</small>`;
    const body = html`${opts.error ? notice('error', opts.error) : ''}${opts.ok ? notice('ok', opts.ok) : ''}
      <p>
        One theme serves both environments; live wins. The theme now belongs to:
        <strong data-testid="theme-owner">${owner}</strong>.
      </p>
      <h2>Preview</h2>
      ${checkoutPreview(theme, merchant.name)}
      <h2>Edit</h2>
      <form method="post" action="/dashboard/theme">
        ${csrfField(session.session.csrf_token)}
        <label for="environment">Environment</label>
        <select id="environment" name="environment">
          <option value="test" ${row?.livemode ? '' : 'selected'}>Test</option>
          <option value="live" ${row?.livemode ? 'selected' : ''} ${approved ? '' : 'disabled'}>
            Live${approved ? '' : ' (after approval)'}
          </option>
        </select>
        ${text('primary_color', 'Primary colour', '#rgb, #rrggbb or #rrggbbaa; empty for the default', 9)}
        ${text('background_color', 'Background colour', '#rgb, #rrggbb or #rrggbbaa; empty for the default', 9)}
        ${text('font_family', 'Font', 'One Google Fonts family name, e.g. Inter', 64)}
        ${text('heading_font_family', 'Heading font', 'Empty to use the font above', 64)}
        <label for="button_roundness">Buttons</label>
        <select id="button_roundness" name="button_roundness">
          <option value="" ${theme.button_roundness === null ? 'selected' : ''}>Default</option>
          ${BUTTON_ROUNDNESS.map((r) => html`<option value="${r}" ${theme.button_roundness === r ? 'selected' : ''}>${r}</option>`)}
        </select>
        ${text('logo_url', 'Logo URL', 'https:// address of your logo', 500)}
        <p><button type="submit">Save theme</button></p>
      </form>`;
    const stylesheet = fontStylesheetUrl(theme);
    sendPage(res, body, {
      title: 'Checkout theme',
      session,
      css: CHECKOUT_PREVIEW_CSS + themeCss(theme),
      ...(stylesheet !== null && { stylesheet }),
      status: opts.status ?? 200,
    });
  }

  router.get('/dashboard/theme', (_req, res) => themePage(res));

  router.post('/dashboard/theme', async (req, res) => {
    const merchantId = merchantIdOf(res);
    const livemode = field(req, 'environment') === 'live';
    const input: Record<string, unknown> = { source: 'dashboard' };
    for (const f of THEME_FIELDS) {
      if (f === 'source') continue;
      input[f] = field(req, f) === '' ? null : field(req, f);
    }
    const parsed = ThemePatch.safeParse(input);
    try {
      if (!parsed.success) throw toInvalidRequest(parsed.error, 'body', input);
      if (livemode) {
        const merchant = await accounts.load(merchantId);
        if (merchant.application_status !== 'approved') {
          await themePage(res, { error: 'Live mode opens once your application is approved.', status: 403 });
          return;
        }
      }
      await themes.patch({ merchantId, livemode }, parsed.data);
      await themePage(res, { ok: `Theme saved for ${livemode ? 'live' : 'test'}.` });
    } catch (err) {
      await themePage(res, { error: errorMessage(err), status: err instanceof ApiError ? err.status : 500 });
    }
  });

  return router;
}
