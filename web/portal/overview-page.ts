import type { Request, Response } from 'express';
import type { PortalService, PortalSessionRow } from '../../services/portal/portal';
import type { ThemeService } from '../../services/theme';
import { chooseLocale } from '../../domain/locale';
import { html, type SafeHtml } from '../../html/html';
import { sendPortalPage } from './document';
import { STRINGS } from './strings';
import { subscriptionSection } from './subscription-section';
import { cardSection } from './card-section';
import { historySection } from './history-section';

/** The portal page of a visit: subscriptions, card and payment history, with `message` on top. */
export async function renderOverview(
  deps: { portal: PortalService; themes: ThemeService },
  req: Request,
  res: Response,
  session: PortalSessionRow,
  token: string,
  message: SafeHtml | null,
): Promise<void> {
  const locale = chooseLocale(session.locale, req.get('accept-language'));
  const t = STRINGS[locale];
  const [{ subscriptions, history, allowed, cardLast4 }, { theme }] = await Promise.all([
    deps.portal.overview(session),
    deps.themes.forPages(session.merchant_id),
  ]);
  const action = (name: string) => `/portal/${token}/${name}`;
  const body = html`
    ${session.livemode ? '' : html`<p class="test">${t.testMode}</p>`}
    <h1>${t.title}</h1>
    ${message} ${subscriptions.length === 0 ? html`<p>${t.noSubscriptions}</p>` : ''}
    ${subscriptions.map((s) => subscriptionSection(s, allowed, { t, locale, action }))}
    ${cardSection(t, cardLast4, action('card'))} ${historySection(t, locale, history)}
    <p><a href="${session.return_url}">${t.back}</a></p>
  `;
  sendPortalPage(res, theme, locale, body);
}
