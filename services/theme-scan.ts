import { Parser } from 'htmlparser2';
import type * as CssTree from 'css-tree';
import { fetchSiteDocument, SiteFetchError } from '../adapters/http/site-fetch';
import { FONT_FAMILY, HEX_COLOR, LOGO_URL, logoUrlProblem } from '../domain/theme';
import { InvalidRequestError } from '../domain/errors';

/** Bounds of one scan (decision 0125). */
export const SCAN_LIMITS = {
  pageBytes: 1024 * 1024,
  stylesheetBytes: 256 * 1024,
  stylesheets: 4,
  pageTimeoutMs: 5000,
  stylesheetTimeoutMs: 3000,
} as const;

/** What a scan proposes: the theme's values as the site declares them, none of it saved yet. */
export interface ThemeProposal {
  /** The page scanned, after redirects: what `source` names when the proposal is saved. */
  site: string;
  primary_color: string | null;
  background_color: string | null;
  font_family: string | null;
  heading_font_family: string | null;
  logo_url: string | null;
  /** What was found and where, for the merchant to judge the proposal by. */
  notes: string[];
}

interface PageFacts {
  themeColor: string | null;
  icons: { href: string; rel: string; size: number }[];
  stylesheets: string[];
  styles: string[];
}

/** The facts a page's markup declares: theme-color, icons, stylesheets and <style> blocks. */
function readHtml(body: string): PageFacts {
  const facts: PageFacts = { themeColor: null, icons: [], stylesheets: [], styles: [] };
  let inStyle = false;
  let style = '';
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === 'meta' && attrs.name?.toLowerCase() === 'theme-color' && attrs.content)
          facts.themeColor ??= attrs.content.trim();
        if (name === 'link' && attrs.href) {
          const rel = (attrs.rel ?? '').toLowerCase().split(/\s+/);
          if (rel.includes('stylesheet')) facts.stylesheets.push(attrs.href);
          const icon = rel.find((r) => r === 'icon' || r === 'apple-touch-icon' || r === 'mask-icon');
          if (icon) {
            const size = Math.max(
              0,
              ...(attrs.sizes ?? '').split(/\s+/).map((s) => Number(s.split('x')[0]) || 0),
            );
            facts.icons.push({ href: attrs.href, rel: icon, size });
          }
        }
        if (name === 'style') {
          inStyle = true;
          style = '';
        }
      },
      ontext(text) {
        if (inStyle) style += text;
      },
      onclosetag(name) {
        if (name === 'style' && inStyle) {
          inStyle = false;
          facts.styles.push(style);
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(body);
  parser.end();
  return facts;
}

/** A CSS colour as the theme stores it (#rgb, #rrggbb, #rrggbbaa), or null: hex and rgb() only. */
export function hexColor(value: string): string | null {
  const v = value
    .trim()
    .toLowerCase()
    .replace(/\s*!important$/, '');
  if (HEX_COLOR.test(v) && v.length !== 5) return v;
  const rgb = /^rgba?\(\s*(\d{1,3})[\s,]+(\d{1,3})[\s,]+(\d{1,3})\s*(?:[,/]\s*([\d.]+%?)\s*)?\)$/.exec(v);
  if (!rgb) return null;
  const parts = rgb.slice(1, 4).map(Number);
  if (parts.some((n) => n > 255)) return null;
  const hex = parts.map((n) => n.toString(16).padStart(2, '0')).join('');
  if (rgb[4] === undefined) return `#${hex}`;
  const alpha = rgb[4].endsWith('%') ? Number(rgb[4].slice(0, -1)) / 100 : Number(rgb[4]);
  if (!(alpha >= 0 && alpha <= 1)) return null;
  return alpha === 1
    ? `#${hex}`
    : `#${hex}${Math.round(alpha * 255)
        .toString(16)
        .padStart(2, '0')}`;
}

/** The first family of a font-family list, if the theme can hold it (one Google Fonts name). */
export function firstFamily(value: string): string | null {
  const first =
    value
      .split(',')[0]
      ?.trim()
      .replace(/^["']|["']$/g, '')
      .trim() ?? '';
  if (!first || first.length > 64 || !FONT_FAMILY.test(first)) return null;
  if (/^(serif|sans-serif|monospace|cursive|fantasy|system-ui|inherit|initial|unset)$/i.test(first))
    return null;
  return first;
}

interface CssFacts {
  /** Custom properties in the order declared: name → raw value (the last declaration wins). */
  custom: Map<string, string>;
  fontFaces: string[];
  /** font-family and background declared on a selector: `body`, `h1`… */
  bySelector: Map<string, Record<string, string>>;
}

function readCss(csstree: typeof CssTree, css: string, facts: CssFacts): void {
  let ast: CssTree.CssNode;
  try {
    ast = csstree.parse(css, { parseValue: false, parseRulePrelude: false, parseCustomProperty: false });
  } catch {
    return;
  }
  csstree.walk(ast, {
    visit: 'Declaration',
    enter(this: CssTree.WalkContext, node: CssTree.Declaration) {
      const value = csstree.generate(node.value).trim();
      const property = node.property.toLowerCase();
      if (this.atrule?.name.toLowerCase() === 'font-face') {
        if (property === 'font-family') {
          const family = firstFamily(value);
          if (family && !facts.fontFaces.includes(family)) facts.fontFaces.push(family);
        }
        return;
      }
      if (node.property.startsWith('--')) {
        facts.custom.set(node.property.toLowerCase(), value);
        return;
      }
      if (!this.rule || this.atrule) return;
      if (!['font-family', 'background', 'background-color', 'font'].includes(property)) return;
      const prelude = csstree.generate(this.rule.prelude);
      for (const selector of prelude.split(',').map((s) => s.trim().toLowerCase())) {
        const seen = facts.bySelector.get(selector) ?? {};
        seen[property] = value;
        facts.bySelector.set(selector, seen);
      }
    },
  });
}

/** A custom property's value, following one `var(--x)` reference. */
function resolved(custom: Map<string, string>, value: string): string {
  const ref = /^var\(\s*(--[A-Za-z0-9_-]+)\s*\)$/.exec(value.trim());
  return ref ? (custom.get(ref[1]!.toLowerCase()) ?? value) : value;
}

function colourFrom(custom: Map<string, string>, pattern: RegExp): { name: string; value: string } | null {
  for (const [name, raw] of custom) {
    if (!pattern.test(name)) continue;
    const value = hexColor(resolved(custom, raw));
    if (value) return { name, value };
  }
  return null;
}

function familyFrom(custom: Map<string, string>, pattern: RegExp): { name: string; value: string } | null {
  for (const [name, raw] of custom) {
    if (!pattern.test(name)) continue;
    const value = firstFamily(resolved(custom, raw));
    if (value) return { name, value };
  }
  return null;
}

/**
 * Scans a merchant's website for a checkout theme (spec §2.2, decision 0125): the page and up to
 * four of its stylesheets, fetched with the webhooks' address safety and bounded in size and time,
 * read with maintained parsers (htmlparser2, css-tree). Proposes, saves nothing.
 */
export async function scanWebsite(
  address: string,
  opts: { allowPrivateRanges: readonly string[] },
): Promise<ThemeProposal> {
  const param = 'website';
  let start: URL;
  try {
    start = new URL(/^https?:\/\//i.test(address.trim()) ? address.trim() : `https://${address.trim()}`);
  } catch {
    throw new InvalidRequestError('The website address is not a valid URL', { code: 'url_invalid', param });
  }
  if (start.href.length > 480)
    throw new InvalidRequestError('The website address is too long', { code: 'url_invalid', param });
  // A merchant's public site: public addresses only, as a live channel, unless the operator opened a range.
  const policy = { livemode: true, allowPrivateRanges: opts.allowPrivateRanges };
  let page;
  try {
    page = await fetchSiteDocument(start.href, {
      policy,
      maxBytes: SCAN_LIMITS.pageBytes,
      timeoutMs: SCAN_LIMITS.pageTimeoutMs,
      accept: 'text/html',
    });
  } catch (err) {
    if (err instanceof SiteFetchError)
      throw new InvalidRequestError(`The website could not be scanned: ${err.message}`, {
        code: 'website_unreachable',
        param,
      });
    throw err;
  }
  const notes: string[] = [];
  // css-tree and its grammar data load on the first scan, not with every API process.
  const csstree = await import('css-tree');
  const html = readHtml(page.body);
  const css: CssFacts = { custom: new Map(), fontFaces: [], bySelector: new Map() };
  for (const block of html.styles) readCss(csstree, block, css);
  const sheets = html.stylesheets.slice(0, SCAN_LIMITS.stylesheets);
  for (const href of sheets) {
    try {
      const sheet = await fetchSiteDocument(new URL(href, page.url).href, {
        policy,
        maxBytes: SCAN_LIMITS.stylesheetBytes,
        timeoutMs: SCAN_LIMITS.stylesheetTimeoutMs,
        accept: 'text/css',
      });
      readCss(csstree, sheet.body, css);
    } catch (err) {
      if (!(err instanceof SiteFetchError) && !(err instanceof TypeError)) throw err;
      notes.push(`Stylesheet ${href} could not be read: ${err.message}`);
    }
  }
  if (html.stylesheets.length > sheets.length)
    notes.push(`Only the first ${SCAN_LIMITS.stylesheets} stylesheets were read.`);

  // Colours: a brand custom property first, else the theme-color meta; the background from a
  // background custom property, else what body or html declares.
  let primary: string | null = null;
  const brand = colourFrom(css.custom, /^--.*(primary|brand|accent)/);
  if (brand) {
    primary = brand.value;
    notes.push(`Primary colour ${brand.value} from the CSS custom property ${brand.name}.`);
  } else if (html.themeColor && hexColor(html.themeColor)) {
    primary = hexColor(html.themeColor);
    notes.push(`Primary colour ${primary} from the theme-color meta tag.`);
  }
  let background: string | null = null;
  const bg = colourFrom(css.custom, /^--.*(background|bg)/);
  if (bg) {
    background = bg.value;
    notes.push(`Background ${bg.value} from the CSS custom property ${bg.name}.`);
  } else {
    for (const sel of ['body', 'html', ':root']) {
      const d = css.bySelector.get(sel);
      const raw = d?.['background-color'] ?? d?.background;
      const value = raw ? hexColor(resolved(css.custom, raw)) : null;
      if (value) {
        background = value;
        notes.push(`Background ${value} from the ${sel} rule.`);
        break;
      }
    }
  }

  // Fonts: what body and headings use (directly or by custom property), else the first @font-face.
  const declared = (sel: string) => {
    const raw = css.bySelector.get(sel)?.['font-family'];
    return raw ? firstFamily(resolved(css.custom, raw)) : null;
  };
  const headingVar = familyFrom(
    css.custom,
    /^--.*font.*(head|display|title)|^--.*(head|display|title).*font/,
  );
  const bodyVar = familyFrom(css.custom, /^--.*font/);
  let font = declared('body') ?? declared('html') ?? declared(':root');
  if (font) notes.push(`Font ${font} from the body rule.`);
  else if (bodyVar && bodyVar.name !== headingVar?.name) {
    font = bodyVar.value;
    notes.push(`Font ${font} from the CSS custom property ${bodyVar.name}.`);
  } else if (css.fontFaces[0]) {
    font = css.fontFaces[0];
    notes.push(`Font ${font} from an @font-face rule.`);
  }
  let heading = declared('h1') ?? declared('h1, h2') ?? headingVar?.value ?? null;
  if (!heading && css.fontFaces.length > 1) heading = css.fontFaces.find((f) => f !== font) ?? null;
  if (heading === font) heading = null;
  if (heading) notes.push(`Heading font ${heading}.`);
  if (css.fontFaces.length) notes.push(`Font faces declared: ${css.fontFaces.join(', ')}.`);

  // Logo: the largest apple-touch-icon, else the largest icon; only an https address can be a logo.
  const order = (rel: string) => (rel === 'apple-touch-icon' ? 0 : rel === 'icon' ? 1 : 2);
  const icons = [...html.icons].sort((a, b) => order(a.rel) - order(b.rel) || b.size - a.size);
  let logo: string | null = null;
  for (const icon of icons) {
    let href: string;
    try {
      href = new URL(icon.href, page.url).href;
    } catch {
      continue;
    }
    if (href.length <= 500 && LOGO_URL.test(href) && logoUrlProblem(href) === null) {
      logo = href;
      notes.push(`Logo ${href} from the ${icon.rel} link.`);
      break;
    }
    notes.push(`Icon ${href} skipped: a logo must be an https address.`);
  }

  return {
    site: page.url,
    primary_color: primary,
    background_color: background,
    font_family: font,
    heading_font_family: heading,
    logo_url: logo,
    notes,
  };
}
