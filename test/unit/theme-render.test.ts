import fc from 'fast-check';
import { ThemePatch, logoUrlProblem, type ThemeValues } from '../../domain/theme';
import { checkoutPreview, cssString, fontStylesheetUrl, themeCss } from '../../web/theme-render';

/**
 * Spec §4.3 rule 1: theme values are rendered into the checkout page, so nothing that passes
 * validation may break out of a CSS value or an HTML attribute. These properties feed the renderer
 * every value the API would accept, drawn from alphabets full of hostile characters, and check the
 * output's structure; a browser test (test/e2e/device-flow.test.ts) renders the worst of them.
 */

const HOSTILE = [
  '"',
  "'",
  '<',
  '>',
  '&',
  '\\',
  ';',
  '{',
  '}',
  '(',
  ')',
  '/',
  ':',
  '\n',
  '\u2028',
  '`',
  '=',
  ' ',
  '\t',
];
const chars = (extra: string) => fc.constantFrom(...extra.split(''), ...HOSTILE);

const color = fc.oneof(
  fc.stringMatching(/^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/),
  fc.string({ unit: chars('#0123456789abcdefABCDEFg'), maxLength: 12 }),
);
const font = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 -]{0,63}$/),
  fc.string({ unit: chars('Ab9 -'), maxLength: 70 }),
);
const logo = fc
  .string({ unit: chars('ab9.-_~%?#[]@!$*+,=é'), minLength: 0, maxLength: 60 })
  .map((rest) => `https://${rest}`);
const roundness = fc.constantFrom('sharp', 'rounded', 'pill', 'round', '"pill"');

/** A theme as the API would store it: each candidate kept only if PATCH validation accepts it. */
const acceptedTheme = fc
  .record({
    primary_color: fc.option(color),
    background_color: fc.option(color),
    font_family: fc.option(font),
    heading_font_family: fc.option(font),
    button_roundness: fc.option(roundness),
    logo_url: fc.option(logo),
  })
  .map((candidate) => {
    const theme: ThemeValues = {
      primary_color: null,
      background_color: null,
      font_family: null,
      heading_font_family: null,
      button_roundness: null,
      logo_url: null,
      source: null,
    };
    for (const [k, v] of Object.entries(candidate)) {
      const parsed = ThemePatch.safeParse({ [k]: v });
      if (!parsed.success) continue;
      if (k === 'logo_url' && typeof v === 'string' && logoUrlProblem(v) !== null) continue;
      (theme as unknown as Record<string, unknown>)[k] = v;
    }
    return theme;
  });

const FONT_STACK = String.raw`("(?:[A-Za-z0-9 _-]|\\[0-9a-f]+ )*", )?system-ui, sans-serif`;
const CSS_SHAPE = new RegExp(
  String.raw`^\.skil-checkout \{ --skil-primary: #[0-9a-fA-F]{3,8}; --skil-background: #[0-9a-fA-F]{3,8}; ` +
    String.raw`--skil-font: ${FONT_STACK}; --skil-heading-font: ${FONT_STACK}; --skil-radius: (0|8px|999px); \}$`,
);

/** Undoes cssString's escapes. */
function cssUnquote(literal: string): string {
  return literal
    .slice(1, -1)
    .replace(/\\([0-9a-f]+) /g, (_m, hex: string) => String.fromCodePoint(parseInt(hex, 16)));
}

function htmlUnescape(text: string): string {
  return text.replace(
    /&(amp|lt|gt|quot|#39|#96);/g,
    (_m, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#96': '`' })[e]!,
  );
}

describe('theme rendering cannot be broken out of (rule 1)', () => {
  test('CSS: every accepted theme gives exactly the five declarations, and fonts read back unchanged', () => {
    fc.assert(
      fc.property(acceptedTheme, (theme) => {
        const css = themeCss(theme);
        expect(css).toMatch(CSS_SHAPE);
        const fonts = [...css.matchAll(/"(?:[^"\\]|\\[0-9a-f]+ )*"/g)].map((m) => cssUnquote(m[0]));
        const expected = [theme.font_family, theme.heading_font_family ?? theme.font_family].filter(
          (f): f is string => f !== null,
        );
        expect(fonts).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });

  test('HTML: the preview keeps its element structure, and the logo attribute reads back unchanged', () => {
    fc.assert(
      fc.property(acceptedTheme, fc.string({ unit: chars('Kaffi'), maxLength: 30 }), (theme, name) => {
        const out = checkoutPreview(theme, name).value;
        const tags = [...out.matchAll(/<\/?([a-z]+)/g)].map((m) => m[1]);
        const img = theme.logo_url ? ['img'] : [];
        expect(tags).toEqual(['div', ...img, 'p', 'p', 'p', 'p', 'button', 'button', 'div']);
        const attrs = [...out.matchAll(/ ([a-z-]+)="([^"]*)"/g)].map((m) => [m[1], htmlUnescape(m[2]!)]);
        const names = attrs.map((a) => a[0]);
        expect(names).toEqual([
          'class',
          'data-testid',
          // The merchant's name, for the live preview's alt text (decision 0148).
          'data-merchant',
          ...(theme.logo_url ? ['class', 'src', 'alt', 'referrerpolicy'] : []),
          'class',
          'class',
          'type',
          'class',
        ]);
        expect(attrs.find((a) => a[0] === 'data-merchant')![1]).toBe(name);
        if (theme.logo_url) {
          expect(attrs.find((a) => a[0] === 'src')![1]).toBe(theme.logo_url);
          expect(attrs.find((a) => a[0] === 'alt')![1]).toBe(`${name} logo`);
        }
        expect(out).not.toMatch(/<script|on[a-z]+=/i);
      }),
      { numRuns: 2000 },
    );
  });

  test('the Google Fonts URL stays one URL: only the families, URL-encoded', () => {
    fc.assert(
      fc.property(acceptedTheme, (theme) => {
        const url = fontStylesheetUrl(theme);
        if (!theme.font_family && !theme.heading_font_family) return expect(url).toBeNull();
        expect(url).toMatch(
          /^https:\/\/fonts\.googleapis\.com\/css2\?(family=[A-Za-z0-9+%-]+&)+display=swap$/,
        );
      }),
    );
  });

  test('values written around the API (straight into the table) are dropped, not rendered', () => {
    const hostile: ThemeValues = {
      primary_color: 'red;} body { display: none',
      background_color: '#fff</style><script>alert(1)</script>',
      font_family: 'Inter", serif; } * { color: red',
      heading_font_family: 'x\\" y',
      button_roundness: 'pill; border: 0' as never,
      logo_url: 'https://x.is/"onerror="alert(1)',
      source: null,
    };
    const css = themeCss(hostile);
    expect(css).toBe(
      '.skil-checkout { --skil-primary: #1f4fd1; --skil-background: #f6f7f9; --skil-font: system-ui, sans-serif; ' +
        '--skil-heading-font: system-ui, sans-serif; --skil-radius: 8px; }',
    );
    const html = checkoutPreview(hostile, '</p><script>alert(1)</script>').value;
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script');
    expect(html).toContain('&lt;/p&gt;&lt;script&gt;');
  });

  test('cssString escapes everything that could end or bend a CSS string', () => {
    expect(cssString('Inter')).toBe('"Inter"');
    expect(cssString('a"b\\c</style>\n')).toBe('"a\\22 b\\5c c\\3c \\2f style\\3e \\a "');
  });
});
