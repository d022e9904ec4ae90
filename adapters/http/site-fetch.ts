import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { addressRefusal, guardedLookup, type AddressPolicy } from './url-safety';

/** One document fetched from a merchant's website. */
export interface FetchedDocument {
  /** Where the document was found, after redirects. */
  url: string;
  contentType: string;
  body: string;
}

export class SiteFetchError extends Error {}

/**
 * GETs a page of a merchant's own website (the theme scan, decision 0125) with the webhooks'
 * address safety (decision 0111): every connection's address is vetted, IP literals too, and a
 * redirect is followed only to another vetted http(s) URL, at most `maxRedirects` times. The body is
 * read up to `maxBytes` and cut there; the whole fetch, redirects included, ends at `timeoutMs`.
 */
export async function fetchSiteDocument(
  raw: string,
  opts: { policy: AddressPolicy; maxBytes: number; timeoutMs: number; maxRedirects?: number; accept: string },
): Promise<FetchedDocument> {
  const signal = AbortSignal.timeout(opts.timeoutMs);
  let url = new URL(raw);
  for (let hop = 0; ; hop++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new SiteFetchError(`${url.protocol} addresses are not fetched`);
    if (url.username || url.password) throw new SiteFetchError('addresses with credentials are not fetched');
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0) {
      const refusal = addressRefusal(host, opts.policy);
      if (refusal) throw new SiteFetchError(refusal);
    }
    const res = await get(url, opts, signal);
    if (res.status >= 300 && res.status < 400 && res.location) {
      if (hop >= (opts.maxRedirects ?? 3)) throw new SiteFetchError('too many redirects');
      url = new URL(res.location, url);
      continue;
    }
    if (res.status < 200 || res.status >= 300)
      throw new SiteFetchError(`${url.href} answered HTTP ${res.status}`);
    return { url: url.href, contentType: res.contentType, body: res.body };
  }
}

function get(
  url: URL,
  opts: { policy: AddressPolicy; maxBytes: number; accept: string },
  signal: AbortSignal,
): Promise<{ status: number; location: string | null; contentType: string; body: string }> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: 'GET',
        headers: { accept: opts.accept, 'user-agent': 'Skil-ThemeScan/1.0' },
        lookup: guardedLookup(opts.policy),
        signal,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let done = false;
        const finish = () => {
          if (done) return;
          done = true;
          resolve({
            status: res.statusCode ?? 0,
            location: typeof res.headers.location === 'string' ? res.headers.location : null,
            contentType: String(res.headers['content-type'] ?? ''),
            body: Buffer.concat(chunks).toString('utf8'),
          });
        };
        res.on('data', (chunk: Buffer) => {
          const room = opts.maxBytes - size;
          if (room > 0) chunks.push(chunk.subarray(0, room));
          size += chunk.length;
          if (size >= opts.maxBytes) {
            finish();
            res.destroy();
          }
        });
        res.on('end', finish);
        res.on('error', (err) => (done ? undefined : reject(new SiteFetchError(err.message))));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) =>
      reject(
        new SiteFetchError(
          err.name === 'AbortError' || err.name === 'TimeoutError'
            ? 'the site took too long to answer'
            : err.message,
        ),
      ),
    );
    req.end();
  });
}
