import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import ipaddr from 'ipaddr.js';
import { RateLimitError } from '../../domain/errors';
import { policyOf, type RateLimit } from '../../domain/rate-limit';
import type { RateLimiter, RateLimitState } from '../../services/rate-limits';
import type { Logger } from '../../stack/logger';
import { scopeOf } from '../../stack/request-context';

/** Every limit the API applies (decision 0110); null: that limit is off. */
export interface RateLimits {
  /** Per API key, by its mode. */
  apiLive: RateLimit | null;
  apiTest: RateLimit | null;
  /** Per client address. */
  deviceAuthorize: RateLimit | null;
  deviceToken: RateLimit | null;
  signIn: RateLimit | null;
  /** Merchant sign-ups (decision 0115); unset: off. */
  signUp?: RateLimit | null;
  pages: RateLimit | null;
  /**
   * Failed authentications per client address before keys not seen there in the last hour are
   * refused unread (decision 0226); unset: off.
   */
  apiKeyFailures?: RateLimit | null;
}

/**
 * The RateLimit fields of draft-ietf-httpapi-ratelimit-headers (its separate-fields form, as most
 * clients read them), and Retry-After on a 429.
 */
function answer(res: Response, state: RateLimitState, who: string): void {
  res.setHeader('RateLimit-Limit', String(state.limit.max));
  res.setHeader('RateLimit-Remaining', String(state.remaining));
  res.setHeader('RateLimit-Reset', String(state.resetSeconds));
  res.setHeader('RateLimit-Policy', policyOf(state.limit));
  if (state.allowed) return;
  res.setHeader('Retry-After', String(state.resetSeconds));
  const window = state.limit.windowMs / 1000;
  throw new RateLimitError(
    `Too many requests: ${state.limit.max} per ${window} second${window === 1 ? '' : 's'} for ${who}. Retry after ${state.resetSeconds} second${state.resetSeconds === 1 ? '' : 's'}.`,
  );
}

/**
 * Counts a request in `bucket` and answers 429 over the limit. The count lives in PostgreSQL; when
 * it cannot be reached the request goes through (logged): the limiter protects the service, it is
 * not a reason to refuse one.
 */
async function limit(
  limiter: RateLimiter,
  log: Logger,
  bucket: string,
  rule: RateLimit,
  res: Response,
  who: string,
): Promise<void> {
  let state: RateLimitState;
  try {
    state = await limiter.take(bucket, rule);
  } catch (err) {
    log.warn({ err }, 'rate limiter unavailable; request let through');
    return;
  }
  answer(res, state, who);
}

/** The key as presented (Bearer or x-api-key); the authentication before this has accepted it. */
function presentedKey(req: Request): string {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '')?.[1];
  return bearer ?? req.get('x-api-key')?.trim() ?? '';
}

/** Per API key, after authentication: a key is counted by its hash, never stored as written. */
export function limitPerApiKey(limiter: RateLimiter, limits: RateLimits, log: Logger): RequestHandler {
  return async (req, res, next) => {
    const { livemode } = scopeOf(res);
    const rule = livemode ? limits.apiLive : limits.apiTest;
    if (!rule) return next();
    const bucket = `key:${createHash('sha256').update(presentedKey(req)).digest('hex').slice(0, 32)}`;
    await limit(limiter, log, bucket, rule, res, `this API key in ${livemode ? 'live' : 'test'} mode`);
    next();
  };
}

/**
 * The client's address as the limit counts it. `req.ip` is the peer, or, behind a trusted proxy
 * (`trust proxy`), the address that proxy forwarded. An IPv6 client is counted by its /64, the
 * block one subscriber usually holds.
 */
export function clientAddress(req: Request): string {
  const ip = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  if (!ipaddr.isValid(ip)) return ip;
  const addr = ipaddr.process(ip);
  if (addr.kind() === 'ipv4') return addr.toString();
  return `${(addr as ipaddr.IPv6).toNormalizedString().split(':').slice(0, 4).join(':')}::/64`;
}

interface AddressRule {
  name: string;
  limit: RateLimit | null;
  applies: (req: Request) => boolean;
}

const PAGE_PATH = /^\/(checkout|s|l|portal|dashboard|device|pos)(\/|$)|^\/v1\/skil\.js$/;

/**
 * Per client address on the routes that need no key: device authorization and its token poll,
 * dashboard sign-in and the pages (hosted checkout, payment links, portal, dashboard, device
 * page, the till app at /pos, the browser SDK). A request counts against the first rule that applies, only.
 */
export function limitPerAddress(limiter: RateLimiter, limits: RateLimits, log: Logger): RequestHandler {
  const rules: AddressRule[] = [
    {
      name: 'device-authorize',
      limit: limits.deviceAuthorize,
      applies: (req) => req.method === 'POST' && req.path === '/v1/device/authorize',
    },
    {
      name: 'device-token',
      limit: limits.deviceToken,
      applies: (req) => req.path === '/v1/device/token',
    },
    {
      name: 'sign-in',
      limit: limits.signIn,
      // The second-factor step counts with the password step (decision 0220).
      applies: (req) => req.method === 'POST' && /^\/dashboard\/sign-in(\/code|\/passkey)?$/.test(req.path),
    },
    {
      name: 'sign-up',
      limit: limits.signUp ?? null,
      applies: (req) => req.method === 'POST' && req.path === '/dashboard/sign-up',
    },
    { name: 'pages', limit: limits.pages, applies: (req) => PAGE_PATH.test(req.path) },
  ];
  return async (req, res, next) => {
    const rule = rules.find((r) => r.applies(req));
    if (!rule?.limit) return next();
    await limit(
      limiter,
      log,
      `addr:${rule.name}:${clientAddress(req)}`,
      rule.limit,
      res,
      'this client address',
    );
    next();
  };
}
