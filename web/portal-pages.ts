import { randomBytes } from 'node:crypto';
import express, { type Request, type Response, type Router } from 'express';
import type { Knex } from '../db/knex';
import type { Logger } from '../stack/logger';
import type { CardAcquirer } from '../bank-adapters/card-acquirer';
import type { SubscriptionService } from '../services/subscriptions';
import type { Locale } from '../domain/checkout';
import type { ThemeValues } from '../domain/theme';
import { chooseLocale } from '../domain/checkout';
import { AcquirerCardError } from '../bank-adapters/card-acquirer';
import { createPortalSessionRepository, type PortalSessionRow } from '../db/billing-portal-sessions';
import { createPaymentMethodRepository } from '../db/payment-methods';
import { createThemeRepository } from '../db/themes';
import { ApiError, InvalidRequestError } from '../domain/errors';
import { html, trusted, type SafeHtml } from './html';
import { fontStylesheetUrl, themeCss } from './theme-render';
import { formatIsk } from './checkout-strings';

export interface PortalDeps {
  knex: Knex;
  log: Logger;
  acquirer: CardAcquirer;
  subscriptions: SubscriptionService;
}

const STRINGS = {
  is: {
    title: 'Áskriftin þín',
    status: {
      active: 'Virk',
      trialing: 'Prufutímabil',
      past_due: 'Greiðsla mistókst',
      unpaid: 'Ógreidd',
      incomplete: 'Ófrágengin',
    } as Record<string, string>,
    nextCharge: (a: string, d: string) => `Næsta greiðsla: ${a} þann ${d}`,
    endsAt: (d: string) => `Áskriftin lýkur ${d}`,
    history: 'Greiðslusaga',
    none: 'Engar greiðslur enn.',
    card: 'Greiðslukort',
    cardOnFile: (l: string) => `Kort sem endar á ${l}`,
    cardNumber: 'Kortanúmer',
    expiry: 'Gildistími (MM/ÁÁ)',
    cvc: 'Öryggisnúmer (CVC)',
    updateCard: 'Uppfæra kort',
    cancel: 'Segja upp',
    atPeriodEnd: 'Í lok tímabils',
    now: 'Strax',
    reason: 'Ástæða (valfrjálst)',
    switchPrice: 'Skipta um áskriftarleið',
    switch: 'Skipta',
    back: 'Til baka',
    saved: 'Breytingin var vistuð.',
    expired: 'Þessi hlekkur er útrunninn eða hefur þegar verið notaður.',
    noSubscriptions: 'Engin virk áskrift.',
    paid: 'Greitt',
    failed: 'Mistókst',
    testMode: 'Prófunarhamur',
  },
  en: {
    title: 'Your subscription',
    status: {
      active: 'Active',
      trialing: 'Trial',
      past_due: 'Payment failed',
      unpaid: 'Unpaid',
      incomplete: 'Incomplete',
    } as Record<string, string>,
    nextCharge: (a: string, d: string) => `Next charge: ${a} on ${d}`,
    endsAt: (d: string) => `Ends on ${d}`,
    history: 'Payment history',
    none: 'No payments yet.',
    card: 'Payment card',
    cardOnFile: (l: string) => `Card ending in ${l}`,
    cardNumber: 'Card number',
    expiry: 'Expiry (MM/YY)',
    cvc: 'Security code (CVC)',
    updateCard: 'Update card',
    cancel: 'Cancel subscription',
    atPeriodEnd: 'At the end of the period',
    now: 'Now',
    reason: 'Reason (optional)',
    switchPrice: 'Switch plan',
    switch: 'Switch',
    back: 'Back',
    saved: 'Your change was saved.',
    expired: 'This link has expired or was already used.',
    noSubscriptions: 'No active subscription.',
    paid: 'Paid',
    failed: 'Failed',
    testMode: 'Test mode',
  },
};

