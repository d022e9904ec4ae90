import express, { type Request, type RequestHandler, type Response } from 'express';
import type { PayOutcome } from '../../services/checkout';
import { ApiError } from '../../domain/errors';
import { context } from '../../stack/request-context';
import { html } from '../../html/html';
import { setPageSecurityHeaders, newNonce } from '../../html/security-headers';
import { CHECKOUT_PAGE_JS, sdkJs } from './assets';
import { sendCheckoutPage } from './document';
import { renderSession } from './session-page';
import { productPages } from './product-page';
import { businessAnswers } from './business-fields';
import { checkoutView, sessionPath, type CheckoutPageDeps } from './view';

const ID = /^cs_[0-9A-Za-z]{1,64}$/;

/** An embedding page's origin as the SDK sends it; anything else is ignored. */
function embedOrigin(value: unknown): string | null {
  if (typeof value !== 'string' || !/^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/.test(value)) return null;
  return value;
}

/** The card as typed: number, MM/YY expiry and CVC; undefined unless number and expiry read. */
function cardOf(body: Record<string, unknown>, values: Record<string, string>) {
  const exp = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(values.card_exp ?? '');
  const number = typeof body.card_number === 'string' ? body.card_number.replace(/[\s-]/g, '') : '';
  if (!number || !exp) return undefined;
  return {
    number,
    exp_month: Number(exp[1]),
    exp_year: exp[2]!.length === 2 ? 2000 + Number(exp[2]) : Number(exp[2]),
    cvc: typeof body.card_cvc === 'string' ? body.card_cvc.trim() : '',
  };
}

/** The hosted checkout (at the session `url`), short URLs, payment link and product page visits, the browser SDK. */
export function checkoutPages(deps: CheckoutPageDeps): RequestHandler {
  const router = express.Router();
  const { checkout, paymentLinks } = deps.services;
  const { sessions } = checkout;
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

  async function notFound(req: Request, res: Response, message: 'notFound' | 'unavailable') {
    const { theme, locale, t } = await checkoutView(deps, req, undefined);
    sendCheckoutPage(
      res,
      html`<main class="skil-checkout"><h1 data-testid="status">${t[message]}</h1></main>`,
      {
        locale,
        theme,
        embed: null,
        title: t.title,
        status: 404,
      },
    );
  }

  router.get('/checkout/:id', async (req, res) => {
    const s = ID.test(req.params.id) ? await sessions.findPublic(req.params.id) : undefined;
    if (!s) return notFound(req, res, 'notFound');
    await renderSession(deps, req, res, s, embedOrigin(req.query.embed));
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
          return res.redirect(303, checkout.successUrl(outcome.session));
        return renderSession(deps, req, res, outcome.session, embed);
      case 'action':
        return res.redirect(303, outcome.url);
      case 'declined':
        return renderSession(deps, req, res, outcome.session, embed, { error: outcome.message, values });
      case 'invalid':
        return sessions
          .findPublic(String(req.params.id))
          .then((s) => renderSession(deps, req, res, s!, embed, { errors: outcome.errors, values }));
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
        const updated = await checkout.applyCode(s.id, (values.promotion_code ?? '').trim());
        return renderSession(deps, req, res, updated ?? s, embed, { values });
      } catch (err) {
        if (err instanceof ApiError)
          return renderSession(deps, req, res, s, embed, { error: err.message, values });
        throw err;
      }
    }
    if (action === 'pickup_search') return renderSession(deps, req, res, s, embed, { values });
    if (action.startsWith('pickup:')) {
      try {
        const updated = await checkout.choosePickupPoint(s.id, action.slice('pickup:'.length));
        return renderSession(deps, req, res, updated, embed, { values });
      } catch (err) {
        if (err instanceof ApiError)
          return renderSession(deps, req, res, s, embed, { errors: { pickup_point: 'invalid' }, values });
        throw err;
      }
    }
    const fields: Record<string, string> = {};
    for (const [k, val] of Object.entries(values)) if (k.startsWith('f_')) fields[k.slice(2)] = val;
    const business = businessAnswers(values);
    if (action === 'claim') {
      const outcome = await checkout.payByClaim(s.id, {
        fields,
        customAmount: values.custom_amount,
        kennitala: values.claim_kennitala ?? '',
        business,
      });
      return afterPay(req, res, outcome, embed, values);
    }
    const wallet =
      action === 'wallet:apple_pay' ? 'apple_pay' : action === 'wallet:google_pay' ? 'google_pay' : undefined;
    const outcome = await checkout.pay(s.id, {
      fields,
      customAmount: values.custom_amount,
      card: wallet ? undefined : cardOf(body, values),
      wallet,
      business,
      returnUrl: `${deps.publicBaseUrl}${sessionPath(s, embed, '/return')}`,
    });
    await afterPay(req, res, outcome, embed, values);
  });

  router.get('/checkout/:id/return', async (req, res) => {
    const id = String(req.params.id);
    if (!ID.test(id)) return notFound(req, res, 'notFound');
    const outcome = await checkout.resume(id);
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
    const opened = /^plink_[0-9A-Za-z]{1,64}$/.test(id) ? await paymentLinks.open(id) : null;
    if (!opened) return notFound(req, res, 'notFound');
    if ('unavailable' in opened) return notFound(req, res, 'unavailable');
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(303, `${deps.publicBaseUrl}/checkout/${opened.sessionId}`);
  });

  router.use(productPages(deps));

  router.use(((err, _req, res, _next) => {
    deps.log.error({ err, requestId: context(res).requestId }, 'checkout page failed');
    if (res.headersSent) return;
    setPageSecurityHeaders(res, { nonce: newNonce() });
    res
      .status(500)
      .type('text')
      .send(`Something went wrong. Request id: ${context(res).requestId}`);
  }) as express.ErrorRequestHandler);

  const PATHS = /^\/(checkout|s|l|p)\/|^\/v1\/skil\.js$/;
  return (req, res, next) => (PATHS.test(req.path) ? router(req, res, next) : next());
}
