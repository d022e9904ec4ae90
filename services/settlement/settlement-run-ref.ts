import type { Scope } from '../../domain/scope';
import type { SettlementRunRow, SettlementRunStatus } from '../../db/settlement-runs';
import { FailureType } from '../../workflows/contract';
import { StepFailure } from '../step-failure';

export type { SettlementRunStatus };

/** A run as workflows see it: identity, day and status, nothing more. */
export interface SettlementRunRef {
  runId: string;
  merchantId: string;
  livemode: boolean;
  settlementDate: string;
  status: SettlementRunStatus;
  net: number;
}

/** What names a run to the steps of its workflow. */
export interface RunKey {
  runId: string;
  merchantId: string;
  livemode: boolean;
}

export const scopeOf = (k: { merchantId: string; livemode: boolean }): Scope => ({
  merchantId: k.merchantId,
  livemode: k.livemode,
});

export const toRunRef = (
  r: Pick<SettlementRunRow, 'id' | 'merchant_id' | 'livemode' | 'settlement_date' | 'status' | 'net'>,
): SettlementRunRef => ({
  runId: r.id,
  merchantId: r.merchant_id,
  livemode: r.livemode,
  settlementDate: r.settlement_date,
  status: r.status,
  net: r.net,
});

/** The run a workflow looks after is gone: nothing it does next can succeed. */
export function runMissing(message: string): StepFailure {
  return new StepFailure(message, FailureType.SettlementRunMissing);
}
