import type { Logger } from '../../stack/logger';
import type { AcquirerSettlementReport } from './acquirer-settlements';

/**
 * The acquirer's side of `POST /_sim/acquirer-settlements`: reports one capture or refund to the
 * simulated bank at `bankUrl` (its base URL, SIMULATED_BANK_URL). Never throws: a capture has
 * happened whether or not the bank heard of it, so a failed report is logged, not propagated.
 * Resolves to whether the bank acknowledged it.
 */
export async function reportAcquirerSettlement(
  bankUrl: string,
  report: AcquirerSettlementReport,
  log?: Logger,
): Promise<boolean> {
  try {
    const res = await fetch(new URL('/_sim/acquirer-settlements', bankUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(report),
      signal: AbortSignal.timeout(5000),
    });
    if (res.ok) return true;
    log?.warn({ status: res.status, id: report.id }, 'simulated bank refused an acquirer settlement report');
    return false;
  } catch (err) {
    log?.warn({ err, id: report.id }, 'could not report an acquirer settlement to the simulated bank');
    return false;
  }
}
