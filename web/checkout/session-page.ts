import type { Request, Response } from 'express';
import { formatIsk } from '../../domain/isk';
import { html } from '../../html/html';
import { sendCheckoutPage } from './document';
import { sessionFrame } from './frame';
import { resultState } from './result';
import { summary } from './summary';
import { customAmountField, promotionCodeField } from './amount-fields';
import { customerFields } from './customer-fields';
import { businessFields } from './business-fields';
import { asksForCard, cardForm } from './card-form';
import { krafaForm } from './krafa-form';
import { payButton, walletButtons } from './payment-choice';
import { PICKUP_CSS, nearOf, pickupStep } from './pickup-step';
import { checkoutView, sessionPath, type CheckoutPageDeps, type CheckoutSessionView } from './view';

/** What the buyer's last post left on the page: a decline, field errors, the values typed. */
export interface PageState {
  error?: string | undefined;
  errors?: Record<string, string> | undefined;
  values?: Record<string, string> | undefined;
}

function origin(url: string | null): string {
  if (!url) return '';
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}

/** The page of one session: its result once closed, else the summary and the payment form. */
export async function renderSession(
  deps: CheckoutPageDeps,
  req: Request,
  res: Response,
  s: CheckoutSessionView,
  embed: string | null,
  state: PageState = {},
): Promise<void> {
  const view = await checkoutView(deps, req, s);
  const { locale, t } = view;
  const money = (a: number) => formatIsk(a, locale, { negative: 'typographic' });
  const common = { locale, theme: view.theme, embed, title: `${t.title} · ${view.merchantName}` };
  const result = resultState(s, t, embed);
  if (result)
    return sendCheckoutPage(res, sessionFrame(s, view, embed, result.inner, result.attrs), {
      ...common,
      ...(result.status !== undefined && { status: result.status }),
    });

  const claimsOffered = (await deps.services.checkout.claimsOffered(s)) !== null;
  const wallets = await deps.services.checkout.walletsOffered(s);
  const v = state.values ?? {};
  const errs = state.errors ?? {};
  // The pickup-point step: only when the session asks for one and one of its carriers is active.
  const points = await deps.services.checkout.pickupPointsFor(s, { q: v.pickup_q, near: nearOf(v) });
  const pickup = points
    ? pickupStep(points, s.pickup_point, t, locale, v, errs.pickup_point !== undefined)
    : null;
  const declined = state.error ? (t.declined[state.error] ?? state.error) : null;
  // The ways to pay, in order: wallets, the card, a krafa (decision 0203).
  const inner = html`<h1>${t.title}</h1>
    ${declined ? html`<div class="error" role="alert" data-testid="error">${declined}</div>` : ''}
    ${errs.card ? html`<div class="error" role="alert" data-testid="error">${t.cardRequired}</div>` : ''}
    ${summary(s, t, locale)}
    <form id="skil-form" method="post" action="${sessionPath(s, embed)}" novalidate>
      ${embed ? html`<input type="hidden" name="embed" value="${embed}" />` : ''}
      ${promotionCodeField(s, t, v)} ${customAmountField(s, t, v, errs, money)}
      ${customerFields(s, t, locale, v, errs)} ${businessFields(s, t, v, errs)} ${pickup ? pickup.html : ''}
      ${walletButtons(s, t, money, wallets, asksForCard(s))} ${cardForm(s, t)} ${payButton(s, t, money)}
      ${claimsOffered ? krafaForm(t, v, errs) : ''}
    </form>
    ${
      embed
        ? html`<button type="button" class="secondary" id="skil-cancel">${t.back}</button>`
        : s.cancel_url
          ? html`<p><a href="${s.cancel_url}" data-testid="cancel">${t.back}</a></p>`
          : ''
    }`;
  sendCheckoutPage(res, sessionFrame(s, view, embed, inner), {
    ...common,
    status: declined || Object.keys(errs).length ? 402 : 200,
    ...(pickup && { css: PICKUP_CSS + pickup.css }),
    formTargets: [origin(s.success_url), origin(s.cancel_url), deps.acquirerOrigin],
  });
}
