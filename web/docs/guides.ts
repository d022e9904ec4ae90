import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Locale } from '../../domain/locale';
import { renderMarkdown, type RenderedMarkdown } from './markdown';

/**
 * The guides: Markdown in docs/guides/ (decision 0251), `<name>.md` in English and, for the
 * merchant-facing ones, `<name>.is.md` in Icelandic. This list is their order in the navigation;
 * a guide file not in it is not served, and a name here without its file fails at start.
 */
export const GUIDES: readonly { name: string; icelandic?: true }[] = [
  { name: 'quick-start', icelandic: true },
  { name: 'checkout-and-payment-links', icelandic: true },
  { name: 'fulfilment-by-webhooks' },
  { name: 'subscriptions' },
  { name: 'claims', icelandic: true },
  { name: 'testing' },
  { name: 'going-live', icelandic: true },
  { name: 'settlement-and-payouts' },
  { name: 'point-of-sale', icelandic: true },
  { name: 'sdk' },
  { name: 'cli' },
  { name: 'mcp' },
  { name: 'api-overview' },
  { name: 'self-hosting' },
  { name: 'developing' },
  { name: 'versioning' },
];

export const GUIDES_DIR = path.join(__dirname, '..', '..', 'docs', 'guides');
export const REFERENCE_INTRO = path.join(__dirname, '..', '..', 'docs', 'reference.md');

export interface Guide extends RenderedMarkdown {
  name: string;
  lang: Locale;
  href: string;
}

export function guideHref(name: string, lang: Locale): string {
  return lang === 'is' ? `/docs/guides/${name}/is` : `/docs/guides/${name}`;
}

/** Every guide, read and rendered once (they change with a release, not at run time). */
export function loadGuides(dir = GUIDES_DIR): Guide[] {
  return GUIDES.flatMap(({ name, icelandic }) =>
    (icelandic ? (['en', 'is'] as const) : (['en'] as const)).map((lang) => {
      const file = path.join(dir, lang === 'is' ? `${name}.is.md` : `${name}.md`);
      if (!existsSync(file)) throw new Error(`The guide ${file} is missing`);
      const rendered = renderMarkdown(readFileSync(file, 'utf8'));
      return { ...rendered, name, lang, href: guideHref(name, lang) };
    }),
  );
}
