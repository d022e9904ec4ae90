import type { Knex } from '../../db/knex';
import type { Logger } from '../../stack/logger';
import {
  advanceClaims,
  createCollectionRepository,
  insertSteps,
  lockDueForCollection,
  type CollectionClaimRow,
  type CollectionState,
  type CollectionStepRow,
  type NewStep,
  type RunScope,
} from '../../db/collection';
import { recordEvents, type BatchEvent } from '../../db/event-batch';
import { addDays } from '../../domain/day-count';
import {
  defaultCollectionPolicy,
  firstOverdueDay,
  payerKindOf,
  planSteps,
  stepCost,
  type StepKind,
} from '../../domain/collection-policy';
import type { RateTable } from './rate-table';
import type { CollectionDelivery } from './collection-delivery';
import { amountOwed, costsOf } from './amount-owed';
import { presentStep } from './collection-object';

/**
 * The daily collection run's page (decision 0246), set-based as renewals are: one transaction
 * locks a page of kröfur due for a step, records each step once (unique per krafa and step), moves
 * the kröfur on and writes the events; after commit each step is sent to the bank as totals, mailed
 * to the payer and, for a hand-off, exported to the collector (collection-delivery.ts), each marked
 * done on its row so a restarted worker finishes what is left and repeats nothing.
 */

export interface CollectionPage extends RunScope {
  /** Epoch ms the run collects up to (the test clock's time on a clock). */
  asOf: number;
  limit: number;
}

const STATE_OF: Record<StepKind, CollectionState> = {
  overdue: 'overdue',
  warning: 'warning',
  letter: 'interim',
  reminder: 'interim',
  call: 'interim',
  hand_off: 'handed_off',
  close: 'closed',
};

const EVENT_OF = (kind: StepKind) =>
  kind === 'overdue'
    ? 'claim.overdue'
    : kind === 'hand_off'
      ? 'claim.handed_off'
      : 'claim.collection_step_taken';

/** The latest eindagi whose krafa is overdue on `today` (grace to the next banking day; decision 0070). */
export function lastOverdueEindagi(today: string): string {
  let d = addDays(today, -1);
  while (firstOverdueDay(d) > today) d = addDays(d, -1);
  return d;
}

export function createCollectionRun(deps: {
  knex: Knex;
  log: Logger;
  rates: RateTable;
  delivery: CollectionDelivery;
  wakeChannels: (channelIds: string[]) => Promise<void>;
}) {
  const repo = createCollectionRepository(deps.knex);

  /** The steps due on `today` for one locked krafa, and its state after them. */
  function stepsFor(
    claim: CollectionClaimRow,
    plan: NonNullable<CollectionClaimRow['collection_plan']>,
    today: string,
    ctx: { rates: Awaited<ReturnType<RateTable['table']>>; caps: Awaited<ReturnType<typeof repo.caps>> },
  ) {
    let next = claim.collection_next_step ?? 0;
    let nextOn = claim.collection_next_on ?? firstOverdueDay(claim.final_due_date);
    let costs = claim.collection_costs;
    let state = claim.collection_state;
    const steps: NewStep[] = [];
    const principal = claim.amount - claim.amount_paid;
    // Steps due the same day follow one another (the overdue day and its warning); a later one waits
    // for its own day, counted from the day this one is taken, so a run that missed days never
    // bunches steps together.
    while (next < plan.length && nextOn <= today) {
      const step = plan[next]!;
      let cost = stepCost(step, principal, ctx.caps);
      // The krafa's own default charge (vanskilagjald) is the warning's fee charged by the bank:
      // the warning adds only what the charge leaves under its cost (decision 0245).
      if (step.kind === 'warning')
        cost = Math.max(0, cost - amountOwed(claim, today, ctx.rates, 0).defaultCharge);
      costs += cost;
      const due = amountOwed(claim, today, ctx.rates, costs);
      steps.push({
        merchant_id: claim.merchant_id,
        livemode: claim.livemode,
        claim_id: claim.id,
        step: next,
        kind: step.kind,
        taken_on: today,
        cost,
        principal: due.principal,
        interest: due.defaultInterest,
        costs_total: costsOf(due),
        collection_costs: costs,
        total: due.total,
      });
      state = STATE_OF[step.kind];
      next += 1;
      nextOn = next < plan.length ? addDays(today, plan[next]!.after) : '';
    }
    return {
      steps,
      update: {
        id: claim.id,
        state: state!,
        plan,
        nextStep: next < plan.length ? next : null,
        nextOn: next < plan.length ? nextOn : null,
        costs,
      },
    };
  }

  return {
    /** One page of a lane: takes every step due by `asOf` on up to `limit` kröfur. */
    async collectDuePage(page: CollectionPage): Promise<{ claims: number; steps: number; more: boolean }> {
      const today = new Date(page.asOf).toISOString().slice(0, 10);
      const [rates, caps] = await Promise.all([deps.rates.table(page.livemode), repo.caps(page.livemode)]);
      let channels: string[] = [];
      const { locked, taken } = await deps.knex.transaction(async (trx) => {
        const claims = await lockDueForCollection(trx, page, today, lastOverdueEindagi(today), page.limit);
        const policies = await repo.policies(page.livemode, [
          ...new Set(claims.filter((c) => !c.collection_plan).map((c) => c.merchant_id)),
        ]);
        const steps: NewStep[] = [];
        const updates = [];
        for (const claim of claims) {
          const plan =
            claim.collection_plan ??
            planSteps(
              policies.get(claim.merchant_id) ?? defaultCollectionPolicy(caps),
              caps,
              payerKindOf(claim.payer_kennitala),
            );
          const r = stepsFor(claim, plan, today, { rates, caps });
          steps.push(...r.steps);
          if (r.steps.length > 0) updates.push(r.update);
        }
        const inserted = await insertSteps(trx, steps);
        await advanceClaims(trx, updates);
        const events: BatchEvent[] = inserted.map((s) => ({
          merchantId: s.merchant_id,
          livemode: s.livemode,
          type: EVENT_OF(s.kind),
          data: presentStep(s),
        }));
        channels = await recordEvents(trx, events);
        // The letters read the krafa as this page left it: its plan, next step and costs.
        const byId = new Map(claims.map((c) => [c.id, c]));
        for (const u of updates)
          Object.assign(byId.get(u.id)!, {
            collection_state: u.state,
            collection_plan: u.plan,
            collection_next_step: u.nextStep,
            collection_next_on: u.nextOn,
            collection_costs: u.costs,
          });
        return {
          locked: claims.length,
          taken: inserted.map((s) => ({ ...s, claim: byId.get(s.claim_id)! })),
        };
      });
      if (channels.length > 0) await deps.wakeChannels(channels).catch(() => undefined);
      await deps.delivery.deliver(taken);
      return { claims: locked, steps: taken.length, more: locked === page.limit };
    },

    /** Steps a stopped worker left without their bank alteration, mail or hand-off: finished now. */
    async finishUnfinished(input: {
      livemode: boolean;
      testClockId: string | null;
      limit: number;
    }): Promise<number> {
      return deps.delivery.finishUnfinished(input);
    },
  };
}

export type CollectionRun = ReturnType<typeof createCollectionRun>;
export type { CollectionStepRow };
