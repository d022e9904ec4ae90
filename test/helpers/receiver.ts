import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  at: number;
  headers: http.IncomingHttpHeaders;
  rawBody: Buffer;
  body: any;
}

/**
 * A local webhook endpoint that records every request and answers with `status()`. With `retain`
 * false it only counts them: a benchmark sending millions would otherwise hold them all, and its
 * garbage collector's work would grow with the run.
 */
export async function startReceiver(
  status: (n: number, headers: http.IncomingHttpHeaders) => number = () => 200,
  { retain = true }: { retain?: boolean } = {},
) {
  const received: Received[] = [];
  let answered = 0;
  const waiters: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      answered += 1;
      if (retain) {
        const rawBody = Buffer.concat(chunks);
        let body: unknown;
        try {
          body = JSON.parse(rawBody.toString('utf8'));
        } catch {
          body = undefined;
        }
        received.push({ at: Date.now(), headers: req.headers, rawBody, body });
      }
      res.statusCode = status(answered, req.headers);
      res.end('ok');
      waiters.splice(0).forEach((w) => w());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    received,
    /** Requests answered so far (retained or not). */
    count: () => answered,
    /** Resolves once `count` requests have arrived, or rejects after `timeoutMs`. */
    async waitFor(count: number, timeoutMs = 10_000): Promise<Received[]> {
      const deadline = Date.now() + timeoutMs;
      while (answered < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`expected ${count} requests, got ${answered}`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
      }
      return received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
