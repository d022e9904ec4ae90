import { createHash, createHmac } from 'node:crypto';

/** AWS Signature Version 4 (header form), as S3 and S3-compatible stores require on every request. */

export interface SigV4Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  /** Temporary credentials' token (`x-amz-security-token`), if any. */
  sessionToken?: string;
}

export interface SigV4Request {
  method: string;
  url: URL;
  /** Headers to sign besides host, x-amz-date and x-amz-content-sha256 (lower-case names). */
  headers?: Record<string, string>;
  /** Hex sha256 of the body (of nothing for GET and HEAD). */
  payloadSha256: string;
  region: string;
  service?: string;
  now?: Date;
}

export const EMPTY_SHA256 = createHash('sha256').update('').digest('hex');

const hmac = (key: Buffer | string, text: string) => createHmac('sha256', key).update(text, 'utf8').digest();
const hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** RFC 3986 encoding of one path segment or query part, as SigV4 wants it. */
function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** The headers of a signed request: the given ones plus host, date, payload hash and Authorization. */
export function signV4(req: SigV4Request, creds: SigV4Credentials): Record<string, string> {
  const amzDate = (req.now ?? new Date())
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const date = amzDate.slice(0, 8);
  const service = req.service ?? 's3';
  const headers: Record<string, string> = {
    ...req.headers,
    host: req.url.host,
    'x-amz-date': amzDate,
    'x-amz-content-sha256': req.payloadSha256,
    ...(creds.sessionToken !== undefined && { 'x-amz-security-token': creds.sessionToken }),
  };
  const names = Object.keys(headers)
    .map((n) => n.toLowerCase())
    .sort();
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const canonicalHeaders = names.map((n) => `${n}:${lower[n]!.trim().replace(/\s+/g, ' ')}\n`).join('');
  const signedHeaders = names.join(';');
  // S3 paths are encoded once, segment by segment (the URL's pathname is already encoded).
  const path = req.url.pathname
    .split('/')
    .map((s) => uriEncode(decodeURIComponent(s)))
    .join('/');
  const query = [...req.url.searchParams.entries()]
    .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
    .sort(([a, av], [b, bv]) => (a === b ? av.localeCompare(bv) : a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalRequest = [req.method, path, query, canonicalHeaders, signedHeaders, req.payloadSha256].join(
    '\n',
  );
  const scope = `${date}/${req.region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, hex(canonicalRequest)].join('\n');
  const key = hmac(
    hmac(hmac(hmac(`AWS4${creds.secretAccessKey}`, date), req.region), service),
    'aws4_request',
  );
  const signature = createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
  return {
    ...headers,
    authorization: `AWS4-HMAC-SHA256 Credential=${creds.accessKeyId}/${scope},SignedHeaders=${signedHeaders},Signature=${signature}`,
  };
}
