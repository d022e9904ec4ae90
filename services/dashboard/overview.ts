import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import { createDashboardOverviewRepository, type DailyVolume } from '../../db/dashboard-overview';

export const CHART_DAYS = 30;

export interface Overview {
  today: number;
  month: number;
  /** The last `CHART_DAYS` UTC days, oldest first, every day present. */
  days: DailyVolume[];
  attention: { failedDeliveries: number; pastDueSubscriptions: number; unpaidClaims: number };
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The merchant's home page figures: today's and this month's volume, 30 days by kind, what needs attention. */
export function createOverviewService(deps: { knex: Knex; now?: () => number }) {
  const repo = createDashboardOverviewRepository(deps.knex);
  const now = deps.now ?? Date.now;
  return {
    async overview(scope: Scope): Promise<Overview> {
      const t = now();
      const today = dayOf(t);
      const monthStart = `${today.slice(0, 8)}01`;
      const first = dayOf(t - (CHART_DAYS - 1) * 86_400_000);
      const from = first < monthStart ? first : monthStart;
      const [volume, attention] = await Promise.all([repo.dailyVolume(scope, from), repo.attention(scope)]);
      const byDate = new Map(volume.map((v) => [v.date, v]));
      const days = Array.from({ length: CHART_DAYS }, (_, i) => {
        const date = dayOf(t - (CHART_DAYS - 1 - i) * 86_400_000);
        return byDate.get(date) ?? { date, card: 0, krafa: 0 };
      });
      const total = (v: DailyVolume) => v.card + v.krafa;
      return {
        today: total(byDate.get(today) ?? { date: today, card: 0, krafa: 0 }),
        month: volume.filter((v) => v.date >= monthStart).reduce((sum, v) => sum + total(v), 0),
        days,
        attention,
      };
    },
  };
}

export type OverviewService = ReturnType<typeof createOverviewService>;
