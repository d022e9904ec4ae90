import { z } from 'zod';

/**
 * The checkout theme (spec §2.2) and its validation (spec §4.3). Values are rendered into the
 * checkout page, so they are validated strictly (rule 1), and web/theme-render.ts escapes them
 * again anyway.
 */

export const BUTTON_ROUNDNESS = ['sharp', 'rounded', 'pill'] as const;
export type ButtonRoundness = (typeof BUTTON_ROUNDNESS)[number];

export interface ThemeValues {
  primary_color: string | null;
  background_color: string | null;
  font_family: string | null;
  heading_font_family: string | null;
  button_roundness: ButtonRoundness | null;
  logo_url: string | null;
  source: string | null;
}

export const THEME_FIELDS = [
  'primary_color',
  'background_color',
  'font_family',
  'heading_font_family',
  'button_roundness',
  'logo_url',
  'source',
] as const satisfies readonly (keyof ThemeValues)[];

/** `#rgb`, `#rrggbb` or `#rrggbbaa`. */
export const HEX_COLOR = /^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;
/** One family name, not a stack: a letter or digit, then letters, digits, spaces and hyphens. */
export const FONT_FAMILY = /^[A-Za-z0-9][A-Za-z0-9 -]*$/;
/** `https://` and 1 to 490 characters with no whitespace, quotes, `<` or `>`. */
export const LOGO_URL = /^https:\/\/[^\s"'<>]{1,490}$/;

const zColor = z.string().regex(HEX_COLOR, 'must be a hex colour: #rgb, #rrggbb or #rrggbbaa');
const zFont = z
  .string()
  .min(1)
  .max(64)
  .regex(
    FONT_FAMILY,
    'must be a single font family name: a letter or digit, then letters, digits, spaces or hyphens',
  );
const zLogo = z
  .string()
  .max(500)
  .regex(
    LOGO_URL,
    'must start with https:// followed by 1 to 490 characters without whitespace, quotes, < or >',
  );

/** PATCH body: every field optional; null clears a nullable one. */
export const ThemePatch = z
  .object({
    primary_color: zColor.nullable(),
    background_color: zColor.nullable(),
    font_family: zFont.nullable(),
    heading_font_family: zFont.nullable(),
    button_roundness: z.enum(BUTTON_ROUNDNESS).nullable(),
    logo_url: zLogo.nullable(),
    source: z.string().max(500),
  })
  .partial()
  .strict();

export type ThemePatch = z.output<typeof ThemePatch>;

/**
 * Why a logo URL that has the declared shape still cannot be used, or null when it can. The
 * declared rule lets through a backslash (an escape character in CSS), control and invisible
 * formatting characters, embedded credentials and text no browser parses as a URL.
 */
export function logoUrlProblem(url: string): string | null {
  if (url.includes('\\')) return 'must not contain a backslash';
  if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(url)) return 'must not contain control or formatting characters';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a valid URL';
  }
  if (parsed.protocol !== 'https:' || parsed.hostname === '')
    return 'must be an absolute https URL with a host';
  if (parsed.username !== '' || parsed.password !== '') return 'must not contain a user name or password';
  return null;
}
