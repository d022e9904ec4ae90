import { z } from 'zod';
import type { Knex } from '../db/knex';
import type { Scope } from '../domain/scope';
import { createThemeRepository, type ThemeRow } from '../db/themes';
import { createMerchantRepository } from '../db/merchants';
import {
  BUTTON_ROUNDNESS,
  THEME_FIELDS,
  logoUrlProblem,
  type ThemePatch,
  type ThemeValues,
} from '../domain/theme';
import { ConflictError, NotFoundError, UnprocessableError } from '../domain/errors';
import { unix } from '../domain/unix-time';

export const ThemeSchema = z.object({
  object: z.literal('merchant.theme'),
  primary_color: z.string().nullable(),
  background_color: z.string().nullable(),
  font_family: z.string().nullable(),
  heading_font_family: z.string().nullable(),
  button_roundness: z.enum(BUTTON_ROUNDNESS).nullable(),
  logo_url: z.string().nullable(),
  source: z.string().nullable(),
  updated_at: z.number().nullable(),
});

export type ThemeObject = z.output<typeof ThemeSchema>;

/** The theme object (spec §2.2); every field null while no theme is set. */
export function presentTheme(row: ThemeRow | undefined): ThemeObject {
  return {
    object: 'merchant.theme',
    primary_color: row?.primary_color ?? null,
    background_color: row?.background_color ?? null,
    font_family: row?.font_family ?? null,
    heading_font_family: row?.heading_font_family ?? null,
    button_roundness: row?.button_roundness ?? null,
    logo_url: row?.logo_url ?? null,
    source: row?.source ?? null,
    updated_at: row ? unix(row.updated_at) : null,
  };
}

function mismatch(): ConflictError {
  return new ConflictError(
    'The theme belongs to live mode; a test key cannot change it. Use a live key, or the dashboard in live mode.',
    'theme_environment_mismatch',
  );
}

/**
 * The checkout theme rules (spec §4.3): one row per merchant shared by both environments,
 * production winning. A live key claims a test row; a test key cannot touch a live row.
 */
export function createThemeService(knex: Knex) {
  const themes = createThemeRepository(knex);
  const merchants = createMerchantRepository(knex);

  async function assertMerchant(trx: Knex | Knex.Transaction, merchantId: string): Promise<void> {
    const found = await merchants.findById(merchantId, trx);
    if (!found) throw new NotFoundError(`No such merchant: '${merchantId}'`);
  }

  return {
    /**
     * How a merchant's buyer pages look (checkout, portal): the shared theme row, or no theme at
     * all, and the name the pages show.
     */
    async forPages(merchantId: string): Promise<{ theme: ThemeValues; merchantName: string }> {
      const [row, merchant] = await Promise.all([themes.find(merchantId), merchants.findById(merchantId)]);
      return { theme: presentTheme(row), merchantName: merchant?.name ?? '' };
    },

    /** What the key's environment shows: the shared row (a live row also governs test). */
    async read(scope: Scope): Promise<ThemeRow | undefined> {
      const row = await themes.find(scope.merchantId);
      if (!row) await assertMerchant(knex, scope.merchantId);
      return row;
    },

    async patch(scope: Scope, patch: ThemePatch): Promise<ThemeRow | undefined> {
      if (patch.logo_url) {
        const problem = logoUrlProblem(patch.logo_url);
        if (problem) throw new UnprocessableError(`logo_url ${problem}`, 'logo_url_unusable', ['logo_url']);
      }
      const fields = THEME_FIELDS.filter((f) => patch[f] !== undefined);
      return knex.transaction(async (trx) => {
        if (fields.length === 0) {
          // Nothing to change: no row is created or claimed, but a test key still may not write live.
          const row = await themes.find(scope.merchantId, trx);
          if (row?.livemode && !scope.livemode) throw mismatch();
          if (!row) await assertMerchant(trx, scope.merchantId);
          return row;
        }
        await assertMerchant(trx, scope.merchantId);
        const row = await themes.lockOrCreate(scope.merchantId, scope.livemode, trx);
        if (row.livemode && !scope.livemode) throw mismatch();
        const values: Record<string, unknown> = {};
        for (const f of fields) values[f] = patch[f];
        return themes.update(scope.merchantId, { ...values, livemode: row.livemode || scope.livemode }, trx);
      });
    },
  };
}

export type ThemeService = ReturnType<typeof createThemeService>;
