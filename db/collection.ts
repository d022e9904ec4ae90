import type { Db, Knex } from './knex';
import type { Scope } from '../domain/scope';
import type { ClaimRow } from './claims';
import type { CollectionCapKey, CollectionCaps } from '../domain/collection-caps';
import type { CollectionPolicy, PlannedStep, StepKind } from '../domain/collection-policy';
import { sqlArgs } from './event-batch';
import { newId, ID_PREFIX } from '../domain/ids';

/**
 * Collection of overdue kröfur (decisions 0245–0247): the caps and policies, the kröfur due for a
 * step, the steps taken (unique per krafa and step), and what a payment does to them.
 */

export type CollectionState = 'overdue' | 'warning' | 'interim' | 'handed_off' | 'closed' | 'stopped';

/** A krafa with its collection columns. */
export interface CollectionClaimRow extends ClaimRow {
  collection_state: CollectionState | null;
  collection_plan: PlannedStep[] | null;
  collection_next_step: number | null;
  collection_next_on: string | null;
  collection_costs: number;
}

export interface CollectionStepRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  claim_id: string;
  step: number;
  kind: StepKind;
  taken_on: string;
  cost: number;
  principal: number;
  interest: number;
  /** Every cost owed on the krafa (its own notice fee and default charge too). */
  costs_total: number;
  /** The collection costs alone, standing after this step: what the bank is sent. */
  collection_costs: number;
  total: number;
  status: 'taken' | 'withdrawn';
  bank_altered_at: Date | null;
  mailed_at: Date | null;
  mail_error: string | null;
  handed_off_at: Date | null;
  created_at: Date;
}

export type NewStep = Omit<
  CollectionStepRow,
  'id' | 'status' | 'bank_altered_at' | 'mailed_at' | 'mail_error' | 'handed_off_at' | 'created_at'
>;

/** bigint columns arrive as strings from pg: whole ISK amounts are safe integers. */
function num<T extends object>(row: T, keys: (keyof T)[]): T {
  const r = row as Record<string, unknown>;
  for (const k of keys as string[]) if (r[k] !== null && r[k] !== undefined) r[k] = Number(r[k]);
  return row;
}
const stepNumbers: (keyof CollectionStepRow)[] = [
  'cost',
  'principal',
  'interest',
  'costs_total',
  'collection_costs',
  'total',
];

export function createCollectionRepository(db: Db) {
  return {
    async caps(livemode: boolean): Promise<CollectionCaps & { sources: Record<string, string> }> {
      const rows = await db('collection_caps')
        .where({ livemode })
        .select<{ key: CollectionCapKey; amount: string; source: string }[]>('key', 'amount', 'source');
      const caps = Object.fromEntries(rows.map((r) => [r.key, Number(r.amount)])) as CollectionCaps;
      return { ...caps, sources: Object.fromEntries(rows.map((r) => [r.key, r.source])) };
    },

    async setCap(livemode: boolean, key: CollectionCapKey, amount: number, source: string): Promise<void> {
      await db('collection_caps')
        .insert({ livemode, key, amount, source, updated_at: new Date() })
        .onConflict(['livemode', 'key'])
        .merge(['amount', 'source', 'updated_at']);
    },

    async policy(scope: Scope): Promise<CollectionPolicy | null> {
      const row = await db('collection_policies')
        .where({ merchant_id: scope.merchantId, livemode: scope.livemode })
        .first<{ policy: CollectionPolicy } | undefined>('policy');
      return row?.policy ?? null;
    },

    /** The stored policies of some merchants in one environment. */
    async policies(livemode: boolean, merchantIds: string[]): Promise<Map<string, CollectionPolicy>> {
      if (merchantIds.length === 0) return new Map();
      const rows = await db('collection_policies')
        .where({ livemode })
        .whereIn('merchant_id', merchantIds)
        .select<{ merchant_id: string; policy: CollectionPolicy }[]>('merchant_id', 'policy');
      return new Map(rows.map((r) => [r.merchant_id, r.policy]));
    },

    async savePolicy(scope: Scope, policy: CollectionPolicy): Promise<void> {
      await db('collection_policies')
        .insert({
          merchant_id: scope.merchantId,
          livemode: scope.livemode,
          policy: JSON.stringify(policy),
          updated_at: new Date(),
        })
        .onConflict(['merchant_id', 'livemode'])
        .merge(['policy', 'updated_at']);
    },

    async claim(scope: Scope, id: string, trx: Db = db): Promise<CollectionClaimRow | undefined> {
      const row = await trx<CollectionClaimRow>('claims')
        .where({ id, merchant_id: scope.merchantId, livemode: scope.livemode })
        .first();
      return row && num(row, ['amount', 'amount_paid', 'collection_costs']);
    },

    async steps(scope: Scope, claimId: string, trx: Db = db): Promise<CollectionStepRow[]> {
      const rows = await trx<CollectionStepRow>('claim_collection_steps')
        .where({ claim_id: claimId, merchant_id: scope.merchantId, livemode: scope.livemode })
        .orderBy('step');
      return rows.map((r) => num(r, stepNumbers));
    },
  };
}

