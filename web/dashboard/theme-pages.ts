import { Router, type Request, type Response } from 'express';
import { ApiError } from '../../domain/errors';
import { formatIsk } from '../../domain/isk';
import { ThemePatch, BUTTON_ROUNDNESS, THEME_FIELDS, type ThemeValues } from '../../domain/theme';
import { toInvalidRequest } from '../../domain/invalid-request';
import { presentTheme } from '../../services/theme';
import type { ThemeProposal } from '../../services/theme-scan';
import { html, type SafeHtml } from '../../html/html';
import { notice } from '../../html/notice';
import { sendPage } from '../layout';
import { defineMessages } from '../messages';
import { merchantNav, merchantView, requireAction, viewPreferences } from './frame';
import { THEME_PREVIEW_JS } from './theme-preview-script';
import { CHECKOUT_PREVIEW_CSS, checkoutPreview, fontStylesheetUrl, themeCss } from '../theme-render';
import { errorMessage, field, requireCsrf, requireUser, sessionOf, type WebContext } from './context';

const t = defineMessages({
  en: {
    title: 'Checkout theme',
    owner: 'One theme serves both environments; live wins. The theme now belongs to:',
    ownerOf: '{owner, select, live {live} test {test} other {none yet}}',
    scanHeading: 'Scan your website',
    website: 'Website address',
    websiteHint:
      "Skil reads the page's theme colour, CSS custom properties, font faces and icons, and proposes a theme. Nothing is saved until you save.",
    scan: 'Scan website',
    proposed: 'Proposed from {site}. Review the values below and save to use them.',
    nothing:
      'Scanned {site}: nothing to propose (no theme colour, custom properties, font faces or https icon found).',
    preview: 'Preview',
    previewHint: 'The preview follows the form below as you type; nothing is saved until you save.',
    logoAlt: '{name} logo',
    edit: 'Edit',
    environment: 'Environment',
    test: 'Test',
    live: 'Live',
    afterApproval: '(after approval)',
    primary: 'Primary colour',
    background: 'Background colour',
    colourHint: '#rgb, #rrggbb or #rrggbbaa; empty for the default',
    font: 'Font',
    fontHint: 'One Google Fonts family name, e.g. Inter',
    headingFont: 'Heading font',
    headingFontHint: 'Empty to use the font above',
    buttons: 'Buttons',
    defaultRoundness: 'Default',
    round_sharp: 'sharp',
    round_rounded: 'rounded',
    round_pill: 'pill',
    logo: 'Logo URL',
    logoHint: 'https:// address of your logo',
    save: 'Save theme',
    noWebsite: 'Enter your website address to scan it.',
    liveClosed: 'Live mode opens once your application is approved.',
    saved: 'Theme saved for {mode, select, live {live} other {test}}.',
  },
  is: {
    title: 'Útlit greiðslusíðu',
    owner: 'Eitt útlit gildir í báðum umhverfum og útlit raunhams gengur fyrir. Útlitið er nú vistað fyrir:',
    ownerOf: '{owner, select, live {raunham} test {prufuham} other {ekkert enn}}',
    scanHeading: 'Skanna vefsíðuna þína',
    website: 'Slóð vefsíðu',
    websiteHint:
      'Skil les þemalit síðunnar, sérsniðna CSS-eiginleika (custom properties), leturgerðir og tákn og stingur upp á útliti. Ekkert er vistað fyrr en þú vistar.',
    scan: 'Skanna vefsíðu',
    proposed: 'Tillaga út frá {site}. Farðu yfir gildin hér fyrir neðan og vistaðu til að nota þau.',
    nothing:
      'Vefsíðan {site} var skönnuð en ekkert fannst til að stinga upp á (enginn þemalitur, sérsniðnir eiginleikar, leturgerðir né https-tákn).',
    preview: 'Forskoðun',
    previewHint:
      'Forskoðunin fylgir forminu hér fyrir neðan jafnóðum og þú skrifar; ekkert er vistað fyrr en þú vistar.',
    logoAlt: 'Merki {name}',
    edit: 'Breyta',
    environment: 'Umhverfi',
    test: 'Prufuhamur',
    live: 'Raunhamur',
    afterApproval: '(eftir samþykki)',
    primary: 'Aðallitur',
    background: 'Bakgrunnslitur',
    colourHint: '#rgb, #rrggbb eða #rrggbbaa; autt fyrir sjálfgefinn lit',
    font: 'Letur',
    fontHint: 'Heiti einnar leturfjölskyldu á Google Fonts, t.d. Inter',
    headingFont: 'Letur fyrirsagna',
    headingFontHint: 'Autt til að nota letrið hér fyrir ofan',
    buttons: 'Hnappar',
    defaultRoundness: 'Sjálfgefið',
    round_sharp: 'hvöss horn',
    round_rounded: 'ávöl horn',
    round_pill: 'alveg ávalir endar',
    logo: 'Slóð á merki',
    logoHint: 'https://-slóð á merki fyrirtækisins',
    save: 'Vista útlit',
    noWebsite: 'Sláðu inn slóð vefsíðunnar til að skanna hana.',
    liveClosed: 'Raunhamur opnast þegar umsóknin þín hefur verið samþykkt.',
    saved: 'Útlitið er vistað fyrir {mode, select, live {raunham} other {prufuham}}.',
  },
});

