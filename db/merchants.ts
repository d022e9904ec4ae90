import type { Db } from './knex';
import { newId, ID_PREFIX } from '../domain/ids';

export interface MerchantRow {
  id: string;
  name: string;
  created_at: Date;
  updated_at: Date;
}

/** Merchants are the tenants themselves, so this repository is the one keyed by id alone. */
export function createMerchantRepository(db: Db) {
  return {
    async create(input: { name: string }, trx: Db = db): Promise<MerchantRow> {
      const [row] = await trx<MerchantRow>('merchants')
        .insert({ id: newId(ID_PREFIX.merchant), name: input.name })
        .returning('*');
      return row!;
    },

    async findById(id: string, trx: Db = db): Promise<MerchantRow | undefined> {
      return trx<MerchantRow>('merchants').where({ id }).first();
    },
  };
}

export type MerchantRepository = ReturnType<typeof createMerchantRepository>;
