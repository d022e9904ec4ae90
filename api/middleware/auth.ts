import type { RequestHandler } from 'express';
import type { Request, Response } from 'express';
import type { AccessService } from '../../services/access';
import type { KeyGuessGuard } from '../../services/key-guessing';
import { AuthenticationError, PermissionError, RateLimitError } from '../../domain/errors';
import { policyOf } from '../../domain/rate-limit';
import { context } from '../../stack/request-context';
import { clientAddress } from './rate-limit';

/**
 * Past the limit of failed authentications from the client's address, a credential not seen
 * authenticating from there in the last hour is refused before it is looked up (decision 0226).
 * The address is Express's `req.ip`: the peer, or what the trusted load balancer forwarded
 * (TRUST_PROXY), never a header a client sets for itself.
 */
async function admit(guard: KeyGuessGuard | undefined, req: Request, res: Response, secret: string) {
  if (!guard) return;
  const verdict = await guard.admit(clientAddress(req), secret);
  if (verdict.admitted) return;
  res.setHeader('Retry-After', String(verdict.retryAfterSeconds));
  res.setHeader('RateLimit-Policy', policyOf(verdict.limit));
  const window = verdict.limit.windowMs / 1000;
  throw new RateLimitError(
    `Too many failed authentications from this address: more than ${verdict.limit.max} in ${window} seconds. Only keys that authenticated from here in the last hour are checked until the window ends; retry after ${verdict.retryAfterSeconds} second${verdict.retryAfterSeconds === 1 ? '' : 's'}.`,
  );
}

/**
 * Authenticates `Authorization: Bearer <key>` or `x-api-key: <key>` (spec §5) and sets the request
 * scope: the key alone selects merchant and environment.
 */
export function authenticate(
  access: Pick<AccessService, 'apiKey'>,
  posDevices?: {
    device(
      secret: string,
    ): Promise<{ id: string; merchant_id: string; livemode: boolean; register_id: string } | undefined>;
  },
  guard?: KeyGuessGuard,
): RequestHandler {
  return async (req, res, next) => {
    const authorization = req.get('authorization');
    let secret: string | undefined;
    if (authorization !== undefined) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      if (!match)
        throw new AuthenticationError(
          'The Authorization header must be "Bearer <API key>"',
          'invalid_authorization_header',
        );
      secret = match[1];
    } else {
      secret = req.get('x-api-key')?.trim() || undefined;
    }
    if (secret === undefined) {
      throw new AuthenticationError(
        'No API key provided. Send it as "Authorization: Bearer sk_test_…", or in the x-api-key header.',
        'missing_api_key',
      );
    }
    await admit(guard, req, res, secret);
    // A paired till's credential opens its register's POS routes and nothing else (decision 0126).
    if (posDevices && secret.startsWith('skpos_')) {
      const device = await posDevices.device(secret);
      if (!device) {
        guard?.failed(clientAddress(req), secret);
        throw new AuthenticationError('Invalid or revoked device credential', 'invalid_device_credential');
      }
      guard?.succeeded(clientAddress(req), secret);
      if (!req.path.startsWith('/v1/pos/'))
        throw new PermissionError(
          'A till’s device credential opens the POS routes only',
          'pos_device_not_allowed',
        );
      context(res).scope = { merchantId: device.merchant_id, livemode: device.livemode };
      context(res).apiKeyId = device.id;
      context(res).posDevice = { id: device.id, registerId: device.register_id };
      next();
      return;
    }
    const key = await access.apiKey(secret);
    // Never echoed, not even in part: a message is logged and shown, and header bytes that are not
    // ASCII come back garbled anyway (decision 0108).
    if (!key) {
      guard?.failed(clientAddress(req), secret);
      throw new AuthenticationError('Invalid API key provided');
    }
    guard?.succeeded(clientAddress(req), secret);
    context(res).scope = key.scope;
    context(res).apiKeyId = key.id;
    next();
  };
}
