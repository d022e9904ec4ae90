import { Router } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../openapi';
import type { DeviceService } from '../../services/device/device-authorization';
import { parseInput } from '../validation';
import { context } from '../../stack/request-context';
import { routeNotFound } from '../middleware/errors';
import { DeviceTokenError } from '../../services/device/device-authorization';
import {
  DeviceAuthorizationSchema,
  DeviceTokenSchema,
} from '../../services/device/device-authorization-object';

/** 1 to 100 characters (code points), none of them control or invisible formatting characters. */
const ClientName = z
  .string()
  .refine((s) => [...s].length >= 1, 'must be at least 1 character')
  .refine((s) => [...s].length <= 100, 'must be at most 100 characters')
  .refine((s) => !/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(s), 'must not contain control or formatting characters');

const AuthorizeBody = z.object({ client_name: ClientName }).strict();
const TokenQuery = z.object({ device_code: z.string().min(1).max(512) }).strict();

/**
 * `POST /v1/device/authorize` and `GET /v1/device/token` (spec §4.2, §5.4; RFC 8628). Public: no
 * API key, since obtaining one is the point. Mounted before the authenticated part of /v1.
 */
export function deviceRouter(deps: { device: DeviceService }, docs: OperationDoc[]): Router {
  const router = Router();
  const { device } = deps;
  const tag = 'Device Auth';

  // Declared like every route (docs, and `declared` for the response check) though they need no key.
  const authorizeDoc: OperationDoc = {
    method: 'post',
    path: '/v1/device/authorize',
    summary: 'Start a device authorization: a code for the user to approve in the dashboard',
    tag,
    auth: false,
    body: AuthorizeBody,
    response: DeviceAuthorizationSchema,
    status: 200,
    // Limited per client address (decision 0110).
    errors: [429],
  };
  docs.push(authorizeDoc);
  router.post('/v1/device/authorize', async (req, res) => {
    context(res).route = authorizeDoc.path;
    context(res).declared = authorizeDoc;
    const body = parseInput(AuthorizeBody, req.body, 'body');
    res.setHeader('Cache-Control', 'no-store');
    res.json(await device.authorize(body.client_name));
  });

  const tokenDoc: OperationDoc = {
    method: 'get',
    path: '/v1/device/token',
    summary:
      'Poll for the key: 400 authorization_pending, slow_down, access_denied or expired_token until approved',
    tag,
    auth: false,
    query: TokenQuery,
    response: DeviceTokenSchema,
    status: 200,
    // Limited per client address (decision 0110).
    errors: [429],
  };
  docs.push(tokenDoc);
  router.get('/v1/device/token', async (req, res) => {
    context(res).route = tokenDoc.path;
    context(res).declared = tokenDoc;
    const query = parseInput(TokenQuery, req.query, 'query');
    res.setHeader('Cache-Control', 'no-store');
    try {
      res.json(await device.poll(query.device_code));
    } catch (err) {
      if (err instanceof DeviceTokenError && err.retryAfterSeconds !== undefined) {
        res.setHeader('Retry-After', String(err.retryAfterSeconds));
      }
      throw err;
    }
  });
  // Unknown device paths are 404 here, rather than 401 from the API-key check further on.
  router.use('/v1/device', routeNotFound);

  return router;
}
