import type { Connection } from '@temporalio/client';
import type { Knex } from '../../db/knex';
import { pingDatabase } from '../../db/health';

const PROBE_TIMEOUT_MS = 2000;

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function probe(check: () => Promise<unknown>): Promise<boolean> {
  try {
    await withTimeout(check(), PROBE_TIMEOUT_MS);
    return true;
  } catch {
    return false;
  }
}

export interface Readiness {
  db: boolean;
  temporal: boolean;
}

/** Readiness: PostgreSQL and Temporal each answer within two seconds. */
export function createReadinessCheck(deps: { knex: Knex; temporal: Connection | null }) {
  return async function checkReadiness(): Promise<Readiness> {
    const [db, temporal] = await Promise.all([
      probe(() => pingDatabase(deps.knex)),
      probe(() =>
        deps.temporal
          ? deps.temporal.healthService.check({})
          : Promise.reject(new Error('no Temporal connection')),
      ),
    ]);
    return { db, temporal };
  };
}

export type ReadinessCheck = ReturnType<typeof createReadinessCheck>;
