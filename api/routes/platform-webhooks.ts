import { Router, raw as rawBody, type RequestHandler } from 'express';
import { checkInput } from '../middleware/input-check';
import { rawBodyParser, requireObjectBody } from '../middleware/body';
import { z } from 'zod';
import type { OperationDoc } from '../openapi';
import type { InboundWebhooks } from '../../services/platforms/inbound-webhooks';
import { context } from '../../stack/request-context';

const InboundResultSchema = z.object({
  received: z.literal(true),
  duplicate: z.boolean().describe('This delivery was received before; nothing changed'),
  checkout_session: z
    .object({ id: z.string(), url: z.string() })
    .nullable()
    .describe('The session the order is paid through; send the buyer to its url'),
  claim: z.string().nullable().describe('The krafa the order is paid by'),
});

/**
 * `POST /api/v1/<platform>/webhook/` (spec §4.7): order webhooks of WooCommerce and Shopify. No API
 * key: the platform's own headers name the shop, and its signature over the raw body is checked
 * with that connection's secret, so the body is read raw, before any parser.
 */
export function platformWebhooksRouter(
  deps: { inbound: InboundWebhooks; bodyLimitBytes: number },
  docs: OperationDoc[],
): Router {
  const router = Router();
  docs.push({
    method: 'post',
    path: '/api/v1/:platform/webhook/',
    summary:
      'Inbound order webhook of a connected WooCommerce (`X-WC-Webhook-Source`, `X-WC-Webhook-Signature`) or Shopify (`X-Shopify-Shop-Domain`, `X-Shopify-Hmac-Sha256`) shop',
    tag: 'Platform Connections',
    auth: false,
    body: z.object({}).passthrough().describe('The platform’s order, as it sends it'),
    response: InboundResultSchema,
    status: 200,
    errors: [401],
  });
  const declared = { method: 'post', path: '/api/v1/:platform/webhook/', response: InboundResultSchema };
  const raw = rawBody({ type: () => true, limit: deps.bodyLimitBytes });
  const parseBytes = rawBodyParser(deps.bodyLimitBytes);
  // The raw bytes are kept for the signature, which covers them whatever the encoding; they are
  // then parsed by the API's own body parsers, so JSON, plain text, form and multipart bodies give
  // the same object (spec §4; decision 0204), and get the API's input checks (depth, NUL, lone
  // surrogates) after.
  const parsed: RequestHandler = (req, res, next) => {
    const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    res.locals.rawBody = bytes;
    context(res).route = declared.path;
    context(res).declared = declared;
    parseBytes(req, bytes).then((body) => {
      req.body = body;
      next();
    }, next);
  };
  for (const path of ['/api/v1/:platform/webhook/', '/api/v1/:platform/webhook'])
    router.post(path, raw, parsed, requireObjectBody, checkInput, async (req, res) => {
      const raw = res.locals.rawBody as Buffer;
      res.json(await deps.inbound.handle(String(req.params.platform), req.headers, raw, req.body));
    });
  return router;
}
