import type { WorkerMetrics } from '../../stack/worker-metrics';
import type { ChargeReason } from './charge-reason';
import type { ChargedRenewal } from './charge-cards';

/** Counts a finished page: its renewals by outcome, and the card charges that reached the acquirer. */
export function countPage(
  metrics: WorkerMetrics | undefined,
  reason: ChargeReason,
  finished: { status: string }[],
  outcomes: ChargedRenewal[],
): void {
  if (!metrics) return;
  for (const r of finished) metrics.renewals.inc({ reason, outcome: r.status });
  for (const o of outcomes)
    if (o.authorization !== null) metrics.charges.inc({ outcome: 'paid' });
    else if (o.status === 'failed' && o.error?.code !== 'payment_method_missing')
      metrics.charges.inc({ outcome: 'failed' });
}
