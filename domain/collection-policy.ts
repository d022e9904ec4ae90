import { addDays } from './day-count';
import { nextBankingDay } from './banking-days';
import { LETTER_BANDS, letterBand, type CollectionCapKey, type CollectionCaps } from './collection-caps';
import type { PayerKind } from './default-interest-rates';

/**
 * A merchant's collection policy for overdue kröfur and the plan of steps it makes for one krafa
 * (Collection Act 95/2008; Regulation 37/2009 as amended; decision 0245). Pure: the caps come in as
 * data (the operator's table), the dates as `YYYY-MM-DD`.
 *
 * The steps of a plan, in order: `overdue` (the day after the eindagi's grace, no cost), the one
 * written warning (innheimtuviðvörun, art. 7: the payer is given at least ten days from sending),
 * interim collection (milliinnheimta: a letter and at most two reminders of it, and at most one
 * call, Reg. 133/2010 items 2–5), then hand-off to a collector or closing the krafa.
 */

export type InterimKind = 'letter' | 'reminder' | 'call';
export type StepKind = 'overdue' | 'warning' | InterimKind | 'hand_off' | 'close';

export interface InterimStepPolicy {
  kind: InterimKind;
  /** Days after the previous step (after the warning's payment period for the first one). */
  days_after_previous: number;
  /** A letter's or reminder's cost per principal band (Reg. 133/2010 2 a–d), whole ISK. */
  cost_by_band?: [number, number, number, number] | undefined;
  /** A call's cost, whole ISK. */
  cost?: number | undefined;
}

export interface CollectionPolicy {
  warning: {
    /** Days the payer is given to pay from the warning's sending, at least 10 (art. 7). */
    pay_within_days: number;
    cost: number;
    /** Between businesses the warning may be waived by contract (art. 7; decision 0245). */
    waive_for_businesses: boolean;
  };
  interim_steps: InterimStepPolicy[];
  final_step: { action: 'hand_off' | 'close'; days_after_previous: number };
}

export const MIN_WARNING_DAYS = 10;
const MAX_DAYS = 365;

/** The lawful defaults: a warning at the cap with ten days, a letter and a reminder 14 days apart, hand-off. */
export function defaultCollectionPolicy(caps: CollectionCaps): CollectionPolicy {
  const bands = LETTER_BANDS.map((b) => caps[b.key]) as [number, number, number, number];
  return {
    warning: { pay_within_days: MIN_WARNING_DAYS, cost: caps.warning, waive_for_businesses: false },
    interim_steps: [
      { kind: 'letter', days_after_previous: 1, cost_by_band: bands },
      { kind: 'reminder', days_after_previous: 14, cost_by_band: bands },
    ],
    final_step: { action: 'hand_off', days_after_previous: 14 },
  };
}

export interface PolicyProblem {
  param: string;
  message: string;
}

const wholeIsk = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
const days = (v: unknown, min: number) =>
  Number.isInteger(v) && (v as number) >= min && (v as number) <= MAX_DAYS;

/**
 * The first thing wrong with a policy against the caps and the Act, or null. A cost above its cap
 * names the cap, its amount and its source item, so the merchant sees which limit it broke.
 */
export function collectionPolicyProblem(p: CollectionPolicy, caps: CollectionCaps): PolicyProblem | null {
  const over = (param: string, cost: number, key: CollectionCapKey, what: string): PolicyProblem | null =>
    cost > caps[key]
      ? {
          param,
          message: `${cost} ISK is above the cap of ${caps[key]} ISK for ${what} (Regulation 37/2009 art. 6, cap \`${key}\`)`,
        }
      : null;
  if (!days(p.warning.pay_within_days, MIN_WARNING_DAYS))
    return {
      param: 'warning[pay_within_days]',
      message: `must be a whole number of days from ${MIN_WARNING_DAYS} (Collection Act 95/2008 art. 7) to ${MAX_DAYS}`,
    };
  if (!wholeIsk(p.warning.cost)) return { param: 'warning[cost]', message: 'must be a whole ISK amount ≥ 0' };
  const warning = over(
    'warning[cost]',
    p.warning.cost,
    'warning',
    'a collection warning (innheimtuviðvörun)',
  );
  if (warning) return warning;
  if (p.interim_steps.length > 4)
    return { param: 'interim_steps', message: 'at most a letter, two reminders and one call' };
  let letters = 0;
  let reminders = 0;
  let calls = 0;
  for (const [i, s] of p.interim_steps.entries()) {
    const at = `interim_steps[${i}]`;
    if (!days(s.days_after_previous, 1))
      return {
        param: `${at}[days_after_previous]`,
        message: `must be a whole number of days from 1 to ${MAX_DAYS}`,
      };
    if (s.kind === 'call') {
      calls += 1;
      if (calls > 1)
        return {
          param: `${at}[kind]`,
          message: 'at most one call in interim collection (Reg. 133/2010 item 5)',
        };
      if (s.cost_by_band !== undefined)
        return { param: `${at}[cost_by_band]`, message: 'a call has one `cost`' };
      const cost = s.cost ?? caps.call;
      if (!wholeIsk(cost)) return { param: `${at}[cost]`, message: 'must be a whole ISK amount ≥ 0' };
      const c = over(`${at}[cost]`, cost, 'call', 'a call in interim collection');
      if (c) return c;
      continue;
    }
    if (s.kind === 'letter') {
      letters += 1;
      if (letters > 1 || reminders > 0)
        return {
          param: `${at}[kind]`,
          message: 'one interim letter, before its reminders (Reg. 133/2010 item 2)',
        };
    } else {
      reminders += 1;
      if (letters === 0) return { param: `${at}[kind]`, message: 'a reminder follows the interim letter' };
      if (reminders > 2)
        return {
          param: `${at}[kind]`,
          message: 'at most two reminders of the letter (Reg. 133/2010 items 3–4)',
        };
    }
    if (s.cost !== undefined)
      return { param: `${at}[cost]`, message: 'a letter or reminder has `cost_by_band`' };
    if (s.cost_by_band !== undefined) {
      if (s.cost_by_band.length !== 4)
        return { param: `${at}[cost_by_band]`, message: 'must list 4 amounts, one per principal band' };
      for (const [b, cost] of s.cost_by_band.entries()) {
        if (!wholeIsk(cost))
          return { param: `${at}[cost_by_band][${b}]`, message: 'must be a whole ISK amount ≥ 0' };
        const band = LETTER_BANDS[b]!;
        const c = over(
          `${at}[cost_by_band][${b}]`,
          cost,
          band.key,
          `a ${s.kind} on a principal of ${band.label}`,
        );
        if (c) return c;
      }
    }
  }
  if (!['hand_off', 'close'].includes(p.final_step.action))
    return { param: 'final_step[action]', message: 'must be hand_off or close' };
  if (!days(p.final_step.days_after_previous, 1))
    return {
      param: 'final_step[days_after_previous]',
      message: `must be a whole number of days from 1 to ${MAX_DAYS}`,
    };
  return null;
}

