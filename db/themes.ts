import type { Db } from './knex';
import type { ThemeValues } from '../domain/theme';

export interface ThemeRow extends ThemeValues {
  merchant_id: string;
  /** The environment that owns the row (spec §4.3 rule 3: one row, production winning). */
  livemode: boolean;
  created_at: Date;
  updated_at: Date;
}

/**
 * The one tenant table whose rows are not split by environment: a merchant has one theme row and
 * `livemode` records which environment owns it. So methods take the merchant id, and the theme
 * service applies the environment rules (spec §4.3 rules 2–4).
 */
export function createThemeRepository(db: Db) {
  return {
    async find(merchantId: string, trx: Db = db): Promise<ThemeRow | undefined> {
      return trx<ThemeRow>('merchant_themes').where({ merchant_id: merchantId }).first();
    },

    /** The row locked for this transaction, created empty (owned by `livemode`) if there is none. */
    async lockOrCreate(merchantId: string, livemode: boolean, trx: Db): Promise<ThemeRow> {
      await trx('merchant_themes')
        .insert({ merchant_id: merchantId, livemode })
        .onConflict('merchant_id')
        .ignore();
      const row = await trx<ThemeRow>('merchant_themes')
        .where({ merchant_id: merchantId })
        .forUpdate()
        .first();
      return row!;
    },

    async update(
      merchantId: string,
      values: Partial<ThemeValues> & { livemode?: boolean },
      trx: Db,
    ): Promise<ThemeRow> {
      const [row] = await trx<ThemeRow>('merchant_themes')
        .where({ merchant_id: merchantId })
        .update({ ...values, updated_at: trx.fn.now() as never })
        .returning('*');
      return row!;
    },
  };
}

export type ThemeRepository = ReturnType<typeof createThemeRepository>;
