import type { Db } from './knex';
import type { DefaultInterestRate } from '../domain/default-interest-rates';

/**
 * The statutory default-interest rates per environment (decision 0244): operator data, not a
 * merchant's, so the rows carry the environment and no merchant.
 */

export interface StoredRate extends DefaultInterestRate {
  source: string;
  created_at: Date;
}

interface RateRow {
  valid_from: string;
  consumer: string;
  business: string;
  source: string;
  created_at: Date;
}

const toRate = (r: RateRow): StoredRate => ({
  from: r.valid_from,
  consumer: Number(r.consumer),
  business: Number(r.business),
  source: r.source,
  created_at: r.created_at,
});

export function createDefaultInterestRateRepository(db: Db) {
  return {
    /** The environment's table, oldest first. */
    async list(livemode: boolean): Promise<StoredRate[]> {
      const rows: RateRow[] = await db('default_interest_rates')
        .where({ livemode })
        .orderBy('valid_from')
        .select(
          db.raw(`to_char(valid_from, 'YYYY-MM-DD') as valid_from`),
          'consumer',
          'business',
          'source',
          'created_at',
        );
      return rows.map(toRate);
    },

    /** Adds a rate; false when the environment already has one from that date. */
    async add(livemode: boolean, rate: DefaultInterestRate & { source: string }): Promise<boolean> {
      const inserted = await db('default_interest_rates')
        .insert({
          livemode,
          valid_from: rate.from,
          consumer: rate.consumer,
          business: rate.business,
          source: rate.source,
        })
        .onConflict(['livemode', 'valid_from'])
        .ignore()
        .returning('valid_from');
      return inserted.length > 0;
    },
  };
}

export type DefaultInterestRateRepository = ReturnType<typeof createDefaultInterestRateRepository>;
