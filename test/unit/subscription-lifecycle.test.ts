import { nextLifecycleStep, type LifecycleState } from '../../domain/subscription-lifecycle';
import { priceSubscriptionPeriod, retryDueAt } from '../../domain/subscription';
import { claimExpiresAt, claimOutcomeOf } from '../../domain/claim-fallback';

const DAY = 86_400_000;
const NOW = Date.UTC(2027, 2, 1);
const base: LifecycleState = {
  status: 'active',
  createdAt: NOW - 40 * DAY,
  trialEnd: null,
  trialEnded: false,
  paused: false,
  hasPaymentMethod: true,
  retryRequested: false,
  cancelAtPeriodEnd: false,
  currentPeriodEnd: NOW + 10 * DAY,
  paymentFailedAt: null,
  attempts: 1,
  retryDays: [1, 3, 7, 14],
  endState: 'canceled',
};

const exhausted: Partial<LifecycleState> = {
  status: 'past_due',
  paymentFailedAt: NOW - 14 * DAY,
  attempts: 5,
};

describe('nextLifecycleStep', () => {
  test.each<[string, Partial<LifecycleState>, ReturnType<typeof nextLifecycleStep>]>([
    ['active renews in the batch', {}, { action: 'done' }],
    [
      'cancel at period end waits for the end',
      { cancelAtPeriodEnd: true },
      { action: 'cancel_at_period_end', at: NOW + 10 * DAY },
    ],
    [
      'a new subscription is charged now',
      { status: 'incomplete', attempts: 0 },
      { action: 'charge_first', at: NOW },
    ],
    [
      'an unpaid first charge expires after 23 h',
      { status: 'incomplete', createdAt: NOW },
      { action: 'expire_incomplete', at: NOW + 23 * 3_600_000 },
    ],
    [
      'a new card retries an incomplete one',
      { status: 'incomplete', retryRequested: true },
      { action: 'retry', at: NOW },
    ],
    [
      'a trial ends at trial_end',
      { status: 'trialing', trialEnd: NOW + DAY },
      { action: 'end_trial', at: NOW + DAY },
    ],
    [
      'an ended trial is billed',
      { status: 'trialing', trialEnd: NOW, trialEnded: true },
      { action: 'charge_trial_end', at: NOW },
    ],
    [
      'retry 1 is due a day after the failure',
      { status: 'past_due', paymentFailedAt: NOW },
      { action: 'retry', at: NOW + DAY },
    ],
    [
      'retry 4 is due 14 days after it',
      { status: 'past_due', paymentFailedAt: NOW, attempts: 4 },
      { action: 'retry', at: NOW + 14 * DAY },
    ],
    [
      'after the last retry dunning ends',
      { status: 'past_due', paymentFailedAt: NOW, attempts: 5 },
      { action: 'finish_dunning', at: NOW },
    ],
    [
      'a new card retries at once',
      { status: 'past_due', paymentFailedAt: NOW, retryRequested: true },
      { action: 'retry', at: NOW },
    ],
    [
      'a paused trial resumes with a card',
      { status: 'unpaid', paused: true },
      { action: 'charge_trial_end', at: NOW },
    ],
    [
      'a paused trial without a card waits',
      { status: 'unpaid', paused: true, hasPaymentMethod: false },
      { action: 'done' },
    ],
    ['canceled is final', { status: 'canceled', cancelAtPeriodEnd: true }, { action: 'done' }],
    [
      'retries run out with a krafa open: it waits until the krafa expires',
      { ...exhausted, dunningClaim: { outcome: 'open', expiresAt: NOW + 90 * DAY } },
      { action: 'await_claim', at: NOW + 90 * DAY },
    ],
    [
      'a krafa still open past its expiry is looked at daily',
      { ...exhausted, dunningClaim: { outcome: 'open', expiresAt: NOW - DAY } },
      { action: 'await_claim', at: NOW + DAY },
    ],
    [
      'a new card does not retry while the krafa is open',
      { ...exhausted, retryRequested: true, dunningClaim: { outcome: 'open', expiresAt: NOW + DAY } },
      { action: 'await_claim', at: NOW + DAY },
    ],
    [
      'a paid krafa recovers the subscription',
      { ...exhausted, dunningClaim: { outcome: 'paid', expiresAt: NOW + DAY } },
      { action: 'recover_by_claim', at: NOW },
    ],
    [
      'an expired or cancelled krafa finishes dunning',
      { ...exhausted, dunningClaim: { outcome: 'ended', expiresAt: NOW } },
      { action: 'finish_dunning', at: NOW },
    ],
    [
      'an ended krafa of a claim-collected subscription ends it',
      { claimEnded: true, cancelAtPeriodEnd: true },
      { action: 'end_for_unpaid_claim', at: NOW },
    ],
    [
      'a new card after a krafa ended retries the renewal its card failed',
      { status: 'unpaid', retryRequested: true, retryable: true },
      { action: 'retry', at: NOW },
    ],
    [
      'a new card with nothing to retry does nothing',
      { status: 'unpaid', retryRequested: true, retryable: false },
      { action: 'done' },
    ],
    [
      'nor past_due outside dunning',
      { status: 'past_due', retryRequested: true, retryable: false },
      { action: 'done' },
    ],
  ])('%s', (_name, patch, expected) => {
    expect(nextLifecycleStep({ ...base, ...patch }, NOW)).toEqual(expected);
  });
});

