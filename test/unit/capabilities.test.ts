import {
  APPLICATION_TRANSITIONS,
  assertPosEnabled,
  capabilities,
  enabledCapabilities,
  type OnboardingState,
} from '../../domain/capabilities';
import { PermissionError } from '../../domain/errors';

const base: OnboardingState = {
  applicationStatus: 'unsubmitted',
  missing: [],
  cardAcquirerActive: false,
  claimsAgreementSigned: false,
  features: { pos: false },
};
const at = (patch: Partial<OnboardingState>): OnboardingState => ({ ...base, ...patch });

describe('capability lifecycle', () => {
  test('unsubmitted: inactive, listing the missing fields first', () => {
    expect(capabilities(at({ missing: ['phone'] })).payments).toEqual({
      status: 'inactive',
      requirements: ['phone', 'application.submit', 'card_acquirer'],
    });
  });

  test('in review: pending on review', () => {
    const c = capabilities(at({ applicationStatus: 'in_review', claimsAgreementSigned: true }));
    expect(c.payments).toEqual({ status: 'pending', requirements: ['application.review', 'card_acquirer'] });
    expect(c.claims).toEqual({ status: 'pending', requirements: ['application.review'] });
  });

  test('approved: each payment kind opens on its own condition, claims possibly first', () => {
    const claimsFirst = at({ applicationStatus: 'approved', claimsAgreementSigned: true });
    expect(capabilities(claimsFirst).claims.status).toBe('active');
    expect(capabilities(claimsFirst).payments.status).toBe('pending');
    expect(enabledCapabilities(claimsFirst, true)).toEqual(['payments.bank_claim']);
    const cardsFirst = at({ applicationStatus: 'approved', cardAcquirerActive: true });
    expect(enabledCapabilities(cardsFirst, true)).toEqual(['payments.card']);
  });

  test('a signed agreement or an active acquirer opens nothing live before approval', () => {
    for (const applicationStatus of ['unsubmitted', 'in_review', 'rejected'] as const) {
      expect(
        enabledCapabilities(
          at({ applicationStatus, cardAcquirerActive: true, claimsAgreementSigned: true }),
          true,
        ),
      ).toEqual([]);
    }
  });

  test('test mode: both payment kinds work from sign-up, whatever the onboarding state', () => {
    for (const applicationStatus of ['unsubmitted', 'in_review', 'approved', 'rejected'] as const) {
      expect(enabledCapabilities(at({ applicationStatus }), false)).toEqual([
        'payments.card',
        'payments.bank_claim',
      ]);
    }
  });

  test('tap_to_pay needs the POS feature and active cards', () => {
    const live = at({ applicationStatus: 'approved', cardAcquirerActive: true });
    expect(capabilities(live).tap_to_pay).toEqual({ status: 'inactive', requirements: ['features.pos'] });
    expect(capabilities({ ...live, features: { pos: true } }).tap_to_pay).toEqual({
      status: 'active',
      requirements: [],
    });
    expect(capabilities(at({ applicationStatus: 'approved', features: { pos: true } })).tap_to_pay).toEqual({
      status: 'pending',
      requirements: ['card_acquirer'],
    });
  });

  test('rejected: every capability is rejected', () => {
    const c = capabilities(at({ applicationStatus: 'rejected', features: { pos: true } }));
    expect([c.payments.status, c.claims.status, c.tap_to_pay.status]).toEqual([
      'rejected',
      'rejected',
      'rejected',
    ]);
  });

  test('the transition table', () => {
    expect(APPLICATION_TRANSITIONS).toEqual({
      submit: { from: ['unsubmitted', 'rejected'], to: 'in_review' },
      approve: { from: ['in_review'], to: 'approved' },
      reject: { from: ['in_review'], to: 'rejected' },
    });
  });

  test('POS routes answer 403 pos_not_enabled while the feature is off', () => {
    expect(() => assertPosEnabled({ pos: false })).toThrow(PermissionError);
    try {
      assertPosEnabled({ pos: false });
    } catch (err) {
      expect((err as PermissionError).toBody()).toMatchObject({
        type: 'permission_error',
        code: 'pos_not_enabled',
      });
      expect((err as PermissionError).status).toBe(403);
    }
    expect(() => assertPosEnabled({ pos: true })).not.toThrow();
  });
});