const CSS = `
*, *::before, *::after { box-sizing: border-box; }
body { margin: 0; background: var(--skil-background, #f6f7f9); color: #1b1b1f; font-family: var(--skil-font, system-ui, sans-serif); }
main { max-width: 36rem; margin: 0 auto; padding: 1rem; line-height: 1.45; }
h1, h2 { font-family: var(--skil-heading-font, inherit); }
section { background: #fff; border: 1px solid #ddd; border-radius: 8px; padding: 1rem; margin: 1rem 0; }
label { display: block; font-weight: 600; margin-top: .6rem; }
input, select { width: 100%; font: inherit; padding: .5rem; border: 1px solid #888; border-radius: 6px; }
button { margin-top: .8rem; font: inherit; font-weight: 600; padding: .6rem 1rem; cursor: pointer; border: 0; border-radius: var(--skil-radius, 6px); background: var(--skil-primary, #1f4fd1); color: #fff; }
table { width: 100%; border-collapse: collapse; } td { padding: .3rem 0; } td.num { text-align: right; }
.notice { background: #e6f4ea; border: 1px solid #2e7d32; padding: .6rem; border-radius: 6px; }
.error { background: #fde2e2; border: 1px solid #a4161a; padding: .6rem; border-radius: 6px; }
.test { background: #fff4d6; border: 1px solid #b7791f; padding: .3rem .6rem; font-size: .85rem; border-radius: 4px; }
`;

const EMPTY_THEME: ThemeValues = {
  primary_color: null,
  background_color: null,
  font_family: null,
  heading_font_family: null,
  button_roundness: null,
  logo_url: null,
  source: null,
};

const COOKIE = 'skil_portal';
const str = (v: unknown) => (typeof v === 'string' ? v : '');

/**
 * The customer portal (decision 0047): a single-use link opens a visit bound to this browser by an
 * HttpOnly cookie; the customer sees the subscription, the next charge and the payment history, and
 * can update the card, cancel (at period end or now, with a reason) or switch to an allowed price.
 */
