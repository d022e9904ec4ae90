import type { Knex } from '../../db/knex';
import { createDefaultInterestRateRepository } from '../../db/default-interest-rates';
import type { DefaultInterestRateTable } from '../../domain/default-interest-rates';
import { ConflictError, InvalidRequestError } from '../../domain/errors';
import { parseDate } from '../../domain/day-count';

/**
 * The statutory default-interest rates as data (decision 0244): each environment's table in the
 * database, seeded by the migration with the latest published notice found, added to by the
 * operator as the Central Bank publishes; every computation of what a krafa owes reads it here.
 */

export interface RateInput {
  livemode: boolean;
  valid_from: string;
  consumer: number;
  business: number;
  source: string;
}

export interface RateObject {
  object: 'default_interest_rate';
  livemode: boolean;
  valid_from: string;
  consumer: number;
  business: number;
  source: string;
}

const twoDecimals = (v: number) =>
  Number.isFinite(v) && v >= 0 && v <= 100 && Math.round(v * 100) === v * 100;

export function createRateTable(deps: { knex: Knex }) {
  const rates = createDefaultInterestRateRepository(deps.knex);
  return {
    /** The environment's table for the computation (oldest first). */
    async table(livemode: boolean): Promise<DefaultInterestRateTable> {
      return (await rates.list(livemode)).map(({ from, consumer, business }) => ({
        from,
        consumer,
        business,
      }));
    },

    async list(livemode: boolean): Promise<RateObject[]> {
      return (await rates.list(livemode)).map((r) => ({
        object: 'default_interest_rate' as const,
        livemode,
        valid_from: r.from,
        consumer: r.consumer,
        business: r.business,
        source: r.source,
      }));
    },

    /**
     * Adds a published rate. A date already in the table is a conflict: a published rate is not
     * rewritten in place (kröfur computed on it would change behind their payers' backs).
     */
    async add(input: RateInput): Promise<RateObject> {
      try {
        parseDate(input.valid_from);
      } catch {
        throw new InvalidRequestError('valid_from must be a date YYYY-MM-DD', {
          code: 'parameter_invalid',
          param: 'valid_from',
        });
      }
      for (const param of ['consumer', 'business'] as const)
        if (!twoDecimals(input[param]))
          throw new InvalidRequestError(`${param} must be a percentage 0–100 with at most two decimals`, {
            code: 'parameter_invalid',
            param,
          });
      const added = await rates.add(input.livemode, {
        from: input.valid_from,
        consumer: input.consumer,
        business: input.business,
        source: input.source,
      });
      if (!added)
        throw new ConflictError(`A rate from ${input.valid_from} is already in the table`, 'rate_exists');
      return { object: 'default_interest_rate', ...input };
    },
  };
}

export type RateTable = ReturnType<typeof createRateTable>;
