import type { MerchantRow } from '../../db/merchants';
import { SUBMIT_REQUIRED, featuresOf, type OnboardingState } from '../../domain/capabilities';

export function missingForSubmit(row: MerchantRow): string[] {
  return SUBMIT_REQUIRED.filter((field) => row[field] === null || row[field] === '');
}

export function onboardingState(row: MerchantRow): OnboardingState {
  return {
    applicationStatus: row.application_status,
    missing: missingForSubmit(row),
    cardAcquirerActive: row.card_acquirer_activated_at !== null,
    claimsAgreementSigned: row.claims_agreement_signed_at !== null,
    features: featuresOf(row.features),
  };
}