/** One step of a krafa's plan; `after` days after the previous step's date (0: the same day). */
export interface PlannedStep {
  kind: StepKind;
  after: number;
  /** Whole ISK, per principal band for letters and reminders. */
  cost: number | [number, number, number, number];
  /** A warning's payment period, days from sending (for its letter). */
  payWithinDays?: number;
}

/**
 * The steps a policy makes for one krafa, with the costs fixed when it became overdue. A business
 * payer's warning is left out when the policy waives it; a consumer's never is (decision 0245).
 */
export function planSteps(p: CollectionPolicy, caps: CollectionCaps, payer: PayerKind): PlannedStep[] {
  const steps: PlannedStep[] = [{ kind: 'overdue', after: 0, cost: 0 }];
  const warned = !(payer === 'business' && p.warning.waive_for_businesses);
  if (warned)
    steps.push({ kind: 'warning', after: 0, cost: p.warning.cost, payWithinDays: p.warning.pay_within_days });
  for (const [i, s] of p.interim_steps.entries()) {
    // The first step after a warning waits out its payment period: sent on day S, the payer has
    // through S + pay_within_days, so the step comes on the day after at the earliest.
    const after =
      i === 0 && warned
        ? Math.max(s.days_after_previous, p.warning.pay_within_days + 1)
        : s.days_after_previous;
    const bands = LETTER_BANDS.map((b) => caps[b.key]) as [number, number, number, number];
    steps.push({
      kind: s.kind,
      after,
      cost: s.kind === 'call' ? (s.cost ?? caps.call) : (s.cost_by_band ?? bands),
    });
  }
  const finalAfter =
    p.interim_steps.length === 0 && warned
      ? Math.max(p.final_step.days_after_previous, p.warning.pay_within_days + 1)
      : p.final_step.days_after_previous;
  steps.push({ kind: p.final_step.action, after: finalAfter, cost: 0 });
  return steps;
}

/**
 * A step's cost on a principal (the letter bands by the principal still owed), never above the cap
 * in force when it is taken: a cap the operator lowered after the krafa's plan was made still holds.
 */
export function stepCost(step: PlannedStep, principal: number, caps: CollectionCaps): number {
  const planned = typeof step.cost === 'number' ? step.cost : step.cost[letterBand(principal)]!;
  const cap: Record<StepKind, number | null> = {
    overdue: 0,
    warning: caps.warning,
    letter: caps[LETTER_BANDS[letterBand(principal)]!.key],
    reminder: caps[LETTER_BANDS[letterBand(principal)]!.key],
    call: caps.call,
    hand_off: 0,
    close: 0,
  };
  return Math.min(planned, cap[step.kind] ?? planned);
}

/**
 * The first day a krafa is overdue: the day after its eindagi, or after the next banking day when
 * the eindagi falls on a closed day (the grace of decision 0070).
 */
export function firstOverdueDay(finalDueDate: string): string {
  return addDays(nextBankingDay(finalDueDate), 1);
}

/** A payer's kind from the kennitala: a company's day of birth is offset by 40 (CLAIMS-DOMAIN §2.1). */
export function payerKindOf(kennitala: string): PayerKind {
  return Number(kennitala.slice(0, 2)) > 40 ? 'business' : 'consumer';
}
