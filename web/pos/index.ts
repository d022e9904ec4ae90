import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import type { Logger } from '../../stack/logger';
import type { PosServices } from '../page-services';
import { ApiError } from '../../domain/errors';
import { html } from '../../html/html';
import { context } from '../../stack/request-context';
import { cookieNames } from '../session';
import { isPosOff, loadDevice, localeOf, sendPosOff, sendTillPage } from './frame';
import { devicePages, requireTillCsrf } from './device-pages';
import { sellPages } from './sell-pages';
import { reportPages } from './report-pages';
import { productQrPages } from './product-qr-pages';
import { t } from './messages';

const POS_PATH = /^\/pos(\/|$)/;

/**
 * The till app at `/pos` (decision 0150): tablet-sized, server-rendered pages over the
 * same POS services as `/v1/pos`, acting as the paired device with the staff member signed in on
 * it. Only requests under `/pos` enter.
 */
export function posPages(deps: { pos: PosServices; log: Logger; publicBaseUrl: string }): RequestHandler {
  const ctx = { pos: deps.pos, cookies: cookieNames(deps.publicBaseUrl) };
  const router = express.Router();
  router.use(express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 50 }));
  router.use((req, res, next) => {
    context(res).route = req.path.replace(/\/[a-z]{2,6}_[0-9A-Za-z]{8,}/g, '/:id');
    next();
  });
  router.use(loadDevice(ctx));
  router.use(requireTillCsrf);
  router.use(devicePages(ctx));
  router.use(sellPages(ctx));
  router.use(reportPages(ctx));
  router.use(productQrPages({ ...ctx, publicBaseUrl: deps.publicBaseUrl }));
  router.use((req, res) => {
    sendTillPage(req, res, html`<p><a href="/pos">${t(localeOf(req), 'app')}</a></p>`, {
      title: 'Not found',
      status: 404,
    });
  });
  const pageError: ErrorRequestHandler = (err: unknown, req, res, _next) => {
    if (res.headersSent) return;
    if (isPosOff(err)) return sendPosOff(req, res);
    if (err instanceof ApiError)
      return sendTillPage(req, res, html``, {
        title: t(localeOf(req), 'app'),
        status: err.status,
        error: err.message,
      });
    const requestId = context(res).requestId;
    deps.log.error({ err, requestId }, 'till page failed');
    sendTillPage(req, res, html`<p>Request id: <code>${requestId}</code>.</p>`, {
      title: 'Error',
      status: 500,
    });
  };
  router.use(pageError);
  return (req, res, next) => (POS_PATH.test(req.path) ? router(req, res, next) : next());
}
