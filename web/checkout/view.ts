import type { Request } from 'express';
import type { CheckoutService } from '../../services/checkout';
import type { PageServices } from '../page-services';
import type { Logger } from '../../stack/logger';
import type { ThemeValues } from '../../domain/theme';
import { chooseLocale, type Locale } from '../../domain/locale';
import { STRINGS, type Strings } from './strings';
import { NO_THEME } from '../theme-render';

/** A checkout session as the checkout service hands it to the page. */
export type CheckoutSessionView = Parameters<CheckoutService['successUrl']>[0];

export interface CheckoutPageDeps {
  services: PageServices;
  log: Logger;
  publicBaseUrl: string;
  /** Origin of the card acquirer's 3-D Secure pages (the form's redirect may go there). */
  acquirerOrigin: string;
}

/** What every checkout page shows around the session: the merchant's look and the buyer's language. */
export interface CheckoutView {
  theme: ThemeValues;
  merchantName: string;
  locale: Locale;
  t: Strings;
}

export async function checkoutView(
  deps: CheckoutPageDeps,
  req: Request,
  s: CheckoutSessionView | undefined,
): Promise<CheckoutView> {
  const face = s ? await deps.services.themes.forPages(s.merchant_id) : { theme: NO_THEME, merchantName: '' };
  const locale = chooseLocale(s?.locale ?? null, req.get('accept-language'));
  return { ...face, locale, t: STRINGS[locale] };
}

/** The checkout URL of a session, keeping the embedding origin. */
export function sessionPath(s: Pick<CheckoutSessionView, 'id'>, embed: string | null, suffix = ''): string {
  return `/checkout/${s.id}${suffix}${embed ? `?embed=${encodeURIComponent(embed)}` : ''}`;
}
