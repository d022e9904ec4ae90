import type { RequestHandler } from 'express';
import type { AccessService } from '../../services/access';
import { AuthenticationError, PermissionError } from '../../domain/errors';
import { context } from '../../stack/request-context';

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
    // A paired till's credential opens its register's POS routes and nothing else (decision 0126).
    if (posDevices && secret.startsWith('skpos_')) {
      const device = await posDevices.device(secret);
      if (!device)
        throw new AuthenticationError('Invalid or revoked device credential', 'invalid_device_credential');
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
    if (!key) throw new AuthenticationError('Invalid API key provided');
    context(res).scope = key.scope;
    context(res).apiKeyId = key.id;
    next();
  };
}