export type CollectionRepository = ReturnType<typeof createCollectionRepository>;

/** Which kröfur a run looks at: one environment, and one test clock's (through the customer) or none's. */
export interface RunScope {
  livemode: boolean;
  testClockId: string | null;
  lane: number;
  lanes: number;
}

const clockFilter = (testClockId: string | null) =>
  testClockId === null
    ? `(c.customer_id is null or (select cu.test_clock_id from customers cu where cu.id = c.customer_id) is null)`
    : `(select cu.test_clock_id from customers cu where cu.id = c.customer_id) = ?`;
const clockArgs = (testClockId: string | null) => (testClockId === null ? [] : [testClockId]);
const laneFilter = `abs(hashtext(c.id)) % ? = ?`;

/**
 * Locks (in the caller's transaction) up to `limit` kröfur of the run's lane due for a collection
 * step by `today`: issued ones whose eindagi is `lastOverdueEindagi` or earlier and that have no
 * collection yet, and those whose next step falls due. Locked, so a payment recorded meanwhile waits
 * for this transaction, and this one sees a payment recorded before it (status no longer issued).
 */
export async function lockDueForCollection(
  trx: Knex.Transaction,
  run: RunScope,
  today: string,
  lastOverdueEindagi: string,
  limit: number,
): Promise<CollectionClaimRow[]> {
  const { rows } = await trx.raw<{ rows: CollectionClaimRow[] }>(
    `select c.* from claims c
      where c.livemode = ? and c.status = 'issued' and ${laneFilter} and ${clockFilter(run.testClockId)}
        and ((c.collection_state is null and c.final_due_date <= ?)
          or (c.collection_next_on is not null and c.collection_next_on <= ?))
      order by c.id
      limit ?
      for update of c`,
    sqlArgs(
      run.livemode,
      run.lanes,
      run.lane,
      ...clockArgs(run.testClockId),
      lastOverdueEindagi,
      today,
      limit,
    ),
  );
  return rows.map((r) => num(r, ['amount', 'amount_paid', 'collection_costs']));
}

/** Records steps once each (unique per krafa and step); returns those recorded now. */
export async function insertSteps(trx: Knex.Transaction, steps: NewStep[]): Promise<CollectionStepRow[]> {
  if (steps.length === 0) return [];
  const rows = await trx<CollectionStepRow>('claim_collection_steps')
    .insert(steps.map((s) => ({ ...s, id: newId(ID_PREFIX.collectionStep) })))
    .onConflict(['claim_id', 'step'])
    .ignore()
    .returning('*');
  return rows.map((r) => num(r, stepNumbers));
}

/** Moves kröfur on to their next step (set-based: one statement for the page). */
export async function advanceClaims(
  trx: Knex.Transaction,
  updates: {
    id: string;
    state: CollectionState;
    plan: PlannedStep[];
    nextStep: number | null;
    nextOn: string | null;
    costs: number;
  }[],
): Promise<void> {
  if (updates.length === 0) return;
  await trx.raw(
    `update claims c set collection_state = u.state, collection_plan = u.plan::jsonb,
            collection_next_step = u.next_step, collection_next_on = u.next_on,
            collection_costs = u.costs, updated_at = now()
       from unnest(?::text[], ?::text[], ?::text[], ?::int[], ?::text[], ?::bigint[])
         as u(id, state, plan, next_step, next_on, costs)
      where c.id = u.id`,
    sqlArgs(
      updates.map((u) => u.id),
      updates.map((u) => u.state),
      updates.map((u) => JSON.stringify(u.plan)),
      updates.map((u) => u.nextStep),
      updates.map((u) => u.nextOn),
      updates.map((u) => u.costs),
    ),
  );
}

/**
 * Steps whose bank alteration, mail or hand-off is still to be done (a worker stopped between the
 * step's commit and them), oldest first, with their krafa. Those of one run scope only.
 */