test("a krafa's outcome for the subscription waiting for it, and when it expires", () => {
  expect(
    ['pending', 'issued', 'partially_paid', 'paid', 'expired', 'cancelled'].map((s) => claimOutcomeOf(s)),
  ).toEqual(['open', 'open', 'open', 'paid', 'ended', 'ended']);
  // Refused by the bank at issuance: pending with the bank's error, it will never be paid.
  expect(claimOutcomeOf('pending', true)).toBe('ended');
  // The billing run of the day after the cancellation date expires it.
  expect(claimExpiresAt('2027-06-02')).toBe(Date.UTC(2027, 5, 3));
});

test('retries follow the schedule, then stop', () => {
  const failed = new Date(NOW);
  expect([1, 2, 3, 4, 5].map((n) => retryDueAt(failed, [1, 3, 7, 14], n)?.getTime() ?? null)).toEqual([
    NOW + DAY,
    NOW + 3 * DAY,
    NOW + 7 * DAY,
    NOW + 14 * DAY,
    null,
  ]);
});

describe('priceSubscriptionPeriod', () => {
  const coupon = (duration: 'once' | 'forever' | 'repeating', periods: number | null = null) => ({
    terms: { percentOff: '10', amountOff: null, appliesToProducts: null },
    duration: duration === 'repeating' ? { duration, months: null, periods } : { duration },
    appliedAtIndex: 0,
    appliedAt: new Date(NOW),
  });
  const price = (index: number, c: ReturnType<typeof coupon> | null) =>
    priceSubscriptionPeriod({
      unitAmount: 2990,
      quantity: 3,
      vatRate: 24,
      productId: 'prod_1',
      period: { index, start: new Date(NOW + index * 30 * DAY) },
      coupon: c,
    });

  test('quantity, VAT inside, no coupon', () => {
    expect(price(1, null)).toEqual({
      amountSubtotal: 8970,
      discountAmount: 0,
      amount: 8970,
      vatAmount: 1736,
    });
  });
  test.each<[string, ReturnType<typeof coupon>, boolean[]]>([
    ['once covers the first period only', coupon('once'), [true, false, false]],
    ['repeating for 2 periods', coupon('repeating', 2), [true, true, false]],
    ['forever', coupon('forever'), [true, true, true]],
  ])('%s', (_name, c, covered) => {
    expect([0, 1, 2].map((i) => price(i, c).discountAmount > 0)).toEqual(covered);
    expect(price(0, c)).toMatchObject({ discountAmount: 897, amount: 8073, vatAmount: 1563 });
  });
});
