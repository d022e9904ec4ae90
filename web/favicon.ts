import type { RequestHandler } from 'express';
import { html, type SafeHtml } from '../html/html';
import { FAVICON_ICO_BASE64 } from './favicon-ico';
import { FAVICON_SVG } from './favicon-svg';

/**
 * Skil's icon for every page (decision 0203): /favicon.svg for browsers that take an SVG icon, and
 * /favicon.ico for those that ask for it whatever the page says. Cached a day: it is the same for
 * every merchant and every page.
 */

const ICO = Buffer.from(FAVICON_ICO_BASE64, 'base64');

export const faviconRoutes: RequestHandler = (req, res, next) => {
  if (req.method !== 'GET' && req.method !== 'HEAD') return next();
  if (req.path !== '/favicon.svg' && req.path !== '/favicon.ico') return next();
  res.setHeader('Cache-Control', 'public, max-age=86400');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (req.path === '/favicon.svg') res.type('image/svg+xml').send(FAVICON_SVG);
  else res.type('image/x-icon').send(ICO);
};

/**
 * The `<link rel="icon">` tags of a page's head: Skil's icon, or the merchant's logo on the pages
 * its theme styles. The logo is an https URL the theme validated; the pages' CSP admits https
 * images (`img-src 'self' https: data:`).
 */
export function faviconLinks(logoUrl?: string | null): SafeHtml {
  if (logoUrl) return html`<link rel="icon" href="${logoUrl}" />`;
  // The ICO first with one size, so that browsers that can take the SVG prefer it.
  return html`<link rel="icon" href="/favicon.ico" sizes="32x32" />
    <link rel="icon" href="/favicon.svg" type="image/svg+xml" />`;
}