export async function unfinishedSteps(
  db: Db,
  run: Omit<RunScope, 'lane' | 'lanes'>,
  limit: number,
): Promise<(CollectionStepRow & { claim: CollectionClaimRow })[]> {
  const { rows } = await db.raw<{ rows: (CollectionStepRow & { claim: CollectionClaimRow })[] }>(
    `select s.*, to_jsonb(c.*) as claim from claim_collection_steps s join claims c on c.id = s.claim_id
      where s.livemode = ? and ${clockFilter(run.testClockId)}
        and (s.bank_altered_at is null or (s.mailed_at is null and s.mail_error is null)
          or (s.kind = 'hand_off' and s.handed_off_at is null and s.status = 'taken'))
      order by s.created_at, s.id
      limit ?`,
    sqlArgs(run.livemode, ...clockArgs(run.testClockId), limit),
  );
  return rows.map((r) => ({
    ...num(r, stepNumbers),
    claim: num(r.claim, ['amount', 'amount_paid', 'collection_costs']),
  }));
}

export async function markStep(
  db: Db,
  id: string,
  patch: Partial<Pick<CollectionStepRow, 'bank_altered_at' | 'mailed_at' | 'mail_error' | 'handed_off_at'>>,
): Promise<void> {
  await db('claim_collection_steps').where({ id }).update(patch);
}

/**
 * A payment (full or partial) stops a krafa's collection (decision 0246), judged by the payment's
 * date at the bank: steps taken after that date are withdrawn and their costs leave the krafa's
 * collection costs. In the payment's transaction, with the krafa locked. Returns the steps withdrawn.
 */
export async function stopCollection(
  trx: Knex.Transaction,
  claimId: string,
  paidOn: string | null,
  state: CollectionState,
): Promise<CollectionStepRow[]> {
  const withdrawn =
    paidOn === null
      ? []
      : await trx<CollectionStepRow>('claim_collection_steps')
          .where({ claim_id: claimId, status: 'taken' })
          .where('taken_on', '>', paidOn)
          .update({ status: 'withdrawn' })
          .returning('*');
  const removed = withdrawn.reduce((sum, s) => sum + Number(s.cost), 0);
  await trx('claims')
    .where({ id: claimId })
    .whereNotNull('collection_state')
    .update({
      collection_state: trx.raw(
        `case when collection_state in ('handed_off', 'closed') then collection_state else ? end`,
        [state],
      ),
      collection_next_step: null,
      collection_next_on: null,
      collection_costs: trx.raw('greatest(0, collection_costs - ?)', [removed]),
    });
  return withdrawn.map((r) => num(r, stepNumbers));
}

/** The overdue kröfur of a merchant with their next step, soonest first (the dashboard's list). */
export async function overdueClaims(db: Db, scope: Scope, limit: number): Promise<CollectionClaimRow[]> {
  const rows = await db<CollectionClaimRow>('claims')
    .where({ merchant_id: scope.merchantId, livemode: scope.livemode })
    .whereIn('collection_state', ['overdue', 'warning', 'interim', 'handed_off'])
    .whereIn('status', ['issued', 'partially_paid'])
    .orderByRaw('collection_next_on nulls last, final_due_date, id')
    .limit(limit);
  return rows.map((r) => num(r, ['amount', 'amount_paid', 'collection_costs']));
}

/** The claimants and payers a page of letters names: merchants' names and addresses, customers' e-mail. */
export async function lettersParties(
  db: Db,
  merchantIds: string[],
  customerIds: string[],
): Promise<{
  merchants: {
    id: string;
    name: string;
    legal_address: { street: string; postalCode: string; city: string } | null;
  }[];
  customers: {
    id: string;
    name: string | null;
    email: string | null;
    address: { line1?: string | null; postal_code?: string | null; city?: string | null } | null;
  }[];
}> {
  const merchants = await db('merchants').whereIn('id', merchantIds).select('id', 'name', 'legal_address');
  const customers =
    customerIds.length === 0
      ? []
      : await db('customers').whereIn('id', customerIds).select('id', 'name', 'email', 'address');
  return { merchants, customers };
}

/** The frozen time of the test clock a customer is bound to, or null. */
export async function customerClockTime(db: Db, customerId: string): Promise<Date | null> {
  const row = await db('customers as cu')
    .join('test_clocks as tc', 'tc.id', 'cu.test_clock_id')
    .where('cu.id', customerId)
    .first<{ frozen_time: Date } | undefined>('tc.frozen_time');
  return row ? new Date(row.frozen_time) : null;
}

/** A krafa by its id alone, for its payer's page (the id is the payer's link), with its claimant's name. */
export async function claimForPayer(
  db: Db,
  claimId: string,
): Promise<{ claim: CollectionClaimRow; merchantName: string } | null> {
  const claim = await db<CollectionClaimRow>('claims').where({ id: claimId }).first();
  if (!claim) return null;
  const merchant = await db('merchants').where({ id: claim.merchant_id }).first<{ name: string }>('name');
  return {
    claim: num(claim, ['amount', 'amount_paid', 'collection_costs']),
    merchantName: merchant?.name ?? '',
  };
}
