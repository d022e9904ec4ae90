import { readFileSync } from 'node:fs';
import { Router, type Response } from 'express';
import { html, type SafeHtml } from '../../html/html';
import type { Locale } from '../../domain/locale';
import { sectionsNav, sendPage, type NavGroup } from '../layout';
import { renderMarkdown } from './markdown';
import { GUIDES, REFERENCE_INTRO, guideHref, loadGuides, type Guide } from './guides';
import { eventsPage, operationsOf, tagIndex, tagPage, tagSlug, type OpenApiDocument } from './reference';

export interface DocsDeps {
  /** The live OpenAPI document the API serves at /v1/openapi.json (built by api/app.ts). */
  openApiDocument: () => unknown;
}

/**
 * The documentation a developer reads (decision 0250): `/docs`, the API reference made from the
 * live OpenAPI document, `/docs/events`, `/docs/api/<tag>`, and the guides at `/docs/guides/<name>`
 * (Icelandic at `/docs/guides/<name>/is`). Server-rendered HTML with the dashboard's stylesheet,
 * no script: the CSP is the one every page has.
 */
export function docsPages(deps: DocsDeps): Router {
  const router = Router();
  const guides = loadGuides();
  const intro = renderMarkdown(readFileSync(REFERENCE_INTRO, 'utf8'));
  // Built once, on the first request, when every router has declared its operations (api/app.ts).
  const doc = () => deps.openApiDocument() as OpenApiDocument;

  const nav = (here: string, lang: Locale = 'en'): SafeHtml => {
    const d = doc();
    const current = (href: string) => (href === here ? ('page' as const) : undefined);
    const groups: NavGroup[] = [
      {
        label: 'Reference',
        links: [
          { href: '/docs', label: 'Overview', current: current('/docs') },
          { href: '/docs/events', label: 'Webhook events', current: current('/docs/events') },
          ...d['x-tagGroups']
            .flatMap((g) => g.tags)
            .filter((t) => operationsOf(d, t).length > 0)
            .map((t) => ({
              href: `/docs/api/${tagSlug(t)}`,
              label: t,
              current: current(`/docs/api/${tagSlug(t)}`),
            })),
        ],
      },
      {
        label: lang === 'is' ? 'Leiðbeiningar' : 'Guides',
        links: guides
          .filter((g) => g.lang === lang || !guides.some((o) => o.name === g.name && o.lang === lang))
          .map((g) => ({ href: g.href, label: g.title, current: current(g.href) })),
      },
    ];
    return sectionsNav(groups, {
      label: lang === 'is' ? 'Skjölun' : 'Documentation',
      menu: lang === 'is' ? 'Valmynd' : 'Menu',
      close: lang === 'is' ? 'Loka valmynd' : 'Close menu',
    });
  };

  const page = (res: Response, title: string, body: SafeHtml, here: string, lang: Locale = 'en') =>
    sendPage(res, body, { title, nav: nav(here, lang), lang });

  router.get('/docs', (_req, res) => {
    const d = doc();
    page(
      res,
      `${d.info.title} reference`,
      html`<p>
          ${d.info.description ?? ''} Version ${d.info.version}; the machine-readable document is
          <a href="/v1/openapi.json">/v1/openapi.json</a>.
        </p>
        ${intro.html}
        <h2 id="operations">Operations</h2>
        ${tagIndex(d)}
        <h2 id="events">Webhook events</h2>
        <p><a href="/docs/events">Every event type</a>, with an example of its <code>data</code>.</p>
        <h2 id="guides">Guides</h2>
        ${guideList(guides)}`,
      '/docs',
    );
  });

  router.get('/docs/events', (_req, res) => page(res, 'Webhook events', eventsPage(doc()), '/docs/events'));

  router.get('/docs/api/:tag', (req, res, next) => {
    const d = doc();
    const tag = d.tags.find((t) => tagSlug(t.name) === req.params.tag && operationsOf(d, t.name).length > 0);
    if (!tag) return next();
    page(res, tag.name, tagPage(d, tag.name), `/docs/api/${req.params.tag}`);
  });

  router.get('/docs/guides', (_req, res) => page(res, 'Guides', guideList(guides), '/docs/guides'));

  const guidePage = (guide: Guide, res: Response) => {
    const other = guides.find((g) => g.name === guide.name && g.lang !== guide.lang);
    const body = html`${
      other
        ? html`<p class="switches">
            <a href="${other.href}" lang="${other.lang}" hreflang="${other.lang}"
              >${other.lang === 'is' ? 'Á íslensku' : 'In English'}</a
            >
          </p>`
        : ''
    }
    ${guide.html}`;
    sendPage(res, body, { title: guide.title, nav: nav(guide.href, guide.lang), lang: guide.lang });
  };
  for (const guide of guides) router.get(guide.href, (_req, res) => guidePage(guide, res));
  return router;
}

function guideList(guides: readonly Guide[]): SafeHtml {
  return html`<ul>
    ${GUIDES.map(({ name }) => {
      const en = guides.find((g) => g.name === name && g.lang === 'en')!;
      const is = guides.find((g) => g.name === name && g.lang === 'is');
      return html`<li>
        <a href="${guideHref(name, 'en')}">${en.title}</a>${
          is ? html` · <a href="${is.href}" lang="is" hreflang="is">${is.title}</a>` : ''
        }
      </li>`;
    })}
  </ul>`;
}
