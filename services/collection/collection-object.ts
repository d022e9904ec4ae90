import { z } from 'zod';
import type { CollectionClaimRow, CollectionStepRow } from '../../db/collection';
import type { AmountDue } from '../../domain/claim-amount-due';
import { unix } from '../../domain/unix-time';
import { costsOf } from './amount-owed';

const zKind = z.enum(['overdue', 'warning', 'letter', 'reminder', 'call', 'hand_off', 'close']);

export const CollectionStepSchema = z.object({
  id: z.string(),
  object: z.literal('claim_collection_step'),
  claim: z.string(),
  step: z.number(),
  kind: zKind,
  taken_on: z.string(),
  cost: z.number(),
  status: z.enum(['taken', 'withdrawn']),
  amount_owed: z.object({
    principal: z.number(),
    interest: z.number(),
    costs: z.number(),
    total: z.number(),
  }),
  bank_altered: z.boolean(),
  mailed: z.boolean(),
  created_at: z.number(),
});

export const ClaimCollectionSchema = z.object({
  id: z.string(),
  object: z.literal('claim_collection'),
  livemode: z.boolean(),
  claim_status: z.string(),
  state: z.enum(['not_overdue', 'overdue', 'warning', 'interim', 'handed_off', 'closed', 'stopped']),
  next_step: z.object({ kind: zKind, on: z.string() }).nullable(),
  amount_owed: z.object({
    date: z.string(),
    principal: z.number(),
    interest: z.number(),
    notice_fee: z.number(),
    default_charge: z.number(),
    collection_costs: z.number(),
    costs: z.number(),
    total: z.number(),
  }),
  steps: z.array(CollectionStepSchema),
});

export type CollectionStepObject = z.output<typeof CollectionStepSchema>;
export type ClaimCollectionObject = z.output<typeof ClaimCollectionSchema>;

export function presentStep(s: CollectionStepRow): CollectionStepObject {
  return {
    id: s.id,
    object: 'claim_collection_step',
    claim: s.claim_id,
    step: s.step,
    kind: s.kind,
    taken_on: s.taken_on,
    cost: s.cost,
    status: s.status,
    amount_owed: { principal: s.principal, interest: s.interest, costs: s.costs_total, total: s.total },
    bank_altered: s.bank_altered_at !== null,
    mailed: s.mailed_at !== null,
    created_at: unix(s.created_at),
  };
}

/** A krafa's collection: where it stands, what comes next and when, and what is owed on `due.date`. */
export function presentCollection(
  claim: CollectionClaimRow,
  steps: CollectionStepRow[],
  due: AmountDue,
): ClaimCollectionObject {
  const plan = claim.collection_plan;
  const next =
    plan && claim.collection_next_step !== null && claim.collection_next_on !== null
      ? { kind: plan[claim.collection_next_step]!.kind, on: claim.collection_next_on }
      : null;
  return {
    id: claim.id,
    object: 'claim_collection',
    livemode: claim.livemode,
    claim_status: claim.status,
    state: claim.collection_state ?? 'not_overdue',
    next_step: next,
    amount_owed: {
      date: due.date,
      principal: due.principal,
      interest: due.defaultInterest,
      notice_fee: due.noticeFee,
      default_charge: due.defaultCharge,
      collection_costs: due.otherDefaultCosts,
      costs: costsOf(due),
      total: due.total,
    },
    steps: steps.map(presentStep),
  };
}
