import { InvalidRequestError } from '../../domain/errors';
import { hostRefusal } from '../../adapters/http/url-safety';

const PARAM = 'config.url';

/**
 * Live channels need https and a host on the public internet; test channels may use plain http and,
 * where the deployment allows it, reach loopback for local development (spec §6.5, decisions 0005,
 * 0225). Neither reaches private, link-local, CGNAT, unique-local or unspecified addresses unless the
 * operator allowed the range (decision 0111). The address is checked again at every connection.
 */
export async function assertChannelUrl(
  raw: string,
  livemode: boolean,
  reach: { allowPrivateRanges?: readonly string[] | undefined; allowLoopback?: boolean | undefined } = {},
): Promise<void> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidRequestError('config.url must be an absolute URL', {
      code: 'url_invalid',
      param: PARAM,
    });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new InvalidRequestError('config.url must be an http or https URL', {
      code: 'url_invalid',
      param: PARAM,
    });
  }
  if (url.username || url.password) {
    throw new InvalidRequestError(
      'config.url must not carry credentials; authenticate deliveries by their signature',
      {
        code: 'url_invalid',
        param: PARAM,
      },
    );
  }
  if (livemode && url.protocol !== 'https:') {
    throw new InvalidRequestError('A live channel needs an https URL', {
      code: 'url_insecure',
      param: PARAM,
    });
  }
  const reason = await hostRefusal(url.hostname, {
    livemode,
    allowPrivateRanges: reach.allowPrivateRanges ?? [],
    allowLoopback: reach.allowLoopback,
  });
  if (reason) {
    const needs = livemode
      ? 'A live channel needs a public host'
      : reach.allowLoopback
        ? 'A test channel needs a public or loopback host'
        : 'A test channel needs a public host';
    throw new InvalidRequestError(`${needs}: ${reason}`, {
      code: 'url_not_public',
      param: PARAM,
    });
  }
}
