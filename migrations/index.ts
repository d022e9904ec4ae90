import type { Knex } from 'knex';
import * as foundation from './20261121_0001_foundation';

export interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/** Every migration, in order. Forward-only in production; `down` exists for development. */
export const migrations: Record<string, Migration> = {
  '20261121_0001_foundation': foundation,
};
