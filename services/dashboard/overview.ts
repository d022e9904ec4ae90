import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import { createDashboardOverviewRepository, type AttentionCounts } from '../../db/dashboard-overview';

export interface Overview {
  attention: AttentionCounts;
}

/**
 * What needs the merchant's attention on the home page; the period figures and charts beside it
 * come from services/dashboard/home-figures.ts (decision 0230).
 */
export function createOverviewService(deps: { knex: Knex }) {
  const repo = createDashboardOverviewRepository(deps.knex);
  return {
    async overview(scope: Scope): Promise<Overview> {
      return { attention: await repo.attention(scope) };
    },
  };
}

export type OverviewService = ReturnType<typeof createOverviewService>;