type Key = Parameters<typeof t>[1];

/** `source` of a saved theme: the scanned site when the form came from a scan (decision 0125). */
function sourceOf(scannedSite: string): string {
  if (scannedSite.length === 0 || scannedSite.length > 480 || !/^https?:\/\/\S+$/.test(scannedSite))
    return 'dashboard';
  return `website scan: ${scannedSite}`;
}

const THEME_PREVIEW_PATH = '/dashboard/assets/theme-preview.js';

/**
 * A message with `{site}` in it, the site set in bold: the message is formatted around a marker so
 * each language keeps its own word order, and the site is escaped like any value.
 */
function withSite(l: Parameters<typeof t>[0], key: Key, site: string): SafeHtml {
  const [before = '', after = ''] = t(l, key, { site: '\u0000' }).split('\u0000');
  return html`${before}<strong>${site}</strong>${after}`;
}

/** The checkout theme form with a live preview rendered by the checkout renderer. */
export function themePages(ctx: WebContext): Router {
  const router = Router();
  const { accounts, themes, scanWebsite } = ctx.services;
  router.use(
    '/dashboard/theme',
    requireUser('merchant'),
    requireCsrf(ctx),
    viewPreferences(ctx),
    requireAction('manage_settings'),
  );
  const merchantIdOf = (res: Response) => sessionOf(res).user.merchant_id!;

  async function themePage(
    req: Request,
    res: Response,
    opts: { error?: string; ok?: string; status?: number; proposal?: ThemeProposal; website?: string } = {},
  ) {
    const view = merchantView(req, res);
    const l = view.locale;
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
    // The scanner's notes say what it read where, in its own words (services/theme-scan.ts).
    const scanResult = p
      ? html`<div class="notice ${proposed ? 'ok' : 'warn'}" data-testid="scan-result">
          <p>${withSite(l, proposed ? 'proposed' : 'nothing', p.site)}</p>
          ${
            p.notes.length
              ? html`<ul>
                  ${p.notes.map((n) => html`<li>${n}</li>`)}
                </ul>`
              : ''
          }
        </div>`
      : '';
    const owner = row ? (row.livemode ? 'live' : 'test') : 'none';
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
        ${t(l, 'owner')}
        <strong data-testid="theme-owner">${t(l, 'ownerOf', { owner })}</strong>.
      </p>
      <h2>${t(l, 'scanHeading')}</h2>
      <form method="post" action="/dashboard/theme/scan">
        ${view.csrf}
        <label for="website">${t(l, 'website')}</label>
        <input
          id="website"
          name="website"
          type="url"
          inputmode="url"
          maxlength="480"
          value="${opts.website ?? ''}"
          aria-describedby="website-hint"
        />
        <small id="website-hint">${t(l, 'websiteHint')}</small>
        <p><button type="submit">${t(l, 'scan')}</button></p>
      </form>
      ${scanResult}
      <h2 id="preview-title">${t(l, 'preview')}</h2>
      <p id="preview-hint">${t(l, 'previewHint')}</p>
      ${checkoutPreview(theme, merchant.name, {
        amount: formatIsk(4900, l),
        logoAlt: t(l, 'logoAlt', { name: merchant.name }),
      })}
      <h2>${t(l, 'edit')}</h2>
      <form id="theme-form" method="post" action="/dashboard/theme">
        ${view.csrf}
        ${p && proposed ? html`<input type="hidden" name="scanned_site" value="${p.site}" />` : ''}
        <label for="environment">${t(l, 'environment')}</label>
        <select id="environment" name="environment">
          <option value="test" ${row?.livemode ? '' : 'selected'}>${t(l, 'test')}</option>
          <option value="live" ${row?.livemode ? 'selected' : ''} ${approved ? '' : 'disabled'}>
            ${t(l, 'live')}${approved ? '' : ` ${t(l, 'afterApproval')}`}
          </option>
        </select>
        ${text('primary_color', t(l, 'primary'), t(l, 'colourHint'), 9)}
        ${text('background_color', t(l, 'background'), t(l, 'colourHint'), 9)}
        ${text('font_family', t(l, 'font'), t(l, 'fontHint'), 64)}
        ${text('heading_font_family', t(l, 'headingFont'), t(l, 'headingFontHint'), 64)}
        <label for="button_roundness">${t(l, 'buttons')}</label>
        <select id="button_roundness" name="button_roundness">
          <option value="" ${theme.button_roundness === null ? 'selected' : ''}>
            ${t(l, 'defaultRoundness')}
          </option>
          ${BUTTON_ROUNDNESS.map(
            (r) =>
              html`<option value="${r}" ${theme.button_roundness === r ? 'selected' : ''}>
                ${t(l, `round_${r}`)}
              </option>`,
          )}
        </select>
        ${text('logo_url', t(l, 'logo'), t(l, 'logoHint'), 500)}
        <p><button type="submit">${t(l, 'save')}</button></p>
      </form>`;
    const stylesheet = fontStylesheetUrl(theme);
    // sendPage, not sendMerchantPage: this page adds the preview's CSS and the theme's fonts.
    sendPage(res, body, {
      title: t(l, 'title'),
      session: sessionOf(res),
      lang: l,
      nav: merchantNav(view),
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

  router.get('/dashboard/theme', (req, res) => themePage(req, res));

  router.post('/dashboard/theme/scan', async (req, res) => {
    const l = merchantView(req, res).locale;
    const website = field(req, 'website').trim();
    if (!website) {
      await themePage(req, res, { error: t(l, 'noWebsite'), status: 400 });
      return;
    }
    try {
      const proposal = await scanWebsite(website);
      await themePage(req, res, { proposal, website });
    } catch (err) {
      await themePage(req, res, {
        error: errorMessage(err),
        website: website.slice(0, 480),
        status: err instanceof ApiError ? err.status : 500,
      });
    }
  });

  router.post('/dashboard/theme', async (req, res) => {
    const l = merchantView(req, res).locale;
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
          await themePage(req, res, { error: t(l, 'liveClosed'), status: 403 });
          return;
        }
      }
      await themes.patch({ merchantId, livemode }, parsed.data);
      await themePage(req, res, { ok: t(l, 'saved', { mode: livemode ? 'live' : 'test' }) });
    } catch (err) {
      await themePage(req, res, {
        error: errorMessage(err),
        status: err instanceof ApiError ? err.status : 500,
      });
    }
  });

  return router;
}
