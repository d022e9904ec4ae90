import { randomBytes } from 'node:crypto';

/**
 * The security headers of every HTML page we serve (hosted checkout, customer portal, dashboard,
 * device page, the simulated bank's payer page): one set, written here once. Only the
 * Content-Security-Policy differs between pages, through the parameters of `ContentPolicy`.
 */

export interface ContentPolicy {
  /** The nonce that admits the page's own inline `<style>`; see `newNonce`. */
  nonce: string;
  /** Scripts from our own origin (the checkout's page script); no script otherwise. */
  scripts?: boolean;
  /** Google Fonts and https images, for pages a merchant's theme styles; off for the test bank. */
  themeAssets?: boolean;
  /** Origins other than our own that a form may post or redirect to (success URL, acquirer). */
  formTargets?: readonly string[];
  /** The one origin that may frame the page (embedded checkout); no framing when unset. */
  frameAncestor?: string | null;
}

/** A fresh nonce per response, so an injected `<style>` cannot guess it. */
export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

export function contentSecurityPolicy(policy: ContentPolicy): string {
  const fonts = policy.themeAssets ? ' https://fonts.googleapis.com' : '';
  const targets = [...new Set(policy.formTargets ?? [])].filter(Boolean);
  return [
    "default-src 'none'",
    ...(policy.scripts ? ["script-src 'self'"] : []),
    `style-src 'nonce-${policy.nonce}'${fonts}`,
    ...(policy.themeAssets ? ['font-src https://fonts.gstatic.com', "img-src 'self' https: data:"] : []),
    ["form-action 'self'", ...targets].join(' '),
    `frame-ancestors ${policy.frameAncestor ?? "'none'"}`,
    "base-uri 'none'",
  ].join('; ');
}

/** What a page response can set headers on (an Express or Node response). */
interface HeaderTarget {
  setHeader(name: string, value: string): unknown;
}

/**
 * Sets the page headers: the policy, no framing (unless the policy names a frame ancestor, where
 * `frame-ancestors` alone decides), no MIME sniffing, no referrer, and no caching of pages that
 * may show a customer's or an operator's data.
 */
export function setPageSecurityHeaders(res: HeaderTarget, policy: ContentPolicy): void {
  res.setHeader('Content-Security-Policy', contentSecurityPolicy(policy));
  if (!policy.frameAncestor) res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'no-store');
}
