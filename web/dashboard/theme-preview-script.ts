import { FONT_FAMILY, HEX_COLOR, LOGO_URL } from '../../domain/theme';
import { PREVIEW_DEFAULTS, RADIUS } from '../theme-render';

/**
 * The Theme screen's live preview: as the merchant types, the preview's custom properties follow the
 * form. Only values that pass the theme's own rules (the same expressions the API checks) reach the
 * preview; anything else shows the default, as the checkout would. Served from our origin, so the
 * page's CSP admits it with `script-src 'self'` and no inline script; CSSOM changes are not inline
 * styles, so the nonce-only `style-src` stands.
 */
export const THEME_PREVIEW_JS = `(function () {
  'use strict';
  var preview = document.querySelector('[data-testid="checkout-preview"]');
  var form = document.getElementById('theme-form');
  if (!preview || !form) return;
  var HEX = new RegExp(${JSON.stringify(HEX_COLOR.source)});
  var FONT = new RegExp(${JSON.stringify(FONT_FAMILY.source)});
  var LOGO = new RegExp(${JSON.stringify(LOGO_URL.source)});
  var RADIUS = ${JSON.stringify(RADIUS)};
  var DEFAULTS = ${JSON.stringify(PREVIEW_DEFAULTS)};
  function value(name) {
    var el = form.elements.namedItem(name);
    return el ? String(el.value).trim() : '';
  }
  function font(v) { return v && v.length <= 64 && FONT.test(v) ? v : ''; }
  function stack(f) { return f ? '"' + f + '", system-ui, sans-serif' : 'system-ui, sans-serif'; }
  function update() {
    var primary = value('primary_color');
    var background = value('background_color');
    var body = font(value('font_family'));
    var heading = font(value('heading_font_family')) || body;
    var roundness = value('button_roundness');
    preview.style.setProperty('--skil-primary', HEX.test(primary) ? primary : DEFAULTS.primary);
    preview.style.setProperty('--skil-background', HEX.test(background) ? background : DEFAULTS.background);
    preview.style.setProperty('--skil-font', stack(body));
    preview.style.setProperty('--skil-heading-font', stack(heading));
    preview.style.setProperty(
      '--skil-radius',
      Object.prototype.hasOwnProperty.call(RADIUS, roundness) ? RADIUS[roundness] : DEFAULTS.radius
    );
    var logo = value('logo_url');
    var img = preview.querySelector('img.skil-logo');
    if (logo.length <= 500 && LOGO.test(logo)) {
      if (!img) {
        img = document.createElement('img');
        img.className = 'skil-logo';
        img.setAttribute('referrerpolicy', 'no-referrer');
        img.setAttribute(
          'alt',
          preview.getAttribute('data-logo-alt') || preview.getAttribute('data-merchant') + ' logo'
        );
        preview.insertBefore(img, preview.firstChild);
      }
      if (img.getAttribute('src') !== logo) img.setAttribute('src', logo);
    } else if (img) {
      img.parentNode.removeChild(img);
    }
    preview.setAttribute('data-live', '1');
  }
  form.addEventListener('input', update);
  form.addEventListener('change', update);
  update();
})();
`;
