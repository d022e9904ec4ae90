import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Router } from 'express';

/**
 * The dashboard's stylesheet (web/dashboard.css, decision 0207), served from our own origin. Its
 * address carries a hash of its content, so a browser may keep it for a year and still never use
 * an old one.
 */
const CSS = readFileSync(path.join(__dirname, 'dashboard.css'), 'utf8');
const VERSION = createHash('sha256').update(CSS).digest('hex').slice(0, 12);

export const STYLESHEET_HREF = `/assets/dashboard.${VERSION}.css`;

export function stylesheetRoute(): Router {
  const router = Router();
  router.get(/^\/assets\/dashboard\.[0-9a-f]{12}\.css$/, (req, res) => {
    if (req.path !== STYLESHEET_HREF) return void res.status(404).type('text').send('Not found');
    res.type('text/css').setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.send(CSS);
  });
  return router;
}
