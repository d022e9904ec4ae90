import type { ClaimsApi } from '../../adapters/banks/claims-api';
import { FailureType } from '../../workflows/contract';
import { StepFailure } from '../step-failure';

/** The claims banks the worker is connected to, one per environment; either may be missing. */
export interface ClaimsBanks {
  /** The test environment's claims bank (the simulated bank); unset: test claims stay pending. */
  claimsApi?: ClaimsApi | undefined;
  /** The live environment's claims bank (decision 0177); unset: live claims stay pending. */
  liveClaimsApi?: ClaimsApi | undefined;
}

/** The claims bank of an environment: live claims go only to the live bank (decision 0177). */
export function claimsBankFor(banks: ClaimsBanks, livemode: boolean): ClaimsApi {
  const bank = livemode ? banks.liveClaimsApi : banks.claimsApi;
  if (!bank)
    throw new StepFailure(
      `no ${livemode ? 'live' : 'test'} bank connection is configured for claims`,
      FailureType.NoBankConnection,
    );
  return bank;
}

/** The environments that have a claims bank, test first. */
export function environmentsWithClaimsBank(banks: ClaimsBanks): boolean[] {
  return [false, true].filter((live) => (live ? banks.liveClaimsApi : banks.claimsApi));
}
