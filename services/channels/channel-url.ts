import { InvalidRequestError } from '../../domain/errors';
import { nonPublicReason } from '../../engine/url-safety';

const PARAM = 'config.url';

/**
 * Live channels need https and a host on the public internet; test channels may use plain http and
 * localhost, for local development (spec §6.5). The address is checked again at delivery time.
 */
export async function assertChannelUrl(raw: string, livemode: boolean): Promise<void> {
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
  if (!livemode) return;
  if (url.protocol !== 'https:') {
    throw new InvalidRequestError('A live channel needs an https URL', {
      code: 'url_insecure',
      param: PARAM,
    });
  }
  const reason = await nonPublicReason(url.hostname);
  if (reason) {
    throw new InvalidRequestError(`A live channel needs a publicly reachable host: ${reason}`, {
      code: 'url_not_public',
      param: PARAM,
    });
  }
}
