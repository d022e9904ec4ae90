import { randomBytes } from 'node:crypto';
import express, { type Request, type RequestHandler, type Response } from 'express';
import type { Knex } from '../db/knex';
import type { Logger } from '../stack/logger';
import type { CheckoutService, PayOutcome } from '../services/checkout';
import type { CheckoutSessionRow } from '../db/checkout-sessions';
import type { ThemeValues } from '../domain/theme';
import { createThemeRepository } from '../db/themes';
import { chooseLocale, effectiveFormFields, isKnownField, type Locale } from '../domain/checkout';
import { allocate } from '../domain/discount';
import { vatOf } from '../domain/vat';
import { ApiError } from '../domain/errors';
import { openPaymentLink } from '../api/routes/payment-links';
import { context } from '../stack/request-context';
import { html, trusted, type SafeHtml } from './html';
import { CHECKOUT_PREVIEW_CSS, fontStylesheetUrl, themeCss } from './theme-render';
import { formatIsk, STRINGS, type Strings } from './checkout-strings';
import { CHECKOUT_PAGE_JS, sdkJs } from './checkout-assets';

export interface CheckoutWebDeps {
  knex: Knex;
  log: Logger;
  checkout: CheckoutService;
  publicBaseUrl: string;
  /** Origin of the card acquirer's 3-D Secure pages (the form's redirect may go there). */
  acquirerOrigin: string;
}

const CSS = `
*, *::before, *::after { box-sizing: border-box; }
body { margin: 0; background: var(--skil-background, #f6f7f9); color: #1b1b1f; }
.skil-checkout { max-width: 34rem; margin: 0 auto; min-height: 100vh; padding: 1rem; border: 0; line-height: 1.45; }
h1, h2 { font-family: var(--skil-heading-font); }
h1 { font-size: 1.4rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.05rem; margin: 1.2rem 0 .4rem; }
table { width: 100%; border-collapse: collapse; }
td, th { padding: .35rem 0; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; white-space: nowrap; }
.vat { color: #555; font-size: .85rem; }
.total td { font-weight: 700; border-top: 1px solid #bbb; }
label { display: block; font-weight: 600; margin-top: .7rem; }
input { width: 100%; font: inherit; padding: .6rem; border: 1px solid #888; border-radius: 6px; background: #fff; }
.row { display: flex; gap: .6rem; } .row > div { flex: 1; min-width: 0; }
.skil-pay, .wallet, .secondary { display: block; width: 100%; margin-top: .8rem; font: inherit; font-weight: 600; padding: .8rem; cursor: pointer; border-radius: var(--skil-radius); }
.skil-pay { background: var(--skil-primary); color: #fff; border: 0; }
.wallet { background: #000; color: #fff; border: 0; }
.secondary { background: #fff; color: #1b1b1f; border: 1px solid #888; width: auto; display: inline-block; padding: .5rem .9rem; }
.promo { display: flex; gap: .5rem; align-items: flex-end; } .promo > div { flex: 1; }
.error { background: #fde2e2; border: 1px solid #a4161a; padding: .7rem; border-radius: 6px; margin: .8rem 0; }
.field-error { color: #a4161a; font-size: .9rem; }
.test { background: #fff4d6; border: 1px solid #b7791f; padding: .3rem .6rem; font-size: .85rem; border-radius: 4px; }
:focus-visible { outline: 3px solid #ffb703; outline-offset: 2px; }
a { color: var(--skil-primary); }
`;

function origin(url: string | null): string {
  if (!url) return '';
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}

/** An embedding page's origin as the SDK sends it; anything else is ignored. */
function embedOrigin(value: unknown): string | null {
  if (typeof value !== 'string' || !/^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/.test(value)) return null;
  return value;
}

const EMPTY_THEME: ThemeValues = {
  primary_color: null,
  background_color: null,
  font_family: null,
  heading_font_family: null,
  button_roundness: null,
  logo_url: null,
  source: null,
};

