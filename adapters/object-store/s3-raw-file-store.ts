import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { PassThrough, type Readable } from 'node:stream';
import type { RawFileStore } from './raw-file-store';
import { EMPTY_SHA256, signV4, type SigV4Credentials } from './sigv4';

export interface S3StoreConfig extends SigV4Credentials {
  /** The store's endpoint, e.g. `https://s3.eu-west-1.amazonaws.com` or a MinIO / Ceph / R2 address. */
  endpoint: string;
  bucket: string;
  region: string;
  /** Prepended to every key, e.g. `raw-bank-files/`. */
  prefix?: string;
}

interface Answer {
  status: number;
  body: Readable;
}

/**
 * The raw bank file store in an S3-compatible object store (decision 0179): one object per file,
 * keyed by its sha256, addressed path-style (`{endpoint}/{bucket}/{key}`, which MinIO, Ceph and
 * AWS all serve). The payload hash SigV4 signs is the file's sha256, which the caller already
 * knows, so the store checks the bytes it receives against it. Content addressing makes a second
 * put of the same bytes harmless; a HEAD first saves the upload.
 */
export function createS3RawFileStore(config: S3StoreConfig): RawFileStore {
  const base = new URL(config.endpoint.replace(/\/+$/, '') + '/');
  const lib = base.protocol === 'https:' ? https : http;
  const agent = new lib.Agent({ keepAlive: true, maxSockets: 8 });
  const urlOf = (sha256: string) =>
    new URL(`${encodeURIComponent(config.bucket)}/${config.prefix ?? ''}${sha256}`, base);

  function send(
    method: 'GET' | 'HEAD' | 'PUT',
    url: URL,
    payloadSha256: string,
    body?: { path: string; size: number },
  ): Promise<Answer> {
    const headers = signV4(
      {
        method,
        url,
        payloadSha256,
        region: config.region,
        ...(body && { headers: { 'content-length': String(body.size) } }),
      },
      config,
    );
    return new Promise((resolve, reject) => {
      const req = lib.request(url, { method, agent, headers, timeout: 60_000 }, (res) => {
        const out = new PassThrough();
        res.on('error', (err) => out.destroy(err));
        res.pipe(out);
        resolve({ status: res.statusCode ?? 0, body: out });
      });
      req.on('timeout', () => req.destroy(new Error(`object store: ${method} timed out`)));
      req.on('error', reject);
      if (body) createReadStream(body.path).on('error', reject).pipe(req);
      else req.end();
    });
  }

  async function failure(what: string, answer: Answer): Promise<Error> {
    let text = '';
    for await (const c of answer.body) text += (c as Buffer).toString('utf8');
    const code = /<Code>([^<]+)<\/Code>/.exec(text)?.[1];
    return new Error(`object store: ${what} answered ${answer.status}${code ? ` ${code}` : ''}`);
  }

  return {
    async put(sha256, fromPath) {
      const url = urlOf(sha256);
      const head = await send('HEAD', url, EMPTY_SHA256);
      head.body.resume();
      if (head.status === 200) return;
      if (head.status !== 404) throw await failure(`HEAD of raw bank file ${sha256}`, head);
      const { size } = await stat(fromPath);
      const put = await send('PUT', url, sha256, { path: fromPath, size });
      if (put.status !== 200) throw await failure(`PUT of raw bank file ${sha256}`, put);
      put.body.resume();
    },

    open(sha256) {
      const out = new PassThrough();
      send('GET', urlOf(sha256), EMPTY_SHA256).then(
        async (answer) => {
          if (answer.status !== 200) {
            const err = await failure(`GET of raw bank file ${sha256}`, answer);
            // A missing key is the store's answer; a missing bucket is a configuration error.
            const missing = answer.status === 404 && !/NoSuchBucket/.test(err.message);
            out.destroy(missing ? new Error(`raw bank file ${sha256} is not in the store`) : err);
          } else {
            answer.body.on('error', (err) => out.destroy(err));
            answer.body.pipe(out);
          }
        },
        (err: unknown) => out.destroy(err as Error),
      );
      return out;
    },
  };
}
