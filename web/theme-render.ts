import { html, type SafeHtml } from '../html/html';
import { FONT_FAMILY, HEX_COLOR, LOGO_URL, logoUrlProblem, type ThemeValues } from '../domain/theme';

/**
 * Renders a merchant theme into CSS and HTML. The API already admits only safe values (spec §4.3
 * rule 1); this file does not rely on that: each value is checked against its rule again and
 * escaped for the context it lands in, so even a row written around the API cannot break out.
 */

export const RADIUS = { sharp: '0', rounded: '8px', pill: '999px' } as const;
const DEFAULTS = { primary: '#1f4fd1', background: '#f6f7f9', radius: RADIUS.rounded };
/** What the checkout shows where a theme sets nothing (the live preview's script needs them too). */
export const PREVIEW_DEFAULTS = DEFAULTS;

/** A CSS string literal: everything but letters, digits, space, hyphen and underscore hex-escaped. */
export function cssString(value: string): string {
  let out = '"';
  for (const ch of value) {
    out += /^[A-Za-z0-9 _-]$/.test(ch) ? ch : `\\${ch.codePointAt(0)!.toString(16)} `;
  }
  return `${out}"`;
}

const color = (v: string | null) => (v !== null && HEX_COLOR.test(v) ? v : null);
const font = (v: string | null) => (v !== null && v.length <= 64 && FONT_FAMILY.test(v) ? v : null);
const logo = (v: string | null) =>
  v !== null && v.length <= 500 && LOGO_URL.test(v) && logoUrlProblem(v) === null ? v : null;

const radius = (v: string | null) =>
  v !== null && Object.hasOwn(RADIUS, v) ? RADIUS[v as keyof typeof RADIUS] : DEFAULTS.radius;

/** The look of a buyer page that belongs to no merchant (an unknown checkout id or portal link). */
export const NO_THEME: ThemeValues = {
  primary_color: null,
  background_color: null,
  font_family: null,
  heading_font_family: null,
  button_roundness: null,
  logo_url: null,
  source: null,
};

/** The theme as CSS custom properties on `.skil-checkout`; values validated again, fonts quoted. */
export function themeCss(theme: ThemeValues): string {
  const body = font(theme.font_family);
  const heading = font(theme.heading_font_family) ?? body;
  const stack = (f: string | null) =>
    f ? `${cssString(f)}, system-ui, sans-serif` : 'system-ui, sans-serif';
  const decls = [
    `--skil-primary: ${color(theme.primary_color) ?? DEFAULTS.primary}`,
    `--skil-background: ${color(theme.background_color) ?? DEFAULTS.background}`,
    `--skil-font: ${stack(body)}`,
    `--skil-heading-font: ${stack(heading)}`,
    `--skil-radius: ${radius(theme.button_roundness)}`,
  ];
  return `.skil-checkout { ${decls.join('; ')}; }`;
}

/** The Google Fonts stylesheet for the theme's families (spec §2.2: loaded by name), or null. */
export function fontStylesheetUrl(theme: ThemeValues): string | null {
  const families = [...new Set([font(theme.font_family), font(theme.heading_font_family)])].filter(
    (f): f is string => f !== null,
  );
  if (families.length === 0) return null;
  const query = families.map((f) => `family=${encodeURIComponent(f.trim()).replace(/%20/g, '+')}`).join('&');
  return `https://fonts.googleapis.com/css2?${query}&display=swap`;
}

/**
 * A checkout-like preview: logo, merchant name, amount and a pay button in the theme. The dashboard
 * page passes the amount and the logo's alt text in its own language; the live preview's script
 * reads the alt text from `data-logo-alt` when it adds a logo.
 */
export function checkoutPreview(
  theme: ThemeValues,
  merchantName: string,
  words: { amount?: string; logoAlt?: string } = {},
): SafeHtml {
  const logoUrl = logo(theme.logo_url);
  const alt = words.logoAlt ?? `${merchantName} logo`;
  return html`<div
    class="skil-checkout"
    data-testid="checkout-preview"
    data-merchant="${merchantName}"
    ${words.logoAlt === undefined ? '' : html`data-logo-alt="${words.logoAlt}"`}
  >
    ${logoUrl ? html`<img class="skil-logo" src="${logoUrl}" alt="${alt}" referrerpolicy="no-referrer" />` : ''}
    <p class="skil-merchant">${merchantName}</p>
    <p class="skil-amount">${words.amount ?? '4.900 kr.'}</p>
    <button type="button" class="skil-pay">Greiða / Pay</button>
  </div>`;
}

/** Static rules that use the custom properties. */
export const CHECKOUT_PREVIEW_CSS = `
.skil-checkout { background: var(--skil-background); font-family: var(--skil-font); padding: 1.5rem; border: 1px solid #ccd; max-width: 22rem; overflow-wrap: anywhere; }
.skil-checkout .skil-amount, .skil-checkout .skil-merchant { font-family: var(--skil-heading-font); }
.skil-checkout .skil-amount { font-size: 1.6rem; font-weight: 600; }
.skil-checkout .skil-logo { max-height: 48px; max-width: 100%; }
.skil-checkout .skil-pay { background: var(--skil-primary); color: #fff; border: 0; border-radius: var(--skil-radius); padding: .7rem 1.4rem; font: inherit; }
`;
