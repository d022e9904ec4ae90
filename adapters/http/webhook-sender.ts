import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { addressRefusal, guardedLookup, isPublicAddress, type AddressPolicy } from './url-safety';

export interface PostResult {
  /** HTTP status, or null when no response arrived. */
  status: number | null;
  latencyMs: number;
  /** Why the attempt failed, when it did; null on a 2xx. */
  error: string | null;
}

/**
 * How much of a receiver's reply an attempt keeps (decision 0111); the rest is never read. A reply
 * from an address that is not on the public internet (loopback, private, link-local, a range the
 * operator opened) is never kept at all: the attempt records its status only, so a channel cannot be
 * used to read what services beside Skil answer (decision 0225).
 */
export const REPLY_PREFIX_BYTES = 1024;
const LOCATION_PREFIX_CHARS = 256;

// Connections are kept alive per host: a channel receives its deliveries over a few sockets instead
// of one handshake each. Test and live deliveries have pools of their own, so a socket opened for
// one mode never carries the other's request. Addresses are vetted when a socket is opened (the
// guarded lookup), so a reused socket was vetted too.
const pool = () => ({
  'http:': new http.Agent({ keepAlive: true, maxSockets: 16 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 16 }),
});
const agents = { test: pool(), live: pool() };

// A channel's URL and, for an IP literal, the policy's verdict on it are worked out once, not per
// POST: a busy channel sends hundreds a second to the same URL. Both maps are small and bounded.
const MEMO_LIMIT = 1_000;
const parsedUrls = new Map<string, URL>();
const literalVerdicts = new Map<string, string | null>();

function remember<V>(memo: Map<string, V>, key: string, make: () => V): V {
  if (memo.has(key)) return memo.get(key)!;
  if (memo.size >= MEMO_LIMIT) memo.clear();
  const value = make();
  memo.set(key, value);
  return value;
}

/** Text that PostgreSQL can store and a person can read: no NUL, no other control characters. */
function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '\ufffd');
}

/**
 * POSTs a webhook body once. Success is a 2xx and nothing else; redirects are not followed (Node's
 * http client never follows them); the whole attempt, connect to last byte, is cut at `timeoutMs`.
 * Only the first REPLY_PREFIX_BYTES of the reply are read: a longer one is cut off there.
 * Never throws for a network or HTTP failure: those are outcomes to record, not faults to retry.
 */
export async function postWebhook(input: {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  livemode: boolean;
  /** CIDR ranges the operator allows beyond the mode's own rule (WEBHOOK_ALLOW_PRIVATE_RANGES). */
  allowPrivateRanges?: readonly string[];
  /** Whether a test delivery may reach loopback (WEBHOOK_ALLOW_LOOPBACK; decision 0225); unset: no. */
  allowLoopback?: boolean;
}): Promise<PostResult> {
  const started = performance.now();
  const url = remember(parsedUrls, input.url, () => new URL(input.url));
  const policy: AddressPolicy = {
    livemode: input.livemode,
    allowPrivateRanges: input.allowPrivateRanges ?? [],
    allowLoopback: input.allowLoopback ?? false,
  };
  const latencyMs = () => Math.round(performance.now() - started);
  // An IP literal is connected to without a lookup, so it is checked here.
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) {
    const refusal = remember(
      literalVerdicts,
      `${policy.livemode}|${policy.allowLoopback}|${policy.allowPrivateRanges.join(',')}|${host}`,
      () => addressRefusal(host, policy),
    );
    if (refusal) return { status: null, latencyMs: latencyMs(), error: refusal };
  }
  const secure = url.protocol === 'https:';
  const client = secure ? https : http;
  return new Promise<PostResult>((resolve) => {
    let settled = false;
    const done = (status: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(limit);
      resolve({ status, error: error === null ? null : printable(error), latencyMs: latencyMs() });
    };
    // One timer for the whole attempt; an AbortSignal per request cost three times as much.
    const limit = setTimeout(() => {
      done(null, `timed out after ${input.timeoutMs} ms`);
      req.destroy();
    }, input.timeoutMs);
    const req = client.request(
      url,
      {
        method: 'POST',
        headers: {
          ...input.headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(input.body),
          'user-agent': 'Skil-Webhooks/1.0',
        },
        lookup: guardedLookup(policy),
        agent: agents[input.livemode ? 'live' : 'test'][secure ? 'https:' : 'http:'],
      },
      (res) => {
        const status = res.statusCode ?? 0;
        // The address the socket is connected to, not the one the URL names: a name re-pointed
        // after the check is judged by where the request really went.
        const readBack = isPublicAddress(res.socket?.remoteAddress ?? '');
        const kept: Buffer[] = [];
        let size = 0;
        const finish = () => {
          if (status >= 200 && status < 300) return done(status, null);
          const to = res.headers.location;
          const location = !to
            ? ''
            : readBack
              ? ` (redirect to ${to.slice(0, LOCATION_PREFIX_CHARS)}${to.length > LOCATION_PREFIX_CHARS ? '…' : ''} not followed)`
              : ' (redirect not followed)';
          const sample = Buffer.concat(kept).toString('utf8');
          done(status, `HTTP ${status}${location}${readBack ? `: ${sample}` : ''}`.trim().replace(/:$/, ''));
        };
        res.on('data', (chunk: Buffer) => {
          const room = REPLY_PREFIX_BYTES - size;
          // Up to the prefix is read either way (a short reply leaves the socket reusable); it is
          // kept only from a public address.
          if (room > 0 && readBack) kept.push(chunk.subarray(0, room));
          size += Math.min(Math.max(room, 0), chunk.length);
          // More than the prefix: stop reading. The socket is dropped rather than drained, so a
          // receiver that streams without end costs one prefix, not the attempt's whole time limit.
          if (chunk.length > room) {
            finish();
            res.destroy();
          }
        });
        res.on('end', finish);
        res.on('error', (err) => done(status, `response aborted: ${err.message}`));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => done(null, err.message));
    req.end(input.body);
  });
}