export function portalPages(deps: PortalDeps): Router {
  const router = express.Router();
  const sessions = createPortalSessionRepository(deps.knex);
  const themes = createThemeRepository(deps.knex);
  const cards = createPaymentMethodRepository(deps.knex);
  router.use('/portal', express.urlencoded({ extended: false, limit: '8kb' }));

  const dateOf = (d: Date, locale: Locale) =>
    d.toLocaleDateString(locale === 'is' ? 'is-IS' : 'en-GB', {
      timeZone: 'Atlantic/Reykjavik',
      dateStyle: 'medium',
    });

  async function page(
    res: Response,
    session: PortalSessionRow | null,
    locale: Locale,
    body: SafeHtml,
    status = 200,
  ) {
    const theme = session ? ((await themes.find(session.merchant_id)) ?? EMPTY_THEME) : EMPTY_THEME;
    const nonce = randomBytes(16).toString('base64');
    const fonts = fontStylesheetUrl(theme);
    res.status(status);
    res.setHeader(
      'Content-Security-Policy',
      [
        "default-src 'none'",
        `style-src 'nonce-${nonce}' https://fonts.googleapis.com`,
        'font-src https://fonts.gstatic.com',
        "img-src 'self' https: data:",
        "form-action 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
      ].join('; '),
    );
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cache-Control', 'no-store');
    res.type('html').send(
      html`<!doctype html>
        <html lang="${locale}">
          <head>
            <meta charset="utf-8" />
            <meta name="viewport" content="width=device-width, initial-scale=1" />
            <title>${STRINGS[locale].title}</title>
            ${fonts ? html`<link rel="stylesheet" href="${fonts}" />` : ''}
            <style nonce="${nonce}">
              ${trusted(themeCss(theme))}${trusted(CSS)}
            </style>
          </head>
          <body>
            <main>${body}</main>
          </body>
        </html>`.value,
    );
  }

  /** The visit: the token's session, valid, opened by this browser (or opened now). */
  async function visit(req: Request, res: Response, opening: boolean): Promise<PortalSessionRow | null> {
    const token = str(req.params.token);
    const session = /^[0-9A-Za-z]{40}$/.test(token) ? await sessions.findByToken(token) : undefined;
    const cookie = (req.headers.cookie ?? '')
      .split(';')
      .map((c) => c.trim().split('='))
      .find(([k]) => k === COOKIE)?.[1];
    if (session && session.expires_at.getTime() > Date.now()) {
      if (cookie === token) return session;
      if (opening && (await sessions.open(session.id))) {
        res.cookie(COOKIE, token, {
          httpOnly: true,
          sameSite: 'strict',
          path: `/portal/${token}`,
          maxAge: session.expires_at.getTime() - Date.now(),
        });
        return session;
      }
    }
    const locale = chooseLocale(session?.locale ?? null, req.get('accept-language'));
    await page(res, null, locale, html`<p class="error">${STRINGS[locale].expired}</p>`, 410);
    return null;
  }

  async function render(req: Request, res: Response, session: PortalSessionRow, message: SafeHtml | null) {
    const locale = chooseLocale(session.locale, req.get('accept-language'));
    const t = STRINGS[locale];
    const token = str(req.params.token);
    const subs = await deps
      .knex('subscriptions as s')
      .join('prices as p', 'p.id', deps.knex.raw('coalesce(s.pending_price_id, s.price_id)'))
      .join('products as pr', 'pr.id', 'p.product_id')
      .where({ 's.customer_id': session.customer_id })
      .whereNotIn('s.status', ['canceled', 'incomplete_expired'])
      .orderBy('s.created_at')
      .select<
        {
          id: string;
          status: string;
          quantity: number;
          current_period_end: Date;
          cancel_at_period_end: boolean;
          price_id: string;
          unit_amount: string;
          nickname: string | null;
          name: string;
          payment_method_id: string | null;
        }[]
      >(
        's.id',
        's.status',
        's.quantity',
        's.current_period_end',
        's.cancel_at_period_end',
        's.price_id',
        'p.unit_amount',
        'p.nickname',
        'pr.name',
        's.payment_method_id',
      );
    const history = await deps
      .knex('payment_intents')
      .where({ customer_id: session.customer_id })
      .whereNotNull('subscription_id')
      .orderBy('created_at', 'desc')
      .limit(24)
      .select<{ created_at: Date; amount: string; status: string }[]>('created_at', 'amount', 'status');
    const allowed =
      session.allowed_prices.length === 0
        ? []
        : await deps
            .knex('prices as p')
            .join('products as pr', 'pr.id', 'p.product_id')
            .whereIn('p.id', session.allowed_prices)
            .select<
              {
                id: string;
                unit_amount: string;
                nickname: string | null;
                name: string;
                recurring_interval: string;
              }[]
            >('p.id', 'p.unit_amount', 'p.nickname', 'pr.name', 'p.recurring_interval');
    const pm = subs[0]?.payment_method_id
      ? await cards.findById(scopeOf(session), subs[0].payment_method_id)
      : undefined;
    const action = (name: string) => `/portal/${token}/${name}`;
    const body = html`
      ${session.livemode ? '' : html`<p class="test">${t.testMode}</p>`}
      <h1>${t.title}</h1>
      ${message} ${subs.length === 0 ? html`<p>${t.noSubscriptions}</p>` : ''}
      ${subs.map(
        (s) =>
          html`<section data-subscription="${s.id}">
            <h2>${s.nickname ?? s.name}</h2>
            <p class="status">${t.status[s.status] ?? s.status}</p>
            <p class="next">
              ${
                s.cancel_at_period_end
                  ? t.endsAt(dateOf(s.current_period_end, locale))
                  : t.nextCharge(
                      formatIsk(Number(s.unit_amount) * s.quantity, locale),
                      dateOf(s.current_period_end, locale),
                    )
              }
            </p>
            ${
              s.cancel_at_period_end
                ? ''
                : html`<form method="post" action="${action('cancel')}">
                    <input type="hidden" name="subscription" value="${s.id}" />
                    <label
                      ><input type="radio" name="when" value="period_end" checked /> ${t.atPeriodEnd}</label
                    >
                    <label><input type="radio" name="when" value="now" /> ${t.now}</label>
                    <label for="reason-${s.id}">${t.reason}</label>
                    <input id="reason-${s.id}" name="reason" maxlength="500" />
                    <button type="submit" name="cancel">${t.cancel}</button>
                  </form>`
            }
            ${
              allowed.filter((p) => p.id !== s.price_id).length === 0
                ? ''
                : html`<form method="post" action="${action('switch')}">
                    <input type="hidden" name="subscription" value="${s.id}" />
                    <label for="price-${s.id}">${t.switchPrice}</label>
                    <select id="price-${s.id}" name="price">
                      ${allowed
                        .filter((p) => p.id !== s.price_id)
                        .map(
                          (p) =>
                            html`<option value="${p.id}">
                              ${p.nickname ?? p.name} — ${formatIsk(Number(p.unit_amount), locale)} /
                              ${p.recurring_interval}
                            </option>`,
                        )}
                    </select>
                    <button type="submit">${t.switch}</button>
                  </form>`
            }
          </section>`,
      )}
      <section>
        <h2>${t.card}</h2>
        ${pm ? html`<p class="card-on-file">${t.cardOnFile(pm.card_last4)}</p>` : ''}
        <form method="post" action="${action('card')}">
          <label for="number">${t.cardNumber}</label>
          <input id="number" name="number" inputmode="numeric" autocomplete="cc-number" required />
          <label for="expiry">${t.expiry}</label>
          <input id="expiry" name="expiry" autocomplete="cc-exp" required />
          <label for="cvc">${t.cvc}</label>
          <input id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" required />
          <button type="submit" name="update-card">${t.updateCard}</button>
        </form>
      </section>
      <section>
        <h2>${t.history}</h2>
        ${
          history.length === 0
            ? html`<p>${t.none}</p>`
            : html`<table>
                ${history.map(
                  (h) =>
                    html`<tr>
                      <td>${dateOf(h.created_at, locale)}</td>
                      <td>${h.status === 'succeeded' ? t.paid : t.failed}</td>
                      <td class="num">${formatIsk(Number(h.amount), locale)}</td>
                    </tr>`,
                )}
              </table>`
        }
      </section>
      <p><a href="${session.return_url}">${t.back}</a></p>
    `;
    await page(res, session, locale, body);
  }

  router.get('/portal/:token', async (req, res) => {
    const session = await visit(req, res, true);
    if (session) await render(req, res, session, null);
  });

  /** A subscription of the visit's customer, or null. */
  async function ownSubscription(session: PortalSessionRow, id: string) {
    const row = await deps
      .knex('subscriptions')
      .where({
        id,
        customer_id: session.customer_id,
        merchant_id: session.merchant_id,
        livemode: session.livemode,
      })
      .first<{ id: string } | undefined>('id');
    return row ?? null;
  }

  const act =
    (work: (session: PortalSessionRow, body: Record<string, unknown>) => Promise<void>) =>
    async (req: Request, res: Response) => {
      const session = await visit(req, res, false);
      if (!session) return;
      const locale = chooseLocale(session.locale, req.get('accept-language'));
      let message: SafeHtml;
      try {
        await work(session, (req.body ?? {}) as Record<string, unknown>);
        message = html`<p class="notice" role="status">${STRINGS[locale].saved}</p>`;
      } catch (err) {
        if (!(err instanceof ApiError) && !(err instanceof AcquirerCardError)) throw err;
        message = html`<p class="error" role="alert">${err.message}</p>`;
      }
      await render(req, res, session, message);
    };

  const invalid = (message: string) => new InvalidRequestError(message);
  const scopeOf = (s: PortalSessionRow) => ({ merchantId: s.merchant_id, livemode: s.livemode });

  router.post(
    '/portal/:token/card',
    act(async (session, body) => {
      const expiry = /^(\d{1,2})\s*\/\s*(\d{2}|\d{4})$/.exec(str(body.expiry).trim());
      if (!expiry) throw invalid('MM/YY');
      const year = Number(expiry[2]);
      const token = await deps.acquirer.tokenize({
        number: str(body.number).replace(/\s/g, ''),
        exp_month: Number(expiry[1]),
        exp_year: year < 100 ? 2000 + year : year,
        cvc: str(body.cvc),
      });
      const pm = await cards.create(scopeOf(session), token, session.customer_id);
      await cards.setDefault(scopeOf(session), session.customer_id, pm.id);
      const subs = await deps
        .knex('subscriptions')
        .where({ customer_id: session.customer_id })
        .whereNotIn('status', ['canceled', 'incomplete_expired'])
        .pluck<string[]>('id');
      for (const id of subs) await deps.subscriptions.update(scopeOf(session), id, { paymentMethod: pm.id });
    }),
  );

  router.post(
    '/portal/:token/cancel',
    act(async (session, body) => {
      const sub = await ownSubscription(session, str(body.subscription));
      if (!sub) throw invalid('No such subscription');
      const reason = str(body.reason).slice(0, 500).trim() || null;
      if (body.when === 'now') await deps.subscriptions.cancel(scopeOf(session), sub.id, reason);
      else
        await deps.subscriptions.update(scopeOf(session), sub.id, {
          cancelAtPeriodEnd: true,
          cancellationReason: reason,
        });
    }),
  );

  router.post(
    '/portal/:token/switch',
    act(async (session, body) => {
      const sub = await ownSubscription(session, str(body.subscription));
      const price = str(body.price);
      if (!sub || !session.allowed_prices.includes(price)) throw invalid('That plan is not available');
      await deps.subscriptions.update(scopeOf(session), sub.id, { price });
    }),
  );

  return router;
}
