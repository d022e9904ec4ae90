import { PermissionError } from './errors';

/**
 * Merchant onboarding: the application's state machine and the capability lifecycle derived from it
 * (spec §1, §2.3; docs/decisions/0010-merchant-onboarding-state-machine.md).
 *
 *   unsubmitted ──submit──► in_review ──approve──► approved
 *        ▲                      │
 *        └──(edit)── rejected ◄─┘ reject          rejected ──submit──► in_review
 *
 * After approval, cards open when the card acquirer is active, bank claims when the claims
 * agreement is signed, in either order. tap_to_pay needs cards and the POS feature.
 */

export const APPLICATION_STATUSES = ['unsubmitted', 'in_review', 'approved', 'rejected'] as const;
export type ApplicationStatus = (typeof APPLICATION_STATUSES)[number];

export type ApplicationAction = 'submit' | 'approve' | 'reject';

/** Which statuses each action leaves from, and where it goes. */
export const APPLICATION_TRANSITIONS: Record<
  ApplicationAction,
  { from: readonly ApplicationStatus[]; to: ApplicationStatus }
> = {
  submit: { from: ['unsubmitted', 'rejected'], to: 'in_review' },
  approve: { from: ['in_review'], to: 'approved' },
  reject: { from: ['in_review'], to: 'rejected' },
};

/** The fields `POST /v1/merchant/submit` needs set (spec §4.3). */
export const SUBMIT_REQUIRED = ['kennitala', 'phone', 'business_description'] as const;

export type CapabilityName = 'payments' | 'claims' | 'tap_to_pay';
export type CapabilityStatus = 'inactive' | 'pending' | 'active' | 'rejected';

export interface Capability {
  status: CapabilityStatus;
  /** What is still needed, in order: profile fields, `application.submit`, `application.review`,
   * `card_acquirer`, `claims_agreement`, `features.pos`. Empty when active or rejected. */
  requirements: string[];
}

export interface Features {
  pos: boolean;
}

export interface OnboardingState {
  applicationStatus: ApplicationStatus;
  /** Submit-required profile fields that are unset. */
  missing: readonly string[];
  cardAcquirerActive: boolean;
  claimsAgreementSigned: boolean;
  features: Features;
  /** Pickup-point carriers switched on per environment (decision 0132); none when absent. */
  deliveryCarriers?: { test: readonly string[]; live: readonly string[] };
}

/** Reads the feature flags, defaulting every unknown flag to off. */
export function featuresOf(raw: Record<string, unknown> | null | undefined): Features {
  return { pos: raw?.pos === true };
}

function beforeApproval(state: OnboardingState, extra: string[]): Capability | null {
  switch (state.applicationStatus) {
    case 'unsubmitted':
      return { status: 'inactive', requirements: [...state.missing, 'application.submit', ...extra] };
    case 'in_review':
      return { status: 'pending', requirements: ['application.review', ...extra] };
    case 'rejected':
      return { status: 'rejected', requirements: [] };
    case 'approved':
      return null;
  }
}

/** The live onboarding lifecycle of each capability. */
export function capabilities(state: OnboardingState): Record<CapabilityName, Capability> {
  const cardReq = state.cardAcquirerActive ? [] : ['card_acquirer'];
  const claimsReq = state.claimsAgreementSigned ? [] : ['claims_agreement'];
  const payments = beforeApproval(state, cardReq) ?? {
    status: state.cardAcquirerActive ? 'active' : 'pending',
    requirements: cardReq,
  };
  const claims = beforeApproval(state, claimsReq) ?? {
    status: state.claimsAgreementSigned ? 'active' : 'pending',
    requirements: claimsReq,
  };
  let tapToPay: Capability;
  if (payments.status === 'rejected') tapToPay = { status: 'rejected', requirements: [] };
  else if (!state.features.pos)
    tapToPay = { status: 'inactive', requirements: [...payments.requirements, 'features.pos'] };
  else tapToPay = { ...payments, requirements: [...payments.requirements] };
  return { payments, claims, tap_to_pay: tapToPay };
}

/**
 * What works now in the key's environment (spec §2.3). Test mode has the simulated acquirer and
 * bank from sign-up, so both payment kinds work there at once; live mode follows onboarding.
 */
export function enabledCapabilities(state: OnboardingState, livemode: boolean): string[] {
  // A carrier is switched on per environment; `delivery.<carrier>` appears only once it is.
  const delivery = (state.deliveryCarriers?.[livemode ? 'live' : 'test'] ?? []).map((c) => `delivery.${c}`);
  if (!livemode) return ['payments.card', 'payments.bank_claim', ...delivery];
  if (state.applicationStatus !== 'approved') return [];
  const enabled: string[] = [];
  if (state.cardAcquirerActive) enabled.push('payments.card');
  if (state.claimsAgreementSigned) enabled.push('payments.bank_claim');
  return [...enabled, ...delivery];
}

/** Guards a POS route: 403 `pos_not_enabled` while `features.pos` is off (spec §7). */
export function assertPosEnabled(features: Features): void {
  if (!features.pos) {
    throw new PermissionError(
      'The point of sale is not switched on for this merchant (features.pos is false)',
      'pos_not_enabled',
    );
  }
}
