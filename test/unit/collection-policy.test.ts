import { defaultCaps } from '../../domain/collection-caps';
import {
  collectionPolicyProblem,
  defaultCollectionPolicy,
  firstOverdueDay,
  payerKindOf,
  planSteps,
  stepCost,
} from '../../domain/collection-policy';

/** The collection policy's rules against the caps of Regulation 37/2009 as amended (decision 0245). */

const caps = defaultCaps();
const policy = defaultCollectionPolicy(caps);

test('the defaults are lawful, and each cap is enforced by name', () => {
  expect(collectionPolicyProblem(policy, caps)).toBeNull();
  expect(collectionPolicyProblem({ ...policy, warning: { ...policy.warning, cost: 951 } }, caps)).toEqual({
    param: 'warning[cost]',
    message: expect.stringContaining('cap of 950 ISK'),
  });
  const bands: [number, number, number, number] = [1300, 2100, 3700, 5901];
  expect(
    collectionPolicyProblem(
      { ...policy, interim_steps: [{ kind: 'letter', days_after_previous: 1, cost_by_band: bands }] },
      caps,
    ),
  ).toMatchObject({
    param: 'interim_steps[0][cost_by_band][3]',
    message: expect.stringContaining('letter_band_4'),
  });
  expect(
    collectionPolicyProblem(
      { ...policy, interim_steps: [{ kind: 'call', days_after_previous: 3, cost: 551 }] },
      caps,
    ),
  ).toMatchObject({ param: 'interim_steps[0][cost]' });
  expect(
    collectionPolicyProblem({ ...policy, warning: { ...policy.warning, pay_within_days: 9 } }, caps),
  ).toMatchObject({
    param: 'warning[pay_within_days]',
  });
  // At most a letter and two reminders of it (Reg. 133/2010 items 2–4), reminders after the letter.
  const reminder = { kind: 'reminder' as const, days_after_previous: 7 };
  expect(collectionPolicyProblem({ ...policy, interim_steps: [reminder] }, caps)).toMatchObject({
    param: 'interim_steps[0][kind]',
  });
  expect(
    collectionPolicyProblem(
      {
        ...policy,
        interim_steps: [{ kind: 'letter', days_after_previous: 1 }, reminder, reminder, reminder],
      },
      caps,
    ),
  ).toMatchObject({ param: 'interim_steps[3][kind]' });
});

test('plans: a consumer is always warned; a business may be spared the warning; costs by band, never above a lowered cap', () => {
  const waiving = { ...policy, warning: { ...policy.warning, waive_for_businesses: true } };
  expect(payerKindOf('1201603389')).toBe('consumer');
  expect(payerKindOf('5510730339')).toBe('business');
  expect(planSteps(waiving, caps, 'consumer').map((s) => s.kind)).toEqual([
    'overdue',
    'warning',
    'letter',
    'reminder',
    'hand_off',
  ]);
  expect(planSteps(waiving, caps, 'business').map((s) => s.kind)).toEqual([
    'overdue',
    'letter',
    'reminder',
    'hand_off',
  ]);
  const plan = planSteps(policy, caps, 'consumer');
  // The letter waits out the warning's ten days: sent the day after them at the earliest.
  expect(plan[2]).toMatchObject({ kind: 'letter', after: 11 });
  const letter = plan[2]!;
  expect([2999, 3000, 10_499, 10_500, 84_999, 85_000].map((p) => stepCost(letter, p, caps))).toEqual([
    1300, 2100, 2100, 3700, 3700, 5900,
  ]);
  expect(stepCost(letter, 50_000, { ...caps, letter_band_3: 3000 })).toBe(3000);
});

test('the first overdue day: the day after the eindagi, or after the next banking day when it is closed', () => {
  expect(firstOverdueDay('2027-03-01')).toBe('2027-03-02'); // a Monday
  expect(firstOverdueDay('2027-03-06')).toBe('2027-03-09'); // a Saturday: grace to Monday
});
