import type { MerchantRow } from '../../db/merchants';
import {
  SUBMIT_REQUIRED,
  enabledCapabilities,
  featuresOf,
  type OnboardingState,
} from '../../domain/capabilities';
import { InvalidRequestError } from '../../domain/errors';

export function missingForSubmit(row: MerchantRow): string[] {
  return SUBMIT_REQUIRED.filter((field) => row[field] === null || row[field] === '');
}

/** The carriers switched on per environment, as stored (decision 0132). */
export function deliveryCarriersOf(raw: unknown): { test: string[]; live: string[] } {
  const r = (raw ?? {}) as { test?: unknown; live?: unknown };
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  return { test: list(r.test), live: list(r.live) };
}

export function onboardingState(row: MerchantRow): OnboardingState {
  return {
    applicationStatus: row.application_status,
    missing: missingForSubmit(row),
    cardAcquirerActive: row.card_acquirer_activated_at !== null,
    claimsAgreementSigned: row.claims_agreement_signed_at !== null,
    features: featuresOf(row.features),
    deliveryCarriers: deliveryCarriersOf(row.delivery_carriers),
  };
}

/** Why this merchant cannot issue bank claims in this environment; null when it can. */
function claimsBlocker(
  row: MerchantRow | undefined,
  livemode: boolean,
): { code: string; message: string } | null {
  if (!row || !enabledCapabilities(onboardingState(row), livemode).includes('payments.bank_claim'))
    return {
      code: 'claims_not_enabled',
      message: 'Bank claims are not enabled for this merchant (payments.bank_claim is not enabled)',
    };
  if (!row.kennitala)
    return {
      code: 'merchant_kennitala_missing',
      message: 'The merchant has no kennitala to issue claims under',
    };
  return null;
}

/**
 * Whether the merchant can issue bank claims in this environment: `payments.bank_claim` enabled
 * (always in test mode; in live mode once approved with the claims agreement signed) and a
 * kennitala to issue them under. The one rule of the claims API, checkout and subscriptions.
 */
export function claimsEnabled(
  row: MerchantRow | undefined,
  livemode: boolean,
): row is MerchantRow & { kennitala: string } {
  return claimsBlocker(row, livemode) === null;
}

/** Throws 400 `claims_not_enabled` (or `merchant_kennitala_missing`) unless `claimsEnabled`. */
export function assertClaimsEnabled(
  row: MerchantRow | undefined,
  livemode: boolean,
  param?: string,
): asserts row is MerchantRow & { kennitala: string } {
  const blocker = claimsBlocker(row, livemode);
  if (blocker)
    throw new InvalidRequestError(blocker.message, {
      code: blocker.code,
      ...(param !== undefined && { param }),
    });
}