/** The hosted checkout (at the session `url`), short URLs, payment link visits and the browser SDK. */
export function checkoutPages(deps: CheckoutWebDeps): RequestHandler {
  const router = express.Router();
  const themes = createThemeRepository(deps.knex);
  const { sessions } = deps.checkout;
  router.use(express.urlencoded({ extended: false, limit: '32kb', parameterLimit: 100 }));

  router.get('/v1/skil.js', (_req, res) => {
    res.type('application/javascript').setHeader('Cache-Control', 'public, max-age=300');
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.send(sdkJs());
  });
  router.get('/checkout/assets/checkout.js', (_req, res) => {
    res.type('application/javascript').setHeader('Cache-Control', 'public, max-age=300');
    res.send(CHECKOUT_PAGE_JS);
  });

  function send(
    res: Response,
    body: SafeHtml,
    o: {
      locale: Locale;
      theme: ThemeValues;
      embed: string | null;
      formTargets?: string[];
      status?: number;
      title: string;
    },
  ) {
    const nonce = randomBytes(16).toString('base64');
    const fonts = fontStylesheetUrl(o.theme);
    res.status(o.status ?? 200);
    res.setHeader(
      'Content-Security-Policy',
      [
        "default-src 'none'",
        "script-src 'self'",
        `style-src 'nonce-${nonce}' https://fonts.googleapis.com`,
        'font-src https://fonts.gstatic.com',
        "img-src 'self' https: data:",
        `form-action 'self' ${[...new Set(o.formTargets ?? [])].filter(Boolean).join(' ')}`.trim(),
        `frame-ancestors ${o.embed ?? "'none'"}`,
        "base-uri 'none'",
      ].join('; '),
    );
    if (!o.embed) res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cache-Control', 'no-store');
    res.type('html').send(
      html`<!doctype html>
        <html lang="${o.locale}">
          <head>
            <meta charset="utf-8" />
            <meta name="viewport" content="width=device-width, initial-scale=1" />
            <title>${o.title}</title>
            ${fonts ? html`<link rel="stylesheet" href="${fonts}" />` : ''}
            <style nonce="${nonce}">
              ${trusted(CHECKOUT_PREVIEW_CSS)}${trusted(themeCss(o.theme))}${trusted(CSS)}
            </style>
            <script src="/checkout/assets/checkout.js" defer></script>
          </head>
          <body>
            ${body}
          </body>
        </html>`.value,
    );
  }

  async function context_(req: Request, s: CheckoutSessionRow | undefined) {
    const theme = s ? ((await themes.find(s.merchant_id)) ?? EMPTY_THEME) : EMPTY_THEME;
    const merchant = s
      ? await deps.knex('merchants').where({ id: s.merchant_id }).first<{ name: string } | undefined>('name')
      : undefined;
    const locale = chooseLocale(s?.locale ?? null, req.get('accept-language'));
    return { theme, merchantName: merchant?.name ?? '', locale, t: STRINGS[locale] };
  }

  function summary(s: CheckoutSessionRow, t: Strings, locale: Locale): SafeHtml {
    const money = (a: number) => formatIsk(a, locale);
    const shares = allocate(
      s.discount_amount,
      s.items.map((l) => l.unit_amount * l.quantity),
    );
    const vatByRate = new Map<number, number>();
    s.items.forEach((l, i) => {
      const net = l.unit_amount * l.quantity - (shares[i] ?? 0);
      vatByRate.set(l.vat_rate, (vatByRate.get(l.vat_rate) ?? 0) + vatOf(net, l.vat_rate));
    });
    const rows = s.items.map(
      (l) =>
        html`<tr data-testid="line-item">
          <td>
            ${l.description}
            <div class="vat">
              ${t.quantity} ${l.quantity} × ${money(l.unit_amount)} · ${t.vat} ${l.vat_rate}%
            </div>
          </td>
          <td class="num">${money(l.unit_amount * l.quantity)}</td>
        </tr>`,
    );
    return html`<table aria-label="${t.total}">
      <tbody>
        ${rows}
        ${
          s.discount_amount > 0
            ? html`<tr>
                  <td>${t.subtotal}</td>
                  <td class="num">${money(s.amount_subtotal)}</td>
                </tr>
                <tr data-testid="discount">
                  <td>${t.discount}</td>
                  <td class="num">−${money(s.discount_amount)}</td>
                </tr>`
            : ''
        }
        ${
          s.allow_custom_amount
            ? ''
            : html`<tr class="total">
                <td>${t.total}</td>
                <td class="num skil-amount" data-testid="total">${money(s.amount)}</td>
              </tr>`
        }
        ${[...vatByRate.entries()]
          .filter(([rate]) => rate > 0)
          .map(
            ([rate, vat]) =>
              html`<tr class="vat">
                <td colspan="2">${t.vatIncluded(rate, money(vat))}</td>
              </tr>`,
          )}
      </tbody>
    </table>`;
  }

  function fieldInput(
    name: string,
    type: string,
    required: boolean,
    value: string,
    t: Strings,
    err?: string,
  ) {
    const label = isKnownField(name) ? ((t as unknown as Record<string, string>)[name] ?? name) : name;
    const autocomplete = { name: 'name', email: 'email', phone: 'tel' }[name] ?? 'off';
    const id = `f-${name}`;
    return html`<label for="${id}">${label}${required ? ' *' : ''}</label>
      <input
        id="${id}"
        name="f_${name}"
        type="${type}"
        value="${value}"
        autocomplete="${autocomplete}"
        ${required ? trusted('required') : ''}
        ${err ? trusted(`aria-invalid="true" aria-describedby="${id}-err"`) : ''}
      />
      ${err ? html`<div class="field-error" id="${id}-err">${err === 'email' ? t.invalidEmail : t.required}</div>` : ''}`;
  }

  interface PageState {
    error?: string | undefined;
    errors?: Record<string, string> | undefined;
    values?: Record<string, string> | undefined;
  }

  async function renderSession(
    req: Request,
    res: Response,
    s: CheckoutSessionRow,
    embed: string | null,
    state: PageState = {},
  ) {
    const { theme, merchantName, locale, t } = await context_(req, s);
    const money = (a: number) => formatIsk(a, locale);
    const common = { locale, theme, embed, title: `${t.title} · ${merchantName}` };
    const frame = (inner: SafeHtml, attrs: SafeHtml = html``) =>
      html`<main
        class="skil-checkout"
        id="skil-checkout"
        data-session="${s.id}"
        ${embed ? html`data-embed-origin="${embed}"` : ''}
        ${attrs}
      >
        ${theme.logo_url ? html`<img class="skil-logo" src="${theme.logo_url}" alt="${merchantName}" referrerpolicy="no-referrer" />` : ''}
        <p class="skil-merchant">${merchantName}</p>
        ${s.livemode ? '' : html`<p class="test" data-testid="test-mode">${t.testMode}</p>`} ${inner}
      </main>`;
    if (s.status === 'expired')
      return send(res, frame(html`<h1 data-testid="status">${t.expired}</h1>`), { ...common, status: 410 });
    if (s.status === 'complete') {
      const attrs = embed ? html`data-complete-session="${s.id}"` : html``;
      const text =
        s.payment_status === 'awaiting_claim'
          ? t.awaitingClaim
          : s.payment_status === 'unpaid'
            ? t.claimUnpaid
            : t.paid;
      return send(
        res,
        frame(html`<h1 data-testid="status" data-payment-status="${s.payment_status}">${text}</h1>`, attrs),
        common,
      );
    }
    const claimsOffered = (await deps.checkout.claimsOffered(s)) !== null;
    const v = state.values ?? {};
    const errs = state.errors ?? {};
    const fields = effectiveFormFields(s.form_fields);
    const prefill = (name: string) =>
      v[`f_${name}`] ??
      (name === 'name'
        ? s.customer_name
        : name === 'email'
          ? s.customer_email
          : name === 'phone'
            ? s.customer_phone
            : null) ??
      s.custom_fields?.[name] ??
      '';
    const declined = state.error ? (t.declined[state.error] ?? state.error) : null;
    const embedField = embed ? html`<input type="hidden" name="embed" value="${embed}" />` : '';
    const inner = html`<h1>${t.title}</h1>
      ${declined ? html`<div class="error" role="alert" data-testid="error">${declined}</div>` : ''}
      ${errs.card ? html`<div class="error" role="alert" data-testid="error">${t.cardRequired}</div>` : ''}
      ${summary(s, t, locale)}
      <form
        id="skil-form"
        method="post"
        action="/checkout/${s.id}${embed ? `?embed=${encodeURIComponent(embed)}` : ''}"
        novalidate
      >
        ${embedField}
        ${
          s.allow_custom_amount || s.mode === 'setup'
            ? ''
            : html`<div class="promo">
                <div>
                  <label for="promo">${t.promoCode}</label>
                  <input
                    id="promo"
                    name="promotion_code"
                    value="${v.promotion_code ?? ''}"
                    autocomplete="off"
                  />
                </div>
                <button type="submit" class="secondary" name="action" value="apply_code" formnovalidate>
                  ${t.apply}
                </button>
              </div>`
        }
        ${
          s.allow_custom_amount
            ? html`<label for="custom_amount">${t.customAmount}</label>
                <input
                  id="custom_amount"
                  name="custom_amount"
                  inputmode="numeric"
                  value="${v.custom_amount ?? String(s.amount || '')}"
                  required
                />
                ${s.minimum_amount ? html`<div class="vat">${t.minimum(money(s.minimum_amount))}</div>` : ''}
                ${errs.custom_amount ? html`<div class="field-error">${t.belowMinimum}</div>` : ''}`
            : ''
        }
        ${
          fields.length > 0
            ? html`<h2>${t.customerInfo}</h2>
                ${fields.map((f) => fieldInput(f.name, f.type, f.required, prefill(f.name), t, errs[f.name]))}`
            : ''
        }
        ${
          s.amount > 0 || s.save_payment_method || s.allow_custom_amount
            ? html`<h2>${t.card}</h2>
                <label for="card-number">${t.cardNumber}</label>
                <input id="card-number" name="card_number" inputmode="numeric" autocomplete="cc-number" />
                <div class="row">
                  <div>
                    <label for="card-exp">${t.expiry}</label>
                    <input id="card-exp" name="card_exp" autocomplete="cc-exp" placeholder="MM/YY" />
                  </div>
                  <div>
                    <label for="card-cvc">${t.cvc}</label>
                    <input id="card-cvc" name="card_cvc" inputmode="numeric" autocomplete="cc-csc" />
                  </div>
                </div>`
            : ''
        }
        <button type="submit" class="skil-pay" id="pay" name="action" value="pay">
          ${
            s.mode === 'setup' || (s.mode === 'subscription' && s.amount === 0)
              ? t.saveCard
              : s.allow_custom_amount
                ? t.pay
                : t.payAmount(money(s.amount))
          }
        </button>
        ${
          claimsOffered
            ? html`<h2>${t.claim}</h2>
                <p class="vat">${t.claimHint}</p>
                <label for="claim-kennitala">${t.nationalId}</label>
                <input
                  id="claim-kennitala"
                  name="claim_kennitala"
                  inputmode="numeric"
                  autocomplete="off"
                  value="${v.claim_kennitala ?? ''}"
                  ${errs.kennitala ? trusted('aria-invalid="true" aria-describedby="claim-kennitala-err"') : ''}
                />
                ${errs.kennitala ? html`<div class="field-error" id="claim-kennitala-err">${t.invalidKennitala}</div>` : ''}
                <button type="submit" class="secondary" id="pay-claim" name="action" value="claim">
                  ${t.payByClaim}
                </button>`
            : ''
        }
        ${
          !s.livemode && s.mode === 'payment'
            ? html`<p class="vat">${t.orWallet}</p>
                <button type="submit" class="wallet" name="action" value="wallet:apple_pay">
                  ${t.walletTest('Apple Pay')}
                </button>
                <button type="submit" class="wallet" name="action" value="wallet:google_pay">
                  ${t.walletTest('Google Pay')}
                </button>`
            : ''
        }
      </form>
      ${
        embed
          ? html`<button type="button" class="secondary" id="skil-cancel">${t.back}</button>`
          : s.cancel_url
            ? html`<p><a href="${s.cancel_url}" data-testid="cancel">${t.back}</a></p>`
            : ''
      }`;
    send(res, frame(inner), {
      ...common,
      status: declined || Object.keys(errs).length ? 402 : 200,
      formTargets: [origin(s.success_url), origin(s.cancel_url), deps.acquirerOrigin],
    });
  }

  async function notFound(req: Request, res: Response, message: 'notFound' | 'unavailable') {
    const { theme, locale, t } = await context_(req, undefined);
    send(res, html`<main class="skil-checkout"><h1 data-testid="status">${t[message]}</h1></main>`, {
      locale,
      theme,
      embed: null,
      title: t.title,
      status: 404,
    });
  }

  const ID = /^cs_[0-9A-Za-z]{1,64}$/;

  router.get('/checkout/:id', async (req, res) => {
    const s = ID.test(req.params.id) ? await sessions.findPublic(req.params.id) : undefined;
    if (!s) return notFound(req, res, 'notFound');
    await renderSession(req, res, s, embedOrigin(req.query.embed));
  });

  function afterPay(
    req: Request,
    res: Response,
    outcome: PayOutcome,
    embed: string | null,
    values: Record<string, string>,
  ) {
    switch (outcome.kind) {
      case 'complete':
      case 'closed':
        if (!outcome.session) return notFound(req, res, 'notFound');
        if (outcome.session.status === 'complete' && !embed && outcome.session.success_url)
          return res.redirect(303, deps.checkout.successUrl(outcome.session));
        return renderSession(req, res, outcome.session, embed);
      case 'action':
        return res.redirect(303, outcome.url);
      case 'declined':
        return renderSession(req, res, outcome.session, embed, { error: outcome.message, values });
      case 'invalid':
        return sessions
          .findPublic(String(req.params.id))
          .then((s) => renderSession(req, res, s!, embed, { errors: outcome.errors, values }));
    }
  }

  router.post('/checkout/:id', async (req, res) => {
    const id = String(req.params.id);
    const s = ID.test(id) ? await sessions.findPublic(id) : undefined;
    if (!s) return notFound(req, res, 'notFound');
    const body = req.body as Record<string, unknown>;
    const values: Record<string, string> = {};
    for (const [k, val] of Object.entries(body))
      if (typeof val === 'string' && k !== 'card_number' && k !== 'card_cvc') values[k] = val;
    const embed = embedOrigin(body.embed ?? req.query.embed);
    const action = values.action ?? 'pay';
    if (action === 'apply_code') {
      try {
        const updated = await deps.checkout.applyCode(s.id, (values.promotion_code ?? '').trim());
        return renderSession(req, res, updated ?? s, embed, { values });
      } catch (err) {
        if (err instanceof ApiError) return renderSession(req, res, s, embed, { error: err.message, values });
        throw err;
      }
    }
    const fields: Record<string, string> = {};
    for (const [k, val] of Object.entries(values)) if (k.startsWith('f_')) fields[k.slice(2)] = val;
    if (action === 'claim') {
      const outcome = await deps.checkout.payByClaim(s.id, {
        fields,
        customAmount: values.custom_amount,
        kennitala: values.claim_kennitala ?? '',
      });
      return afterPay(req, res, outcome, embed, values);
    }
    const exp = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(values.card_exp ?? '');
    const number = typeof body.card_number === 'string' ? body.card_number.replace(/[\s-]/g, '') : '';
    const wallet =
      action === 'wallet:apple_pay' ? 'apple_pay' : action === 'wallet:google_pay' ? 'google_pay' : undefined;
    const card =
      number && exp
        ? {
            number,
            exp_month: Number(exp[1]),
            exp_year: exp[2]!.length === 2 ? 2000 + Number(exp[2]) : Number(exp[2]),
            cvc: typeof body.card_cvc === 'string' ? body.card_cvc.trim() : '',
          }
        : undefined;
    const returnUrl = `${deps.publicBaseUrl}/checkout/${s.id}/return${embed ? `?embed=${encodeURIComponent(embed)}` : ''}`;
    const outcome = await deps.checkout.pay(s.id, {
      fields,
      customAmount: values.custom_amount,
      card: wallet ? undefined : card,
      wallet,
      returnUrl,
    });
    await afterPay(req, res, outcome, embed, values);
  });

  router.get('/checkout/:id/return', async (req, res) => {
    const id = String(req.params.id);
    if (!ID.test(id)) return notFound(req, res, 'notFound');
    const outcome = await deps.checkout.resume(id);
    await afterPay(req, res, outcome, embedOrigin(req.query.embed), {});
  });

  router.get('/s/:code', async (req, res) => {
    const s = /^[0-9A-Za-z]{10}$/.test(req.params.code)
      ? await sessions.findByShortCode(req.params.code)
      : undefined;
    if (!s) return notFound(req, res, 'notFound');
    res.redirect(302, `${deps.publicBaseUrl}/checkout/${s.id}`);
  });

  router.get('/l/:id', async (req, res) => {
    const id = String(req.params.id);
    const opened = /^plink_[0-9A-Za-z]{1,64}$/.test(id)
      ? await openPaymentLink(deps.knex, deps.checkout, id)
      : null;
    if (!opened) return notFound(req, res, 'notFound');
    if ('unavailable' in opened) return notFound(req, res, 'unavailable');
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(303, `${deps.publicBaseUrl}/checkout/${opened.sessionId}`);
  });

  router.use(((err, _req, res, _next) => {
    deps.log.error({ err, requestId: context(res).requestId }, 'checkout page failed');
    if (!res.headersSent)
      res
        .status(500)
        .type('text')
        .send(`Something went wrong. Request id: ${context(res).requestId}`);
  }) as express.ErrorRequestHandler);

  const PATHS = /^\/(checkout|s|l)\/|^\/v1\/skil\.js$/;
  return (req, res, next) => (PATHS.test(req.path) ? router(req, res, next) : next());
}
