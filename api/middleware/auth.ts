import type { RequestHandler } from 'express';
import type { AccessService } from '../../services/access';
import { AuthenticationError } from '../../domain/errors';
import { context } from '../../stack/request-context';

/** Masks a key for error messages: the prefix and last four characters only. */
function mask(secret: string): string {
  const prefix = /^sk_(test|live)_/.exec(secret)?.[0] ?? '';
  return `${prefix}…${secret.slice(-4)}`;
}

/**
 * Authenticates `Authorization: Bearer <key>` or `x-api-key: <key>` (spec §5) and sets the request
 * scope: the key alone selects merchant and environment.
 */
export function authenticate(access: Pick<AccessService, 'apiKey'>): RequestHandler {
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
    const key = await access.apiKey(secret);
    if (!key) throw new AuthenticationError(`Invalid API key provided: ${mask(secret)}`);
    context(res).scope = key.scope;
    context(res).apiKeyId = key.id;
    next();
  };
}
