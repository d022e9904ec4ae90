import type { RequestHandler } from 'express';
import type { Logger } from '../stack/logger';
import type { PageServices } from './page-services';
import { checkoutPages } from './checkout/pages';
import { portalPages } from './portal/pages';
import { dashboardPages } from './dashboard/index';
import { posPages } from './pos';
import { krafaPayerPages } from './krafa/payer-page';
import { stylesheetRoute } from './stylesheet';
import { faviconRoutes } from './favicon';
import { docsPages } from './docs/index';

export interface PagesDeps {
  /** The services the pages call, built by the API process's composition root. */
  services: PageServices;
  log: Logger;
  publicBaseUrl: string;
  /** Origin of the card acquirer's 3-D Secure pages (the checkout form's redirect may go there). */
  acquirerOrigin: string;
  /** The live OpenAPI document, which the API reference at /docs renders (decision 0250). */
  openApiDocument: () => unknown;
}

/**
 * Every HTML page: the hosted checkout (with short URLs, payment link visits and the browser SDK),
 * the customer portal, the dashboard and the device verification page, and the icon they share. None needs an API key, so
 * the app mounts this before the API's key check; each part lets through what is not its own.
 */
export function pages(deps: PagesDeps): RequestHandler[] {
  const { services } = deps;
  const base = { services, log: deps.log, publicBaseUrl: deps.publicBaseUrl };
  return [
    stylesheetRoute(),
    faviconRoutes,
    checkoutPages({ ...base, acquirerOrigin: deps.acquirerOrigin }),
    portalPages(services),
    krafaPayerPages({ collection: services.collection }),
    dashboardPages(base),
    posPages({ pos: services.pos, log: deps.log, publicBaseUrl: deps.publicBaseUrl }),
    docsPages({ openApiDocument: deps.openApiDocument }),
  ];
}
