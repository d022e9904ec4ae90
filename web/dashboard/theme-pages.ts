import { Router, type Response } from 'express';
import { ApiError } from '../../domain/errors';
import { ThemePatch, BUTTON_ROUNDNESS, THEME_FIELDS, type ThemeValues } from '../../domain/theme';
import { toInvalidRequest } from '../../domain/invalid-request';
import { presentTheme } from '../../services/theme';
import type { ThemeProposal } from '../../services/theme-scan';
import { html } from '../../html/html';
import { notice } from '../../html/notice';
import { csrfField, sendPage } from '../layout';
import { requireAction } from './frame';
import { THEME_PREVIEW_JS } from './theme-preview-script';
import { CHECKOUT_PREVIEW_CSS, checkoutPreview, fontStylesheetUrl, themeCss } from '../theme-render';
import { errorMessage, field, requireCsrf, requireUser, sessionOf, type WebContext } from './context';

/** `source` of a saved theme: the scanned site when the form came from a scan (decision 0125). */
function sourceOf(scannedSite: string): string {
  if (scannedSite.length === 0 || scannedSite.length > 480 || !/^https?:\/\/\S+$/.test(scannedSite))
    return 'dashboard';
  return `website scan: ${scannedSite}`;
}

const THEME_PREVIEW_PATH = '/dashboard/assets/theme-preview.js';

/** The checkout theme form with a live preview rendered by the checkout renderer. */
export function themePages(ctx: WebContext): Router {
  const router = Router();
  const { accounts, themes, scanWebsite } = ctx.services;
  router.use('/dashboard/theme', requireUser('merchant'), requireCsrf(ctx), requireAction('manage_settings'));
  const merchantIdOf = (res: Response) => sessionOf(res).user.merchant_id!;

  async function themePage(
    res: Response,
    opts: { error?: string; ok?: string; status?: number; proposal?: ThemeProposal; website?: string } = {},
  ) {
    const session = sessionOf(res);
    const merchant = await accounts.load(merchantIdOf(res));
    const row = await themes.read({ merchantId: merchant.id, livemode: false });
    const saved: ThemeValues = presentTheme(row);
    const p = opts.proposal;
    // A scan's proposal fills the form and the preview; the merchant reviews it and saves (or not).
    const theme: ThemeValues = p
      ? {
          ...saved,
          primary_color: p.primary_color ?? saved.primary_color,
          background_color: p.background_color ?? saved.background_color,
          font_family: p.font_family ?? saved.font_family,
          heading_font_family: p.heading_font_family ?? saved.heading_font_family,
          logo_url: p.logo_url ?? saved.logo_url,
        }
      : saved;
    const proposed = p
      ? [p.primary_color, p.background_color, p.font_family, p.heading_font_family, p.logo_url].some(
          (v) => v !== null,
        )
      : false;
    const scanResult = p
      ? html`<div class="notice ${proposed ? 'ok' : 'warn'}" data-testid="scan-result">
          <p>
            ${
              proposed
                ? html`Proposed from <strong>${p.site}</strong>. Review the values below and save to use them.`
                : html`Scanned <strong>${p.site}</strong>: nothing to propose (no theme colour, custom
                    properties, font faces or https icon found).`
            }
          </p>
          ${
            p.notes.length
              ? html`<ul>
                  ${p.notes.map((n) => html`<li>${n}</li>`)}
                </ul>`
              : ''
          }
        </div>`
      : '';
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
      <h2>Scan your website</h2>
      <form method="post" action="/dashboard/theme/scan">
        ${csrfField(session.session.csrf_token)}
        <label for="website">Website address</label>
        <input
          id="website"
          name="website"
          type="url"
          inputmode="url"
          maxlength="480"
          value="${opts.website ?? ''}"
          aria-describedby="website-hint"
        />
        <small id="website-hint"
          >Skil reads the page's theme colour, CSS custom properties, font faces and icons, and proposes a
          theme. Nothing is saved until you save.</small
        >
        <p><button type="submit">Scan website</button></p>
      </form>
      ${scanResult}
      <h2 id="preview-title">Preview</h2>
      <p id="preview-hint">
        The preview follows the form below as you type; nothing is saved until you save.
      </p>
      ${checkoutPreview(theme, merchant.name)}
      <h2>Edit</h2>
      <form id="theme-form" method="post" action="/dashboard/theme">
        ${csrfField(session.session.csrf_token)}
        ${p && proposed ? html`<input type="hidden" name="scanned_site" value="${p.site}" />` : ''}
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
      scripts: [THEME_PREVIEW_PATH],
    });
  }

  router.get(THEME_PREVIEW_PATH, (_req, res) => {
    res.type('application/javascript').setHeader('Cache-Control', 'public, max-age=300');
    res.send(THEME_PREVIEW_JS);
  });

  router.get('/dashboard/theme', (_req, res) => themePage(res));

  router.post('/dashboard/theme/scan', async (req, res) => {
    const website = field(req, 'website').trim();
    if (!website) {
      await themePage(res, { error: 'Enter your website address to scan it.', status: 400 });
      return;
    }
    try {
      const proposal = await scanWebsite(website);
      await themePage(res, { proposal, website });
    } catch (err) {
      await themePage(res, {
        error: errorMessage(err),
        website: website.slice(0, 480),
        status: err instanceof ApiError ? err.status : 500,
      });
    }
  });

  router.post('/dashboard/theme', async (req, res) => {
    const merchantId = merchantIdOf(res);
    const livemode = field(req, 'environment') === 'live';
    const input: Record<string, unknown> = { source: sourceOf(field(req, 'scanned_site')) };
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
